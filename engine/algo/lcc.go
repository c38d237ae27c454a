package algo

import "slices"

// LCC returns each vertex's local clustering coefficient, Graphalytics'
// definition: N(v) = in ∪ out neighbours of v, each once, v excluded;
// 0 when |N(v)| <= 1; else the number of edges u→w with u ≠ w both in
// N(v) (parallel edges once) over |N(v)|·(|N(v)|−1). It needs sorted Out
// and In lists (Project sorts them unless relationship ids are kept).
// The neighbourhoods are built first as a CSR of sorted, distinct ids;
// each u's out-list is intersected with N(v) by a merge, or by binary
// search into the longer list when one is much shorter.
func LCC(r *Run, g *Graph) ([]float64, error) {
	if !g.Sorted {
		panic("BUG: algo: LCC needs sorted lists")
	}
	if err := r.round("lcc", 0); err != nil {
		return nil, err
	}
	nb, err := neighbourhoods(r, g)
	if err != nil {
		return nil, err
	}
	coef, err := makeSlice[float64](r, g.N, u64Bytes)
	if err != nil {
		return nil, err
	}
	cuts, err := ranges(r, nb.Off, g.N)
	if err != nil {
		return nil, err
	}
	if err := r.round("lcc", 1); err != nil {
		return nil, err
	}
	err = r.overRanges(cuts, func(_, _, lo, hi int) error {
		for v := lo; v < hi; v++ {
			set := nb.List(uint32(v))
			k := len(set)
			if k <= 1 {
				continue
			}
			var edges int64
			for i, u := range set {
				if i&4095 == 4095 {
					// A hub's neighbourhood alone may take long.
					if err := r.stop(); err != nil {
						return err
					}
				}
				edges += countIn(g.Out.List(u), set, u)
			}
			coef[v] = float64(edges) / (float64(k) * float64(k-1))
		}
		return nil
	})
	return coef, err
}

// neighbourhoods builds N(v) for every vertex: the merge of its sorted
// Out and In lists without duplicates and without v.
func neighbourhoods(r *Run, g *Graph) (CSR, error) {
	off, err := makeSlice[uint32](r, g.N+1, u32Bytes)
	if err != nil {
		return CSR{}, err
	}
	err = r.parallelFor(g.N, morselNodes, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			off[v+1] = uint32(mergeSets(nil, g.Out.List(uint32(v)), g.In.List(uint32(v)), uint32(v)))
		}
		return nil
	})
	if err != nil {
		return CSR{}, err
	}
	for v := 0; v < g.N; v++ {
		off[v+1] += off[v]
	}
	nbr, err := makeSlice[uint32](r, int(off[g.N]), u32Bytes)
	if err != nil {
		return CSR{}, err
	}
	err = r.parallelFor(g.N, morselNodes, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			mergeSets(nbr[off[v]:off[v+1]], g.Out.List(uint32(v)), g.In.List(uint32(v)), uint32(v))
		}
		return nil
	})
	return CSR{Off: off, Nbr: nbr}, err
}

// mergeSets merges sorted a and b into dst without duplicates and without
// skip, and returns the count; with dst nil it only counts.
func mergeSets(dst, a, b []uint32, skip uint32) int {
	n := 0
	last := noVertex
	emit := func(x uint32) {
		if x == skip || x == last {
			return
		}
		last = x
		if dst != nil {
			dst[n] = x
		}
		n++
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			emit(a[i])
			i++
		} else {
			emit(b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		emit(a[i])
	}
	for ; j < len(b); j++ {
		emit(b[j])
	}
	return n
}

// countIn counts the distinct values of the sorted list out (duplicates
// allowed) that are in the sorted set, other than self.
func countIn(out, set []uint32, self uint32) int64 {
	var n int64
	if len(out)*16 < len(set) {
		last := noVertex
		for _, w := range out {
			if w == last || w == self {
				continue
			}
			last = w
			if _, found := slices.BinarySearch(set, w); found {
				n++
			}
		}
		return n
	}
	i, j := 0, 0
	for i < len(out) && j < len(set) {
		switch a, b := out[i], set[j]; {
		case a < b:
			i++
		case a > b:
			j++
		default:
			if a != self {
				n++
			}
			for i < len(out) && out[i] == a {
				i++
			}
			j++
		}
	}
	return n
}
