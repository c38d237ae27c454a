package algo

import (
	"math"
	"slices"
)

// listOrder is how buildCSR leaves each neighbour list.
type listOrder int

const (
	// asFilled: the runs the adjacencies filled the list with, one after
	// the other (each sorted by node id).
	asFilled listOrder = iota
	// mergedRuns: the runs merged into ascending order (node id order,
	// where each run is already sorted; no relationship ids or weights).
	mergedRuns
	// sortedSlots: every list sorted by vertex, its relationship ids and
	// weights moved with it. For the hub order, where the runs are in node
	// id order but the vertices are not: ascending lists name the hubs
	// first and read each per-vertex array in address order, so a list's
	// reads share cache lines and pages. The in-package kernels at scale
	// 22 in the hub order, unsorted against sorted lists, interleaved on
	// a noisy machine: PageRank 4.5-4.9 s against 2.7-3.5 s, WCC 134
	// against 81 ms, BFS 84 against 68 ms.
	sortedSlots
)

// radixMin is the list length from which sortSlots sorts by radix, and
// radixWide the one from which it takes digits of radixWideDigit bits
// instead of radixDigit: on a power-law graph most slots are in lists of
// a few hundred to a few thousand, where a comparison sort's log factor
// and branch misses cost more than three passes of counting. Sorting
// every list of the undirected Kronecker graph of scale 20 in the hub
// order (33.5M slots, one thread, CPU time, best of 4): 522 ms with
// pdqsort below 512 and 11-bit digits above; 234 ms from 32 with 8-bit
// digits, 11-bit from 2,048 (250 ms from 64; 249 ms from 8,192).
const (
	radixMin       = 32
	radixWide      = 2048
	radixDigit     = 8
	radixWideDigit = 11
)

// sortSlots sorts list (vertex ids below n) ascending and applies the
// same permutation to rels and wts (each nil or as long as list): the
// list's relationship ids and weights.
// Without them it sorts the list itself; with them it sorts (vertex,
// slot) keys in l.keys and moves the payloads through l.perm. Long lists
// go through radixSort, the others through pdqsort.
func (l *lister) sortSlots(r *Run, list []uint32, n int, rels []uint64, wts []float64) error {
	if len(list) < 2 || slices.IsSorted(list) {
		return nil
	}
	bits := bitsFor(n)
	var err error
	if rels == nil && wts == nil {
		if len(list) < radixMin {
			slices.Sort(list)
			return nil
		}
		if l.tmp32, err = growSlice(r, l.tmp32[:0], len(list), u32Bytes); err != nil {
			return err
		}
		radixSort(list, l.tmp32[:len(list)], 0, bits)
		return nil
	}
	if l.keys, err = growSlice(r, l.keys[:0], len(list), u64Bytes); err != nil {
		return err
	}
	if l.perm, err = growSlice(r, l.perm[:0], len(list), u64Bytes); err != nil {
		return err
	}
	keys := l.keys[:len(list)]
	for i, v := range list {
		keys[i] = uint64(v)<<32 | uint64(i)
	}
	if len(list) < radixMin {
		slices.Sort(keys)
	} else {
		radixSort(keys, l.perm[:len(list)], 32, bits)
	}
	for i, k := range keys {
		list[i] = uint32(k >> 32)
	}
	tmp := l.perm[:len(list)]
	if rels != nil {
		for i, k := range keys {
			tmp[i] = rels[uint32(k)]
		}
		copy(rels, tmp)
	}
	if wts != nil {
		for i, k := range keys {
			tmp[i] = math.Float64bits(wts[uint32(k)])
		}
		for i, b := range tmp {
			wts[i] = math.Float64frombits(b)
		}
	}
	return nil
}

// bitsFor is the bit length of the largest vertex id below n.
func bitsFor(n int) int {
	b := 0
	for x := n - 1; x > 0; x >>= 1 {
		b++
	}
	return b
}

// radixSort sorts a by the bits bits above shift of each element (a
// stable LSD radix sort through tmp, as long as a, in passes of
// radixDigit bits, or radixWideDigit for long lists: 2^11 counters, 8
// KiB, stay in the first-level cache; fewer passes pay for them only
// over a long list); bits below shift keep their input order among
// equal keys.
func radixSort[T uint32 | uint64](a, tmp []T, shift uint, bits int) {
	var count [1 << radixWideDigit]int
	digit := radixDigit
	if len(a) >= radixWide {
		digit = radixWideDigit
	}
	mask := T(1)<<digit - 1
	cnt := count[:1<<digit]
	src, dst := a, tmp
	for done := 0; done < bits; done += digit {
		s := shift + uint(done)
		clear(cnt)
		for _, x := range src {
			cnt[(x>>s)&mask]++
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		for _, x := range src {
			d := (x >> s) & mask
			dst[cnt[d]] = x
			cnt[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}
