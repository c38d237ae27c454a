package exec

import "github.com/quiverdb/quiver/engine/exec/pathtree"

// hopTests prunes the enumeration of every shortest path between two
// different nodes by the element tests of the WHERE above
// (plan.ShortestPath's RelTest, NodeTest, InnerTest). The search itself
// runs without them: the WHERE filters the shortest paths found and does
// not steer the search, so a graph without the failing elements, whose
// shortest paths may be longer, is not what is searched. Once the search
// has met, the walks back from the meeting nodes to either end skip the
// hops whose relationship or node fails, so a path through a failing
// element is never built: only the shortest paths that pass reach the
// Filter, which still tests them. Each element is tested once per row.
type hopTests struct {
	pr       *pruner
	src, dst uint64
	rels     map[uint64]bool // the relationships tested so far, and whether they passed
	nodes    map[uint64]bool // the same of the nodes between the ends
	err      error           // the first error of a test, reported by produce
}

func newHopTests(pr *pruner) *hopTests {
	return &hopTests{pr: pr, rels: map[uint64]bool{}, nodes: map[uint64]bool{}}
}

// ends starts the walks of a row whose search met at meet: it keeps the
// meeting nodes that may lie on a passing path, none when an end fails.
func (h *hopTests) ends(src, dst uint64, meet []uint64) []uint64 {
	h.src, h.dst, h.err = src, dst, nil
	if len(h.rels) > 4096 {
		h.rels, h.nodes = map[uint64]bool{}, map[uint64]bool{}
	} else {
		clear(h.rels)
		clear(h.nodes)
	}
	for _, n := range [2]uint64{src, dst} {
		if ok, err := h.pr.start(n); !ok || err != nil {
			h.err = err
			return nil
		}
	}
	kept := meet[:0]
	for _, v := range meet {
		if h.node(v) {
			kept = append(kept, v)
		}
	}
	return kept
}

// keep reports whether a walk may take hop e: its relationship and the
// node it leads to pass.
func (h *hopTests) keep(e pathtree.Hop) bool {
	if h.err != nil {
		return false
	}
	ok, seen := h.rels[e.Rel]
	if !seen {
		var err error
		if ok, err = h.pr.relPasses(e.Rel); err != nil {
			h.err = err
			return false
		}
		h.rels[e.Rel] = ok
	}
	return ok && h.node(e.From)
}

// node reports whether n may be on a path: an end passes (ends tested
// it), a node between them must pass the node tests.
func (h *hopTests) node(n uint64) bool {
	if n == h.src || n == h.dst || h.err != nil {
		return h.err == nil
	}
	ok, seen := h.nodes[n]
	if seen {
		return ok
	}
	ok, err := h.pr.start(n)
	if err == nil && ok {
		ok, err = h.pr.through(n)
	}
	if err != nil {
		h.err = err
		return false
	}
	h.nodes[n] = ok
	return ok
}
