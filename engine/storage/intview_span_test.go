package storage

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// TestIntViewSpanFloat reads random id ranges of INTEGER views of every
// width (one byte to eight) as floats and compares them with Get: equal
// where every id of the range has a value, false where one has none or
// the range leaves the view.
func TestIntViewSpanFloat(t *testing.T) {
	const n = 3000
	for _, c := range []struct {
		name     string
		lo, span int64
	}{{"u8", -50, 200}, {"u16", 1000, 60000}, {"u32", -1 << 30, 1 << 31}, {"u64", math.MinInt64 / 2, math.MaxInt64}} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			vals, null := make([]int64, n), make([]bool, n)
			for i := range vals {
				vals[i] = c.lo + rng.Int64N(c.span)
				null[i] = i > n/2 && rng.IntN(40) == 0
			}
			s, err := BulkLoad([]BulkNodes{{Labels: []string{"P"}, Count: n, Cols: []BulkColumn{{Key: "k", Type: vector.Int64, I64: vals, Null: null}}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			k, _ := s.Catalog().LookupKey("k")
			v := s.Snapshot().NodeIntView(k, math.MaxInt32)
			if v == nil {
				t.Fatal("no integer view")
			}
			for range 300 {
				from := uint64(rng.IntN(n + 10))
				dst := make([]float64, rng.IntN(64))
				want := from+uint64(len(dst)) <= n
				for i := range dst {
					if x := from + uint64(i); x >= n || null[x] {
						want = false
					}
				}
				if got := v.SpanFloat(dst, from); got != want {
					t.Fatalf("span of %d from %d: %t, want %t", len(dst), from, got, want)
				} else if got {
					for i, f := range dst {
						if x, _ := v.Get(from + uint64(i)); f != float64(x) {
							t.Fatalf("id %d: %v, want %v", from+uint64(i), f, float64(x))
						}
					}
				}
			}
		})
	}
}
