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
			for _, payload := range []int{0, 1, 2} { // none, weights, weights and relationship ids
				list := make([]uint32, size)
				for i := range list {
					list[i] = uint32(rng.IntN(n))
				}
				var rels []uint64
				var wts []float64
				if payload > 0 {
					wts = make([]float64, size)
					for i := range wts {
						wts[i] = float64(i) + 0.5
					}
				}
				if payload > 1 {
					rels = make([]uint64, size)
					for i := range rels {
						rels[i] = uint64(i)
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
					if payload > 0 && wts[i] != float64(w.at)+0.5 || payload > 1 && rels[i] != uint64(w.at) {
						t.Fatalf("n %d size %d payload %d: slot %d carries the payload of slot %g, want %d", n, size, payload, i, wts[i]-0.5, w.at)
					}
				}
			}
		}
	}
}

// BenchmarkSortSlots sorts weighted lists of the lengths a power-law
// graph's lists have (32 to 32,768, vertices below 2^22), as the hub
// order's projection does: with the weights alone and with relationship
// ids too.
func BenchmarkSortSlots(b *testing.B) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 1 << 22
	var lists [][]uint32
	for size := 32; size <= 1<<15; size *= 2 {
		for range (1 << 15) / size {
			list := make([]uint32, size)
			for i := range list {
				list[i] = uint32(rng.IntN(n))
			}
			lists = append(lists, list)
		}
	}
	for _, withRels := range []bool{false, true} {
		name := "weights"
		if withRels {
			name = "weights-rels"
		}
		b.Run(name, func(b *testing.B) {
			defer cpuPerOp(b)()
			var l lister
			work := make([][]uint32, len(lists))
			wts := make([][]float64, len(lists))
			rels := make([][]uint64, len(lists))
			for i, list := range lists {
				work[i], wts[i] = slices.Clone(list), make([]float64, len(list))
				if withRels {
					rels[i] = make([]uint64, len(list))
				}
			}
			for b.Loop() {
				for i, list := range lists {
					copy(work[i], list)
					if err := l.sortSlots(&Run{}, work[i], n, rels[i], wts[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
