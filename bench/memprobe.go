package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// MemProbe is the machine's random-read latency when a benchmark starts:
// nanoseconds per independent 4-byte read at random positions of an
// array of each size. On this shared 2-core VM the cache other tenants
// leave us varies from day to day, and with it every algorithm that
// reads a per-vertex array once per edge (PageRank at scale 22 took 2.3
// s and 7.4 s on one commit, hours apart); the probe makes a report's
// numbers comparable with another's.
type MemProbe struct {
	Bytes []int
	NsPer []float64
}

// memProbeSizes: inside a core's L2, the last-level cache's size on this
// machine's EPYC (shared with other tenants), and far beyond it.
var memProbeSizes = []int{1 << 20, 16 << 20, 64 << 20}

// ProbeMemory measures MemProbe with 16M reads per size.
func ProbeMemory() MemProbe {
	const reads = 1 << 24
	rng := rand.New(rand.NewPCG(1, 2))
	var p MemProbe
	idx := make([]uint32, reads)
	for _, size := range memProbeSizes {
		n := size / 4
		for i := range idx {
			idx[i] = uint32(rng.IntN(n))
		}
		a := make([]uint32, n)
		for i := range a {
			a[i] = uint32(i)
		}
		start := time.Now()
		var sum uint32
		for _, i := range idx {
			sum += a[i]
		}
		d := time.Since(start)
		if sum == 1 { // keeps the reads: sum is used
			d++
		}
		p.Bytes = append(p.Bytes, size)
		p.NsPer = append(p.NsPer, float64(d.Nanoseconds())/reads)
	}
	return p
}

// String is the probe as a report cell.
func (p MemProbe) String() string {
	if len(p.Bytes) == 0 {
		return "not measured"
	}
	parts := make([]string, len(p.Bytes))
	for i, b := range p.Bytes {
		parts[i] = fmt.Sprintf("%s: %.1f ns", bytesText(int64(b)), p.NsPer[i])
	}
	return strings.Join(parts, ", ")
}
