package exec

import (
	"github.com/quiverdb/quiver/engine/exec/pathtree"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// searchSide is one half of a bidirectional search: the lists it reads
// and what it has reached (pathtree.Side).
type searchSide struct {
	adjs []adjList
	pathtree.Side
}

func newSearchSide(adjs []adjList) *searchSide {
	return &searchSide{adjs: adjs, Side: pathtree.NewSide()}
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
	f.Reset(src)
	b.Reset(dst)
	tx := s.c.Tx
	for len(f.Frontier) > 0 && len(b.Frontier) > 0 &&
		(s.p.Max == plan.Unbounded || int(f.Depth+b.Depth) < s.p.Max) {
		if err := s.c.CheckCancel(); err != nil {
			return err
		}
		x, y := f, b
		if len(b.Frontier) < len(f.Frontier) {
			x, y = b, f
		}
		level := x.Depth + 1
		x.Next = x.Next[:0]
		var meet []uint64
		for _, u := range x.Frontier {
			if err := s.load(x.adjs, u); err != nil {
				return err
			}
			for i, v := range s.nbrs {
				r := s.rels[i]
				if s.props != nil && !s.props.match(tx, r) {
					continue
				}
				d, seen := x.Lvl[v]
				switch {
				case !seen:
					x.Lvl[v] = level
					x.Pars[v] = append(x.Pars[v], pathtree.Hop{From: u, Rel: r})
					x.Next = append(x.Next, v)
					if _, met := y.Lvl[v]; met {
						meet = append(meet, v)
					}
				case d == level && s.p.All:
					x.Pars[v] = append(x.Pars[v], pathtree.Hop{From: u, Rel: r})
				}
			}
			if len(meet) > 0 && !s.p.All {
				break
			}
		}
		x.Depth = level
		x.Frontier, x.Next = x.Next, x.Frontier
		if len(meet) > 0 {
			// The paths are enumerated lazily (nextJoined): there may be
			// far more shortest paths than a query wants to see.
			if s.prune != nil {
				if meet = s.prune.ends(src, dst, meet); len(meet) == 0 {
					return s.prune.err
				}
			}
			s.meet, s.meetIdx, s.haveHead, s.joining = meet, 0, false, true
			s.head.Reset(&s.fwd.Side, meet[0])
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
			if s.tail.Next() {
				h, t := s.head, s.tail
				n := len(h.Rels) + len(t.Rels)
				p := vector.Path{Nodes: make([]uint64, 0, n+1), Rels: make([]uint64, 0, n)}
				for i := len(h.Nodes) - 1; i >= 0; i-- {
					p.Nodes = append(p.Nodes, h.Nodes[i])
				}
				for i := len(h.Rels) - 1; i >= 0; i-- {
					p.Rels = append(p.Rels, h.Rels[i])
				}
				p.Nodes = append(p.Nodes, t.Nodes[1:]...)
				p.Rels = append(p.Rels, t.Rels...)
				return p, true
			}
			s.haveHead = false
			if !s.p.All {
				return vector.Path{}, false
			}
		}
		if s.head.Next() {
			s.haveHead = true
			s.tail.Reset(&s.bwd.Side, s.meet[s.meetIdx])
			continue
		}
		s.meetIdx++
		if s.meetIdx >= len(s.meet) || !s.p.All {
			return vector.Path{}, false
		}
		s.head.Reset(&s.fwd.Side, s.meet[s.meetIdx])
	}
}
