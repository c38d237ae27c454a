package algo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortSlots sorts a list as a sort would, below and above radixMin and
// radixWide, and moves each slot's payloads with its vertex (equal
// vertices keep their slots' order, so the payloads are checked exactly).
func TestSortSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var l lister
	for _, n := range []int{2, 3, 100, 1 << 11, 1<<11 + 1, 1 << 22, 1 << 30} {
		for _, size := range []int{0, 1, 2, 7, radixMin - 1, radixMin, 300, radixWide - 1, radixWide, 5000} {
			for _, payload := range []bool{false, true} {
				list := make([]uint32, size)
				for i := range list {
					list[i] = uint32(rng.IntN(n))
				}
				var rels []uint64
				var wts []float64
				if payload {
					rels, wts = make([]uint64, size), make([]float64, size)
					for i := range rels {
						rels[i], wts[i] = uint64(i), float64(i)+0.5
					}
				}
				type slot struct {
					v  uint32
					at int
				}
				want := make([]slot, size)
				for i, v := range list {
					want[i] = slot{v, i}
				}
				slices.SortStableFunc(want, func(a, b slot) int { return int(a.v) - int(b.v) })
				if err := l.sortSlots(&Run{}, list, n, rels, wts); err != nil {
					t.Fatal(err)
				}
				for i, w := range want {
					if list[i] != w.v {
						t.Fatalf("n %d size %d: slot %d is %d, want %d", n, size, i, list[i], w.v)
					}
					if payload && (rels[i] != uint64(w.at) || wts[i] != float64(w.at)+0.5) {
						t.Fatalf("n %d size %d: slot %d carries %d and %g, want %d and %g", n, size, i, rels[i], wts[i], w.at, float64(w.at)+0.5)
					}
				}
			}
		}
	}
}
