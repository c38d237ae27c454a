package csr

import (
	"slices"
	"sync"
)

// loopSet is a CSR's self-loops: the nodes whose list holds their own id,
// sorted, one entry per self-loop slot (a node with two parallel
// self-loops appears twice). Counting kernels need them to correct degree
// sums (relationship uniqueness, undirected hops that see a loop once),
// and a loop costs a decode to find, so the set is computed once per
// immutable CSR: during Decode's verification pass, which decodes every
// list anyway, or on first use otherwise.
type loopSet struct {
	once  sync.Once
	nodes []uint64
}

// Loops returns the CSR's self-loops: node ids, sorted, one per loop slot.
// The slice is shared and must not be modified.
func (c *CSR) Loops() []uint64 {
	c.loops.once.Do(func() { c.loops.nodes = c.findLoops() })
	return c.loops.nodes
}

// setLoops records loops found by a pass that decoded every list.
func (c *CSR) setLoops(nodes []uint64) {
	c.loops.once.Do(func() { c.loops.nodes = nodes })
}

// findLoops decodes every list and collects the self-loops.
func (c *CSR) findLoops() []uint64 {
	var loops, ids []uint64
	for v := range uint64(c.numNodes) {
		if c.Degree(v) == 0 {
			continue
		}
		ids = c.AppendNeighbors(ids[:0], v)
		loops = appendLoopsOf(loops, ids, v)
	}
	return loops
}

// appendLoopsOf appends v once per occurrence of v in its sorted list ids.
func appendLoopsOf(dst, ids []uint64, v uint64) []uint64 {
	i, found := slices.BinarySearch(ids, v)
	for found && i < len(ids) && ids[i] == v {
		dst = append(dst, v)
		i++
	}
	return dst
}

// AppendLoops appends this version's live self-loops to dst: node ids,
// sorted, one per loop. Clean nodes take the base's loops; a dirty node's
// live list is decoded, so the cost is the base's (cached) loops plus the
// overlay's dirty lists.
func (a *Adjacency) AppendLoops(dst []uint64) []uint64 {
	from := len(dst)
	for _, v := range a.base.Loops() {
		if a.deltaOf(v) == nil {
			dst = append(dst, v)
		}
	}
	var nbrs, rels []uint64
	dirty := false
	for gi, g := range a.groups {
		if g == nil {
			continue
		}
		for i, d := range g.nodes {
			if d == nil {
				continue
			}
			v := uint64(gi)<<groupShift | uint64(i)
			nbrs, rels = a.AppendNeighbors(nbrs[:0], rels[:0], v)
			n := len(dst)
			dst = appendLoopsOf(dst, nbrs, v)
			dirty = dirty || len(dst) > n
		}
	}
	if dirty {
		slices.Sort(dst[from:])
	}
	return dst
}
