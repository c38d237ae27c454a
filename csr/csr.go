package csr

import (
	"math"
	"slices"
	"sync"
)

// Edge is one relationship as the CSR sees it: Src's list holds Dst, and
// the slot maps to the stable relationship id Rel.
type Edge struct{ Src, Dst, Rel uint64 }

// CSR is an immutable compressed adjacency built by counting sort. See the
// package comment for its layout and block.go for the block format.
type CSR struct {
	numNodes int
	bb       uint     // block gap width in bytes, baseBytes(numNodes)
	offsets  []uint64 // len numNodes+1, offsets[0] == 0
	rels     []uint64 // len offsets[numNodes]; nil when seq or rels32
	// rels32 replaces rels in a loaded CSR whose ids all fit 32 bits:
	// half the memory (400 MB for the 100M backward slots of the L
	// graph), and half the pages to fault in when a base is opened.
	rels32 []uint32
	// seq marks a CSR whose slot s holds relationship id seqBase+s (a
	// bulk load's forward CSR): the ids are computed, not stored, which
	// saves 8 bytes per relationship.
	seq     bool
	seqBase uint64
	data    []byte // encoded blocks, then padBytes zero bytes
	// start holds each node's first block position in data (len
	// numNodes+1). start32 keeps it at 4 bytes per node; start64 replaces
	// it only when data outgrows 4 GiB. Exactly one is non-nil.
	start32 []uint32
	start64 []uint64

	// relIdx maps relationship ids to slots for Adjacency deletes. It is
	// built on first use because a read-only base never needs it.
	relIdxOnce sync.Once
	relIdx     relIndex

	loops loopSet // self-loops, see loops.go
}

// NumNodes is the number of node ids the CSR covers (0..NumNodes-1).
func (c *CSR) NumNodes() int { return c.numNodes }

// NumEdges is the number of slots.
func (c *CSR) NumEdges() int {
	if c.seq {
		return int(c.offsets[c.numNodes])
	}
	if c.rels32 != nil {
		return len(c.rels32)
	}
	return len(c.rels)
}

// rel is slot s's relationship id.
func (c *CSR) rel(s uint64) uint64 {
	if c.seq {
		return c.seqBase + s
	}
	if c.rels32 != nil {
		return uint64(c.rels32[s])
	}
	return c.rels[s]
}

// Degree is node's list length from the offsets; 0 for node >= NumNodes.
func (c *CSR) Degree(node uint64) int {
	if node >= uint64(c.numNodes) {
		return 0
	}
	return int(c.offsets[node+1] - c.offsets[node])
}

// Offsets is the read-only offsets array (len NumNodes+1), for kernels that
// sum degrees over node ranges without a call per node. Callers must not
// modify it.
func (c *CSR) Offsets() []uint64 { return c.offsets[: c.numNodes+1 : c.numNodes+1] }

// AppendNeighbors decodes node's neighbour ids, sorted, and appends them to
// dst. A node >= NumNodes has none. Like append, it may write into dst's
// capacity beyond the returned length (up to 4 values).
func (c *CSR) AppendNeighbors(dst []uint64, node uint64) []uint64 {
	d := c.Degree(node)
	if d == 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, d+decodeSlack)
	decodeList(dst[n:n+d+decodeSlack], d, c.data, c.start(node), c.bb)
	return dst[:n+d]
}

// AppendRels appends node's relationship ids in slot order, that is, in
// the order AppendNeighbors returns the neighbours.
func (c *CSR) AppendRels(dst []uint64, node uint64) []uint64 {
	if node >= uint64(c.numNodes) {
		return dst
	}
	lo, hi := c.offsets[node], c.offsets[node+1]
	switch {
	case c.seq:
		for s := lo; s < hi; s++ {
			dst = append(dst, c.seqBase+s)
		}
		return dst
	case c.rels32 != nil:
		for _, r := range c.rels32[lo:hi] {
			dst = append(dst, uint64(r))
		}
		return dst
	}
	return append(dst, c.rels[lo:hi]...)
}

// Rels is the read-only view of node's relationship ids in slot order (a
// new slice for a CSR with sequential or 32-bit ids: loops should use
// AppendRels or SlotRel).
func (c *CSR) Rels(node uint64) []uint64 {
	if node >= uint64(c.numNodes) {
		return nil
	}
	lo, hi := c.offsets[node], c.offsets[node+1]
	if c.rels == nil {
		return c.AppendRels(nil, node)
	}
	return c.rels[lo:hi:hi]
}

// start is node's first block position in data.
func (c *CSR) start(node uint64) int {
	if c.start32 != nil {
		return int(c.start32[node])
	}
	return int(c.start64[node])
}

// setStarts stores the block positions in the narrowest form that fits.
func (c *CSR) setStarts(starts []uint64) {
	if len(c.data) <= math.MaxUint32 {
		c.start32 = make([]uint32, len(starts))
		for i, s := range starts {
			c.start32[i] = uint32(s)
		}
		return
	}
	c.start64 = starts
}

// emptyCSR is the base of an empty graph.
func emptyCSR() *CSR { return Build(0, nil) }
