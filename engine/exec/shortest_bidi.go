package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// searchSide is one half of a bidirectional search: the levels and parent edges
// of the nodes reached from its origin, and its current frontier.
type searchSide struct {
	adjs     []adjList
	lvl      map[uint64]int32
	pars     map[uint64][]hop
	frontier []uint64
	next     []uint64
	depth    int32
}

func newSearchSide(adjs []adjList) *searchSide {
	return &searchSide{adjs: adjs, lvl: map[uint64]int32{}, pars: map[uint64][]hop{}}
}

// reset starts the side from origin. Maps grown large by an earlier search
// are dropped rather than cleared, so a small search does not pay for
// clearing a big one's buckets.
func (sd *searchSide) reset(origin uint64) {
	if len(sd.lvl) > 4096 {
		sd.lvl, sd.pars = map[uint64]int32{}, map[uint64][]hop{}
	} else {
		clear(sd.lvl)
		clear(sd.pars)
	}
	sd.lvl[origin] = 0
	sd.frontier = append(sd.frontier[:0], origin)
	sd.depth = 0
}

// reverse is the direction of a search run from the far end.
func reverseDir(d plan.Direction) plan.Direction {
	switch d {
	case plan.Out:
		return plan.In
	case plan.In:
		return plan.Out
	}
	return plan.Both
}

// bidi finds the shortest paths between two different nodes by growing a
// search from each end, always the side with the smaller frontier, one
// whole level at a time. When a level reaches nodes the other side has
// seen, those nodes lie on every shortest path at that position: the
// paths are the combinations of the halves through them. Both halves are
// shortest, so a combined path is simple and repeats no relationship.
func (s *shortest) bidi(src, dst uint64) error {
	f, b := s.fwd, s.bwd
	f.reset(src)
	b.reset(dst)
	tx := s.c.Tx
	for len(f.frontier) > 0 && len(b.frontier) > 0 &&
		(s.p.Max == plan.Unbounded || int(f.depth+b.depth) < s.p.Max) {
		if err := s.c.CheckCancel(); err != nil {
			return err
		}
		x, y := f, b
		if len(b.frontier) < len(f.frontier) {
			x, y = b, f
		}
		level := x.depth + 1
		x.next = x.next[:0]
		var meet []uint64
		for _, u := range x.frontier {
			s.nbrs, s.rels = appendAdj(x.adjs, s.nbrs[:0], s.rels[:0], u)
			s.c.Counters.RowsScanned += int64(len(s.nbrs))
			for i, v := range s.nbrs {
				r := s.rels[i]
				if s.props != nil && !s.props.match(tx, r) {
					continue
				}
				d, seen := x.lvl[v]
				switch {
				case !seen:
					x.lvl[v] = level
					x.pars[v] = append(x.pars[v], hop{u, r})
					x.next = append(x.next, v)
					if _, met := y.lvl[v]; met {
						meet = append(meet, v)
					}
				case d == level && s.p.All:
					x.pars[v] = append(x.pars[v], hop{u, r})
				}
			}
			if len(meet) > 0 && !s.p.All {
				break
			}
		}
		x.depth = level
		x.frontier, x.next = x.next, x.frontier
		if len(meet) > 0 {
			// The paths are enumerated lazily (nextJoined): there may be
			// far more shortest paths than a query wants to see.
			s.meet, s.meetIdx, s.haveHead, s.joining = meet, 0, false, true
			s.head.reset(s.fwd, meet[0])
			return nil
		}
	}
	return nil
}

// nextJoined returns the next path through the meeting nodes: every half
// from the source to a meeting node followed by every half from it to the
// target (one path unless All).
func (s *shortest) nextJoined() (vector.Path, bool) {
	for {
		if s.haveHead {
			if s.tail.next() {
				h, t := s.head, s.tail
				n := len(h.rels) + len(t.rels)
				p := vector.Path{Nodes: make([]uint64, 0, n+1), Rels: make([]uint64, 0, n)}
				for i := len(h.nodes) - 1; i >= 0; i-- {
					p.Nodes = append(p.Nodes, h.nodes[i])
				}
				for i := len(h.rels) - 1; i >= 0; i-- {
					p.Rels = append(p.Rels, h.rels[i])
				}
				p.Nodes = append(p.Nodes, t.nodes[1:]...)
				p.Rels = append(p.Rels, t.rels...)
				return p, true
			}
			s.haveHead = false
			if !s.p.All {
				return vector.Path{}, false
			}
		}
		if s.head.next() {
			s.haveHead = true
			s.tail.reset(s.bwd, s.meet[s.meetIdx])
			continue
		}
		s.meetIdx++
		if s.meetIdx >= len(s.meet) || !s.p.All {
			return vector.Path{}, false
		}
		s.head.reset(s.fwd, s.meet[s.meetIdx])
	}
}

// parentWalk enumerates, depth first and resumably, the paths from a node
// back to a search side's origin along the parent hops: nodes[0] is the
// start node, rels[i] joins nodes[i] and nodes[i+1].
type parentWalk struct {
	sd    *searchSide
	nodes []uint64
	rels  []uint64
	idx   []int // next parent of nodes[i] to try
	fresh bool
}

func (w *parentWalk) reset(sd *searchSide, v uint64) {
	w.sd = sd
	w.nodes = append(w.nodes[:0], v)
	w.rels = w.rels[:0]
	w.idx = append(w.idx[:0], 0)
	w.fresh = true
}

// next moves to the next path; false when there is none left.
func (w *parentWalk) next() bool {
	if !w.fresh && len(w.nodes) > 0 {
		w.pop() // step back from the path returned last time
	}
	w.fresh = false
	for len(w.nodes) > 0 {
		top := len(w.nodes) - 1
		t := w.nodes[top]
		if w.sd.lvl[t] == 0 {
			return true
		}
		ps := w.sd.pars[t]
		if w.idx[top] < len(ps) {
			e := ps[w.idx[top]]
			w.idx[top]++
			w.nodes = append(w.nodes, e.from)
			w.rels = append(w.rels, e.rel)
			w.idx = append(w.idx, 0)
			continue
		}
		w.pop()
	}
	return false
}

func (w *parentWalk) pop() {
	top := len(w.nodes) - 1
	w.nodes, w.idx = w.nodes[:top], w.idx[:top]
	if len(w.rels) > 0 {
		w.rels = w.rels[:len(w.rels)-1]
	}
}
