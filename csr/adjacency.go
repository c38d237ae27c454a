package csr

import "slices"

// Adjacency is a CSR base plus a versioned overlay of the edges inserted
// and deleted since the base was built (overlay.go). It is immutable:
// Apply returns a new version that shares all untouched structure with the
// old one, so a reader holding an old *Adjacency needs no lock and never
// sees a later change.
type Adjacency struct {
	base     *CSR
	groups   []*group
	rels     relMap
	idBound  uint64 // every node id seen is below it; >= base.NumNodes
	numEdges int    // live edges
	ts       uint64 // commit timestamp of the newest Apply
	overlay  int    // overlay entries: inserted edges plus deleted base edges
}

// NewAdjacency returns a version with base and an empty overlay. A nil
// base stands for the empty graph.
func NewAdjacency(base *CSR) *Adjacency {
	if base == nil {
		base = emptyCSR()
	}
	return &Adjacency{base: base, idBound: uint64(base.numNodes), numEdges: base.NumEdges()}
}

// Base is the CSR under the overlay, never nil. Scans read a clean node's
// list from it directly.
func (a *Adjacency) Base() *CSR { return a.base }

// NumNodes bounds the node ids this version has seen: the base's NumNodes
// or one past the largest id an Apply inserted, whichever is larger.
func (a *Adjacency) NumNodes() int { return int(a.idBound) }

// NumEdges is the number of live edges.
func (a *Adjacency) NumEdges() int { return a.numEdges }

// OverlaySize is the number of overlay entries (edges inserted since the
// base was built plus base edges deleted): what Compact folds away, and
// what scans pay extra for.
func (a *Adjacency) OverlaySize() int { return a.overlay }

// TS is the commit timestamp of the newest Apply, 0 if none.
func (a *Adjacency) TS() uint64 { return a.ts }

// Dirty reports whether node has overlay entries; a clean node's list is
// exactly the base's.
func (a *Adjacency) Dirty(node uint64) bool { return a.deltaOf(node) != nil }

// DirtyGroup reports whether any node in node's group of 1<<groupShift
// nodes is dirty, so a scan can take a whole clean group from the base.
func (a *Adjacency) DirtyGroup(node uint64) bool {
	g := node >> groupShift
	return g < uint64(len(a.groups)) && a.groups[g] != nil
}

// Degree is node's live degree; a clean node's comes from the base offsets.
func (a *Adjacency) Degree(node uint64) int {
	if d := a.deltaOf(node); d != nil {
		return a.base.Degree(node) - len(d.del) + len(d.ins)
	}
	return a.base.Degree(node)
}

// AppendNeighbors appends node's live neighbours to nbrs and their
// relationship ids to rels, sorted by (neighbour, rel).
func (a *Adjacency) AppendNeighbors(nbrs, rels []uint64, node uint64) ([]uint64, []uint64) {
	d := a.deltaOf(node)
	nbrs = a.base.AppendNeighbors(nbrs, node)
	rels = a.base.AppendRels(rels, node)
	if d == nil {
		return nbrs, rels
	}
	return d.patch(nbrs, rels, len(nbrs)-a.base.Degree(node))
}

// patch edits the base list at nbrs[from:], rels[from:] into the live list:
// it drops deleted slots, then merges the inserted entries from the back so
// that no scratch space is needed.
func (d *delta) patch(nbrs, rels []uint64, from int) ([]uint64, []uint64) {
	if len(d.del) > 0 {
		w := from
		for i := from; i < len(rels); i++ {
			if !d.baseDeleted(rels[i]) {
				nbrs[w], rels[w] = nbrs[i], rels[i]
				w++
			}
		}
		nbrs, rels = nbrs[:w], rels[:w]
	}
	if len(d.ins) == 0 {
		return nbrs, rels
	}
	i := len(nbrs) - 1 // last base slot
	nbrs = slices.Grow(nbrs, len(d.ins))[:len(nbrs)+len(d.ins)]
	rels = slices.Grow(rels, len(d.ins))[:len(rels)+len(d.ins)]
	j := len(d.ins) - 1
	for k := len(nbrs) - 1; j >= 0; k-- {
		e := d.ins[j]
		if i >= from && cmpSlot(nbrs[i], rels[i], e.dst, e.rel) > 0 {
			nbrs[k], rels[k] = nbrs[i], rels[i]
			i--
		} else {
			nbrs[k], rels[k] = e.dst, e.rel
			j--
		}
	}
	return nbrs, rels
}
