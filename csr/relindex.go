package csr

import (
	"cmp"
	"slices"
	"sort"
)

// relIndex finds the slot of a base relationship id, so that Adjacency can
// delete by id alone. Relationship ids handed out by a counter are nearly
// dense, so the common case is a direct table built in O(m); otherwise the
// slots are sorted by id and searched.
type relIndex struct {
	lo     uint64
	direct []uint64 // direct[rel-lo] = slot+1, 0 = absent; nil when sparse
	sorted []uint64 // slots ordered by rel id; used when direct is nil
}

// slotOf returns the slot holding rel.
func (c *CSR) slotOf(rel uint64) (int, bool) {
	if c.seq {
		s := rel - c.seqBase
		return int(s), rel >= c.seqBase && s < uint64(c.NumEdges())
	}
	c.relIdxOnce.Do(c.buildRelIndex)
	x := &c.relIdx
	if x.direct != nil {
		if rel < x.lo || rel-x.lo >= uint64(len(x.direct)) {
			return 0, false
		}
		s := x.direct[rel-x.lo]
		return int(s) - 1, s != 0
	}
	i, ok := slices.BinarySearchFunc(x.sorted, rel, func(slot, rel uint64) int {
		return cmp.Compare(c.rel(slot), rel)
	})
	if !ok {
		return 0, false
	}
	return int(x.sorted[i]), true
}

// nodeOfSlot is the node whose list holds slot.
func (c *CSR) nodeOfSlot(slot int) uint64 {
	// The first node whose end offset passes slot; empty lists share
	// offsets, and the search skips them because it takes the first.
	v := sort.Search(c.numNodes, func(v int) bool { return c.offsets[v+1] > uint64(slot) })
	return uint64(v)
}

func (c *CSR) buildRelIndex() {
	m := c.NumEdges()
	if m == 0 {
		return
	}
	lo, hi := c.rel(0), c.rel(0)
	for s := range uint64(m) {
		r := c.rel(s)
		lo, hi = min(lo, r), max(hi, r)
	}
	// A direct table costs 8 bytes per id in the span; accept up to twice
	// the sorted index's size.
	if hi-lo < 2*uint64(m) {
		direct := make([]uint64, hi-lo+1)
		for s := range uint64(m) {
			direct[c.rel(s)-lo] = s + 1
		}
		c.relIdx = relIndex{lo: lo, direct: direct}
		return
	}
	sorted := make([]uint64, m)
	for i := range sorted {
		sorted[i] = uint64(i)
	}
	slices.SortFunc(sorted, func(a, b uint64) int { return cmp.Compare(c.rel(a), c.rel(b)) })
	c.relIdx = relIndex{sorted: sorted}
}
