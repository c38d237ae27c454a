package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
)

// An expansion into a bound far end (MATCH (a)-->(b)-->(c)-->(a): the
// last hop only checks that c→a exists) looks for one node in a
// neighbour list. Reading the list of the start node c costs its degree,
// which on a power-law graph is often a hub's; the same relationships are
// in the far end's list the other way (a's incoming), so the shorter of
// the two is read. Degrees are O(1). W15 of the wider suite (triangles
// from a 2% sample at M) closed each of its paths on the middle node's
// list, tens of thousands of entries for a hub.

// openReverse sets e.rev for an Into expansion in one direction.
func (e *expand) openReverse(types []catalog.TypeID) {
	if e.p.Into < 0 || e.p.Dir == plan.Both {
		return
	}
	dir := storage.Incoming
	if e.p.Dir == plan.In {
		dir = storage.Outgoing
	}
	for _, t := range types {
		if a := e.c.Tx.Adjacency(t, dir); a != nil {
			e.rev = append(e.rev, adjList{adj: a})
		}
	}
	if len(e.rev) != len(e.adjs) {
		e.rev = nil // a type with one direction's lists only: read those
	}
}

// loadFromInto fills e.nbrs and e.rels with node's relationships to
// e.into, read from e.into's reverse lists when they are shorter than
// node's, and returns the entries read; -1 (nothing loaded) when node's
// own lists are the shorter.
func (e *expand) loadFromInto(node uint64) int {
	from, to := 0, 0
	for i := range e.adjs {
		from += e.adjs[i].adj.Degree(node)
		to += e.rev[i].adj.Degree(e.into)
	}
	if to >= from {
		return -1
	}
	for _, a := range e.rev {
		start := len(e.nbrs)
		e.nbrs, e.rels = a.adj.AppendNeighbors(e.nbrs, e.rels, e.into)
		// Keep the relationships back to node, as node's list would name
		// them: with e.into at the far end.
		w := start
		for i := start; i < len(e.nbrs); i++ {
			if e.nbrs[i] == node {
				e.nbrs[w], e.rels[w] = e.into, e.rels[i]
				w++
			}
		}
		e.nbrs, e.rels = e.nbrs[:w], e.rels[:w]
	}
	return to
}
