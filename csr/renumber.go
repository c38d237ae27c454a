package csr

import "slices"

// WithSequentialRels returns a CSR with c's lists whose slot s holds
// relationship id base+s (offsets and blocks are shared, rels are new).
// A bulk load numbers relationships this way, in forward slot order, so
// that the forward CSR's ids need no storage (AppendEncode writes them as
// a base) and a node's relationships are a contiguous id range.
func (c *CSR) WithSequentialRels(base uint64) *CSR {
	return &CSR{numNodes: c.numNodes, bb: c.bb, offsets: c.offsets, data: c.data, start32: c.start32, start64: c.start64,
		seq: true, seqBase: base}
}

// sequentialBase reports whether slot s holds base+s for every s, and the
// base.
func (c *CSR) sequentialBase() (uint64, bool) {
	if c.seq {
		return c.seqBase, c.NumEdges() > 0
	}
	if c.NumEdges() == 0 {
		return 0, false
	}
	base := c.rel(0)
	for s := range uint64(c.NumEdges()) {
		if c.rel(s) != base+s {
			return 0, false
		}
	}
	return base, true
}

// WithMappedRels returns a CSR with c's lists whose relationship ids are
// mapped through ids (slot id r becomes ids[r]); runs of parallel edges
// (equal neighbours) are re-sorted by their new ids, the order Build
// gives them. Offsets and blocks are shared. Every id of c must be below
// len(ids).
func (c *CSR) WithMappedRels(ids []uint64) *CSR {
	n := &CSR{numNodes: c.numNodes, bb: c.bb, offsets: c.offsets, data: c.data, start32: c.start32, start64: c.start64}
	n.rels = make([]uint64, c.NumEdges())
	for s := range n.rels {
		n.rels[s] = ids[c.rel(uint64(s))]
	}
	var nbrs []uint64
	for v := uint64(0); v < uint64(c.numNodes); v++ {
		lo, hi := c.offsets[v], c.offsets[v+1]
		if hi-lo < 2 {
			continue
		}
		nbrs = c.AppendNeighbors(nbrs[:0], v)
		for i := 0; i < len(nbrs); {
			j := i + 1
			for j < len(nbrs) && nbrs[j] == nbrs[i] {
				j++
			}
			if j-i > 1 {
				slices.Sort(n.rels[lo+uint64(i) : lo+uint64(j)])
			}
			i = j
		}
	}
	return n
}

// WithRels returns a CSR with c's lists and rels as its slot ids (len
// NumEdges; not copied). Check verifies what the caller must keep: ids
// sorted within runs of parallel edges, each id once.
func (c *CSR) WithRels(rels []uint64) *CSR {
	if len(rels) != c.NumEdges() {
		panic("BUG: csr: WithRels with the wrong number of ids")
	}
	return &CSR{numNodes: c.numNodes, bb: c.bb, offsets: c.offsets, data: c.data, start32: c.start32, start64: c.start64, rels: rels}
}

// SequentialBase reports whether slot s holds id base+s for every slot (a
// bulk-loaded forward CSR), and the base.
func (c *CSR) SequentialBase() (uint64, bool) { return c.sequentialBase() }
