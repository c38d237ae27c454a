package csr

import "fmt"

// Check verifies the CSR's invariants and returns the first violation,
// wrapping one of the package's sentinel errors: offsets start at 0, are
// monotone and end at NumEdges; every node's blocks decode within the data,
// their headers are well-formed and they end exactly where the next node's
// begin; lists are sorted by (Dst, Rel); ids are below NumNodes; and no
// relationship id occupies two slots. Check decodes with bounds checks, so
// it returns an error and never panics on a corrupt CSR. O(n + m) time and
// O(m) memory for the duplicate check.
func (c *CSR) Check() error {
	if err := c.checkLists(); err != nil {
		return err
	}
	if c.seq { // computed ids are distinct
		return nil
	}
	seen := make(map[uint64]struct{}, c.NumEdges())
	for s := range uint64(c.NumEdges()) {
		r := c.rel(s)
		if _, dup := seen[r]; dup {
			return fmt.Errorf("%w: %d at slot %d", ErrDuplicateRel, r, s)
		}
		seen[r] = struct{}{}
	}
	return nil
}

// checkLists is Check without the duplicate relationship id check (whose
// map costs O(m) memory): everything a reader needs to never fault.
func (c *CSR) checkLists() error {
	if err := c.checkOffsets(); err != nil {
		return err
	}
	var ids, rels, loops []uint64
	for v := range uint64(c.numNodes) {
		var err error
		ids, err = c.checkedDecode(ids[:0], v)
		if err != nil {
			return err
		}
		loops = appendLoopsOf(loops, ids, v)
		rels = c.AppendRels(rels[:0], v)
		for i := 1; i < len(ids); i++ {
			if cmpSlot(ids[i-1], rels[i-1], ids[i], rels[i]) >= 0 {
				return fmt.Errorf("%w: node %d slots %d,%d: (%d,%d) then (%d,%d)",
					ErrUnsorted, v, i-1, i, ids[i-1], rels[i-1], ids[i], rels[i])
			}
		}
		for i, id := range ids {
			if id >= uint64(c.numNodes) {
				return fmt.Errorf("%w: node %d slot %d: neighbour %d >= %d", ErrNodeRange, v, i, id, c.numNodes)
			}
		}
	}
	c.setLoops(loops) // the lists are verified; a pass that has them decoded finds the loops for free
	return nil
}

func (c *CSR) checkOffsets() error {
	n := c.numNodes
	if c.bb != baseBytes(n) {
		return fmt.Errorf("%w: gap width %d bytes for %d nodes", ErrBlock, c.bb, n)
	}
	if n < 0 || n > maxNodes || len(c.offsets) != n+1 {
		return fmt.Errorf("%w: %d offsets for %d nodes", ErrOffsets, len(c.offsets), n)
	}
	if c.offsets[0] != 0 {
		return fmt.Errorf("%w: offsets[0] = %d", ErrOffsets, c.offsets[0])
	}
	for v := range n {
		if c.offsets[v+1] < c.offsets[v] {
			return fmt.Errorf("%w: offsets[%d] = %d > offsets[%d] = %d", ErrOffsets, v, c.offsets[v], v+1, c.offsets[v+1])
		}
	}
	if !c.seq && c.offsets[n] != uint64(c.NumEdges()) {
		return fmt.Errorf("%w: offsets[%d] = %d, want NumEdges %d", ErrOffsets, n, c.offsets[n], c.NumEdges())
	}
	if (c.start32 == nil) == (c.start64 == nil) {
		return fmt.Errorf("%w: want exactly one block start table", ErrOffsets)
	}
	if max(len(c.start32), len(c.start64)) != n+1 {
		return fmt.Errorf("%w: %d block starts for %d nodes", ErrOffsets, max(len(c.start32), len(c.start64)), n)
	}
	if c.start(0) != 0 || c.start(uint64(n))+padBytes != len(c.data) {
		return fmt.Errorf("%w: block starts [%d, %d] do not span %d data bytes", ErrOffsets, c.start(0), c.start(uint64(n)), len(c.data))
	}
	for i, b := range c.data[len(c.data)-padBytes:] {
		if b != 0 {
			return fmt.Errorf("%w: padding byte %d is %#x", ErrBlock, i, b)
		}
	}
	for v := range uint64(n) {
		if c.start(v+1) < c.start(v) {
			return fmt.Errorf("%w: block start of node %d = %d > node %d = %d", ErrOffsets, v, c.start(v), v+1, c.start(v+1))
		}
	}
	return nil
}

// checkedDecode is decodeList with every header and payload bounds-checked
// against node's own byte range, which it must consume exactly.
func (c *CSR) checkedDecode(dst []uint64, v uint64) ([]uint64, error) {
	return checkedList(dst, c.data, c.start(v), c.start(v+1), c.Degree(v), c.bb, v)
}
