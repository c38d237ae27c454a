package metrics

import (
	"runtime/metrics"
	"sync"
)

// MemoryBytes is quiver_memory_bytes: the memory the Go runtime holds
// from the operating system — heap (live objects, garbage not yet
// collected, free spans not yet returned), goroutine stacks and the
// runtime's own data — less what it has returned. It is the figure the
// runtime's soft limit (GOMEMLIMIT, which --max-memory sets) bounds, so
// the two compare directly; the resident set size the kernel reports is
// close to it (it adds the binary's code and shared libraries). Reading
// it stops nothing (runtime/metrics, unlike runtime.ReadMemStats).
func MemoryBytes() uint64 {
	memSamples.Lock()
	defer memSamples.Unlock()
	s := memSamples.s[:]
	metrics.Read(s)
	total, released := s[0].Value, s[1].Value
	if total.Kind() != metrics.KindUint64 || released.Kind() != metrics.KindUint64 {
		return 0 // not in this Go version: never with Go 1.26
	}
	return total.Uint64() - released.Uint64()
}

// memSamples is reused by MemoryBytes: metrics.Read fills it in place.
var memSamples = struct {
	sync.Mutex // protects s
	s          [2]metrics.Sample
}{s: [2]metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
}}
