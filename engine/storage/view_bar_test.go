package storage

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// TestFloatSelectBar compares FloatView.SelectBar with the sort's order
// written out per row (NaN above every number, -0.0 equal to 0.0, a row
// without a value passing only when nulls is set), over views with and
// without validity, ids with and without nulls, out-of-view ids, with and
// without a selection, and bars that are numbers, zeros and NaN.
func TestFloatSelectBar(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	pick := []float64{math.NaN(), 0, math.Copysign(0, -1), 1.5, -2, math.Inf(1), math.Inf(-1)}
	for round := range 400 {
		const lo, size = 10, 300
		v := &FloatView{lo: lo, n: lo + size, vals: make([]float64, size)}
		if round%2 == 1 {
			v.valid = make([]uint64, (size+63)/64)
		}
		for i := range v.vals {
			if rnd.Intn(4) == 0 {
				v.vals[i] = pick[rnd.Intn(len(pick))]
			} else {
				v.vals[i] = float64(rnd.Intn(20) - 10)
			}
			if v.valid != nil && rnd.Intn(5) > 0 {
				v.valid[i>>6] |= 1 << (i & 63)
			}
		}
		n := 1 + rnd.Intn(200)
		ids := &vector.Vector{Type: vector.Node, IDs: make([]uint64, n)}
		for r := range n {
			ids.IDs[r] = uint64(rnd.Intn(lo + size + 20))
			if round%4 >= 2 && rnd.Intn(6) == 0 {
				ids.SetNull(r)
			}
		}
		var sel []int32
		if rnd.Intn(2) == 0 {
			for r := range n {
				if rnd.Intn(3) > 0 {
					sel = append(sel, int32(r))
				}
			}
		}
		bar := pick[rnd.Intn(len(pick))]
		if rnd.Intn(2) == 0 {
			bar = float64(rnd.Intn(20) - 10)
		}
		desc, nulls := rnd.Intn(2) == 0, rnd.Intn(2) == 0
		var want []int32
		for r := range n {
			if sel != nil && !slices.Contains(sel, int32(r)) {
				continue
			}
			x, ok := v.Get(ids.IDs[r])
			if ids.Valid != nil && !ids.Valid.IsValid(r) {
				ok = false
			}
			var pass bool
			switch {
			case !ok:
				pass = nulls
			case desc: // NaN first, then larger values first
				pass = math.IsNaN(x) || !math.IsNaN(bar) && x >= bar
			default: // smaller values first, NaN last
				pass = math.IsNaN(bar) || !math.IsNaN(x) && x <= bar
			}
			if pass {
				want = append(want, int32(r))
			}
		}
		got := v.SelectBar(nil, ids, sel, n, bar, desc, nulls)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (bar %v desc %v nulls %v): got %v, want %v", round, bar, desc, nulls, got, want)
		}
	}
}
