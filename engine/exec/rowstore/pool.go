package rowstore

import (
	"sync"

	"github.com/quiverdb/quiver/engine/memory"
)

// Large integer arrays of aggregation state (counts, sums, integer group
// keys) are pooled across queries. A grouping into a million groups needs
// tens of megabytes of them; fresh from the heap they cost page faults
// and zeroing every query (profiled: 15 ms of Q8's GROUP BY a.id over 1M
// nodes went to allocating them), where a pooled array is only cleared,
// in memory already mapped.
var bigInts sync.Pool

// pooledMin is the smallest array worth pooling.
const pooledMin = 1 << 16

// GrowInts is growTo for []int64, taking large arrays from the pool.
func GrowInts(s []int64, n int) []int64 {
	if n <= cap(s) {
		t := s[:n]
		clear(t[len(s):]) // a pooled array's spare room holds old values
		return t
	}
	if n < pooledMin {
		return memory.Grow(s, n)
	}
	var t []int64
	if p, _ := bigInts.Get().(*[]int64); p != nil && cap(*p) >= n {
		t = (*p)[:n]
		clear(t[len(s):])
	} else {
		t = make([]int64, n)
	}
	copy(t, s)
	PutInts(s)
	return t
}

// PutInts gives an array back to the pool; the caller must hold no other
// reference to it.
func PutInts(s []int64) {
	if cap(s) >= pooledMin {
		s = s[:0]
		bigInts.Put(&s)
	}
}
