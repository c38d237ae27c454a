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
		if err := s.c.checkCancel(); err != nil {
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
			s.c.Stats.RowsScanned += int64(len(s.nbrs))
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
			for _, v := range meet {
				s.join(v)
				if !s.p.All {
					break
				}
			}
			return nil
		}
	}
	return nil
}

// join appends the paths through meeting node v: every half from the
// source to v followed by every half from v to the target.
func (s *shortest) join(v uint64) {
	heads := searchHalves(s.fwd, v, s.p.All) // each from v back to the source
	tails := searchHalves(s.bwd, v, s.p.All) // each from v on to the target
	for _, h := range heads {
		for _, t := range tails {
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
			s.pending = append(s.pending, p)
			if !s.p.All {
				return
			}
		}
	}
}

// searchHalves lists the paths from v back to a side's origin along parent
// edges (one path unless all).
func searchHalves(sd *searchSide, v uint64, all bool) []vector.Path {
	var out []vector.Path
	var nodes, rels []uint64
	var walk func(v uint64)
	walk = func(v uint64) {
		nodes = append(nodes, v)
		if sd.lvl[v] == 0 {
			out = append(out, copyPath(nodes, rels))
		} else {
			for _, e := range sd.pars[v] {
				rels = append(rels, e.rel)
				walk(e.from)
				rels = rels[:len(rels)-1]
				if !all {
					break
				}
			}
		}
		nodes = nodes[:len(nodes)-1]
	}
	walk(v)
	return out
}
