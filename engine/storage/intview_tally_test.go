package storage

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// TestIntViewTally checks Tally against Get over every width, with and
// without nulls, over ranges that start before and end past the view.
func TestIntViewTally(t *testing.T) {
	const n = 3000
	vals := map[string]func(i int) int64{
		"age":  func(i int) int64 { return 18 + int64(i*7919%63) },
		"year": func(i int) int64 { return -30000 + int64(i*31%60000) },
		"u32":  func(i int) int64 { return int64(i%40) * 800000 },
		"wide": func(i int) int64 { return int64(i%7) << 50 },
	}
	for _, withNulls := range []bool{false, true} {
		var cols []BulkColumn
		for name, f := range vals {
			c := BulkColumn{Key: name, Type: vector.Int64, I64: make([]int64, n)}
			if withNulls {
				c.Null = make([]bool, n)
			}
			for i := range n {
				c.I64[i] = f(i)
				if withNulls {
					c.Null[i] = i%5 == 0 || i == n-1
				}
			}
			cols = append(cols, c)
		}
		s, err := BulkLoad([]BulkNodes{{Labels: []string{"P"}, Count: n, Cols: cols}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		snap := s.Snapshot()
		for name := range vals {
			k, _ := s.Catalog().LookupKey(name)
			v := forceView(snap, k)
			if v == nil {
				t.Fatalf("%s: no view", name)
			}
			for _, r := range [][2]uint64{{0, n}, {7, 1000}, {100, n + 50}, {n + 1, n + 9}, {5, 5}} {
				dense, sparse := make([]int64, v.Codes()), map[int64]int64{}
				nulls := v.Tally(r[0], r[1], dense, sparse)
				for c, cnt := range dense {
					if cnt > 0 {
						sparse[v.Base()+int64(c)] += cnt
					}
				}
				want, wantNulls := map[int64]int64{}, int64(0)
				for id := r[0]; id < r[1]; id++ {
					if x, ok := v.Get(id); ok {
						want[x]++
					} else {
						wantNulls++
					}
				}
				if nulls != wantNulls || len(sparse) != len(want) {
					t.Fatalf("%s nulls=%v %v: %d nulls, %d values; want %d, %d", name, withNulls, r, nulls, len(sparse), wantNulls, len(want))
				}
				for x, c := range want {
					if sparse[x] != c {
						t.Fatalf("%s nulls=%v %v: value %d counted %d, want %d", name, withNulls, r, x, sparse[x], c)
					}
				}
			}
		}
	}
}
