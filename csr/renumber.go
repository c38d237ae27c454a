package csr

// WithSequentialRels returns a CSR with c's lists whose slot s holds
// relationship id base+s (offsets and blocks are shared, rels are new).
// A bulk load numbers relationships this way, in forward slot order, so
// that the forward CSR's ids need no storage (AppendEncode writes them as
// a base) and a node's relationships are a contiguous id range.
func (c *CSR) WithSequentialRels(base uint64) *CSR {
	n := &CSR{numNodes: c.numNodes, bb: c.bb, offsets: c.offsets, data: c.data, start32: c.start32, start64: c.start64}
	n.rels = make([]uint64, len(c.rels))
	for s := range n.rels {
		n.rels[s] = base + uint64(s)
	}
	return n
}

// sequentialBase reports whether slot s holds base+s for every s, and the
// base.
func (c *CSR) sequentialBase() (uint64, bool) {
	if len(c.rels) == 0 {
		return 0, false
	}
	base := c.rels[0]
	for s, r := range c.rels {
		if r != base+uint64(s) {
			return 0, false
		}
	}
	return base, true
}
