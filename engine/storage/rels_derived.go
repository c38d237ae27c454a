package storage

import (
	"sort"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
)

// derivedRels is the relationship table of a base whose forward CSRs all
// have sequential ids (every bulk-loaded base): it is derived from them
// instead of built. A bulk load numbers each type's relationships in
// forward slot order, so type t holds the ids [first, first+n) and id's
// slot in t's forward CSR is id-first: its type is a span lookup, its
// source the node whose offsets hold the slot (a binary search) and its
// target the slot's neighbour (a decode of the list up to the slot).
//
// Opening a bulk-loaded base of 10M relationships built this table (12
// bytes per relationship, 120 MB) in 1.3 s of CPU; deriving it costs
// nothing at open and ~0.2 µs per Rel of a base relationship.
//
// A Snapshot's rels[g], when not nil, overrides the derived rows of group
// g: a transaction that deletes a base relationship or appends to the
// base's last group materializes the group (chunk) and owns the copy from
// then on. The spans keep the CSRs they were derived from, which the
// adjacency may since have compacted away (the old base's memory stays
// while the table needs it; it is well under the table it replaces).
type derivedRels struct {
	bound uint64    // ids below it are covered (the base's rel bound)
	spans []relSpan // disjoint, by first id
}

// relSpan is one type's relationships: ids [first, first+n), slot id-first
// of out.
type relSpan struct {
	first, n uint64
	t        catalog.TypeID
	out      *csr.CSR
}

// span returns the span holding id, nil when none does.
func (b *derivedRels) span(id uint64) *relSpan {
	i := sort.Search(len(b.spans), func(i int) bool { return b.spans[i].first+b.spans[i].n > id })
	if i < len(b.spans) && b.spans[i].first <= id {
		return &b.spans[i]
	}
	return nil
}

// rel is Snapshot.Rel for an id below the bound.
func (b *derivedRels) rel(id uint64) (catalog.TypeID, uint64, uint64, bool) {
	sp := b.span(id)
	if sp == nil {
		return 0, 0, 0, false
	}
	src, dst := sp.out.SlotEdge(id - sp.first)
	return sp.t, src, dst, true
}

// rows is the number of table rows of group g the base covers.
func (b *derivedRels) rows(g int) int {
	start := uint64(g) << groupShift
	if start >= b.bound {
		return 0
	}
	return int(min(GroupSize, b.bound-start))
}

// chunk materializes group g as a new relChunk owned by owner; nil when
// the base covers no id of g.
func (b *derivedRels) chunk(g int, owner uint64) *relChunk {
	rows := b.rows(g)
	if rows == 0 {
		return nil
	}
	start := uint64(g) << groupShift
	c := &relChunk{owner: owner, typ: make([]uint32, rows), src: make([]uint32, rows), dst: make([]uint32, rows)}
	for r := range c.typ {
		c.typ[r] = noRel
	}
	end := start + uint64(rows)
	for i := range b.spans {
		sp := &b.spans[i]
		lo, hi := max(start, sp.first), min(end, sp.first+sp.n)
		if lo >= hi {
			continue
		}
		sp.out.EachSlot(lo-sp.first, hi-sp.first, func(s, src, dst uint64) {
			r := sp.first + s - start
			c.typ[r], c.src[r], c.dst[r] = uint32(sp.t), uint32(src), uint32(dst)
		})
	}
	return c
}

// liveIn counts the ids of group g the base holds, and reports whether
// that is every id of the group below the bound.
func (b *derivedRels) liveIn(g int) (int, bool) {
	rows := b.rows(g)
	start := uint64(g) << groupShift
	end := start + uint64(rows)
	n := 0
	for _, sp := range b.spans {
		if lo, hi := max(start, sp.first), min(end, sp.first+sp.n); lo < hi {
			n += int(hi - lo)
		}
	}
	return n, n == rows
}

// relGroup is group g of the relationship table: the snapshot's own
// chunk, or one materialized from the derived base (not owned by anyone:
// read it only), or nil.
func (s *Snapshot) relGroup(g int) *relChunk {
	if g < len(s.rels) && s.rels[g] != nil {
		return s.rels[g]
	}
	if s.derived != nil {
		return s.derived.chunk(g, 0)
	}
	return nil
}

// relGroups is the number of groups of the relationship table.
func (s *Snapshot) relGroups() int {
	n := len(s.rels)
	if s.derived != nil {
		n = max(n, int((s.derived.bound+GroupSize-1)>>groupShift))
	}
	return n
}
