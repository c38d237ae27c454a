package exec

import (
	"github.com/quiverdb/quiver/engine/exec/pathtree"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// shortest finds shortest paths between the two bound nodes of each input
// row by breadth-first search, level by level, stopping at the first level
// that connects them: from both ends at once (shortest_bidi.go) between
// different nodes, from the start alone for cycles back to it. The visited
// sets are maps cleared between rows, so a point query costs what it
// visits, never O(|V|). With All, the level is completed and every parent
// hop from the previous level kept, and the paths are enumerated back
// along them.
type shortest struct {
	c     *Context
	p     *plan.ShortestPath
	cur   cursor
	adjs  []adjList
	props *relProps
	// prune holds the element tests of an ALL SHORTEST search
	// (shortest_prune.go), steer those of a shortestPath or
	// allShortestPaths search (shortest_steer.go).
	prune *hopTests
	steer *steer
	// fwd and bwd are the two halves of a search between different nodes.
	fwd, bwd *searchSide

	pending []vector.Path // paths of the current row still to emit
	next    int
	// joining: the current row's paths come from nextJoined.
	joining    bool
	meet       []uint64
	meetIdx    int
	head, tail pathtree.Walk
	haveHead   bool

	// The one-sided search (cycles back to the start).
	par      map[uint64]pathtree.Hop   // single: the hop a node was reached by
	lvl      map[uint64]int32          // the level of each visited node
	pars     map[uint64][]pathtree.Hop // all: every hop from the previous level
	frontier []uint64
	nextLvl  []uint64
	nbrs     []uint64
	rels     []uint64
	closing  []pathtree.Hop
}

func newShortest(c *Context, p *plan.ShortestPath, in Operator) (Operator, error) {
	props, err := newRelProps(c, p.RelKeys, p.RelVals)
	if err != nil {
		return nil, err
	}
	prune, err := newPruner(c, p.RelTest, p.NodeTest, p.InnerTest)
	if err != nil {
		return nil, err
	}
	s := &shortest{c: c, p: p, props: props, adjs: openAdjs(c, p.Types, p.Dir),
		cur: newCursor(c.pool(), in, len(p.Input.Columns()), len(p.Cols)),
		par: map[uint64]pathtree.Hop{}, lvl: map[uint64]int32{}, pars: map[uint64][]pathtree.Hop{}}
	if props != nil {
		s.cur.onBatch = props.batch
	}
	s.fwd, s.bwd = newSearchSide(s.adjs), newSearchSide(openAdjs(c, p.Types, reverseDir(p.Dir)))
	switch {
	case prune != nil && p.Steer:
		s.steer = newSteer(prune)
	case prune != nil:
		s.prune = newHopTests(prune)
		s.head.Keep, s.tail.Keep = s.prune.keep, s.prune.keep
	}
	out, nin := s.cur.out, s.cur.nin
	out.Cols[nin] = vector.New(vector.Any, vector.Capacity)
	out.Cols[nin+1] = vector.New(vector.Any, vector.Capacity)
	return s, nil
}

func (s *shortest) Next() (*vector.Batch, error) {
	if err := s.c.CheckCancel(); err != nil {
		return nil, err
	}
	return s.cur.fill(s)
}

// produce emits the current row's paths: those found, then those joined
// from the two halves of a search.
func (s *shortest) produce() error {
	for !s.cur.full() {
		if s.next < len(s.pending) {
			s.emit(s.pending[s.next])
			s.next++
			continue
		}
		if !s.joining {
			return nil
		}
		pth, ok := s.nextJoined()
		if s.prune != nil && s.prune.err != nil {
			return s.prune.err
		}
		if !ok {
			s.joining = false
			return nil
		}
		s.emit(pth)
	}
	return nil
}

// emit outputs a path of the current row.
func (s *shortest) emit(pth vector.Path) {
	k, out, nin := len(s.cur.idx), s.cur.out, s.cur.nin
	out.Cols[nin].Set(k, functions.RelsValue(pth.Rels))
	out.Cols[nin+1].Set(k, pth)
	s.cur.emitRow()
}

// advance searches the paths of the next input row whose endpoints are
// both nodes; it returns false at the end of the input or when the output
// still refers to the current input batch.
func (s *shortest) advance() (bool, error) {
	for {
		src, dst, ok, err := s.cur.nextNodes(s.p.From, s.p.To)
		if !ok || err != nil {
			return false, err
		}
		if s.props != nil {
			s.props.row(s.cur.row)
		}
		s.pending, s.next, s.joining = s.pending[:0], 0, false
		if err := s.search(src, dst); err != nil {
			return false, err
		}
		if len(s.pending) > 0 || s.joining {
			return true, nil
		}
	}
}

// search fills pending with the shortest paths from src to dst.
func (s *shortest) search(src, dst uint64) error {
	if s.steer != nil {
		if ok, err := s.steer.row(src, dst); !ok || err != nil {
			return err
		}
	}
	if src == dst {
		if s.p.Min == 0 {
			s.pending = append(s.pending, vector.Path{Nodes: []uint64{src}})
			return nil
		}
		if s.p.Dir == plan.Both {
			return s.cycles(src)
		}
	}
	if src != dst {
		return s.bidi(src, dst)
	}
	return s.bfs(src, dst, 0, false, s.p.Max)
}

// bfs appends the shortest paths from src to dst of at most maxLen
// relationships (Unbounded for any), never using relationship exclude when
// excluding is set. For src == dst (a directed cycle back to the start) the
// last relationship closes the cycle: a shortest directed path to its
// tail never contains it, so the result is a trail.
func (s *shortest) bfs(src, dst uint64, exclude uint64, excluding bool, maxLen int) error {
	clear(s.par)
	clear(s.lvl)
	clear(s.pars)
	s.lvl[src] = 0
	s.frontier = append(s.frontier[:0], src)
	tx := s.c.Tx
	for level := int32(1); maxLen == plan.Unbounded || int(level) <= maxLen; level++ {
		if err := s.c.CheckCancel(); err != nil {
			return err
		}
		s.nextLvl, s.closing = s.nextLvl[:0], s.closing[:0]
		found := false
	scan:
		for _, u := range s.frontier {
			if err := s.load(s.adjs, u); err != nil {
				return err
			}
			for i, v := range s.nbrs {
				r := s.rels[i]
				if (excluding && r == exclude) || (s.props != nil && !s.props.match(tx, r)) {
					continue
				}
				if v == dst && src == dst {
					s.closing = append(s.closing, pathtree.Hop{From: u, Rel: r})
					continue
				}
				d, seen := s.lvl[v]
				switch {
				case !seen:
					s.lvl[v] = level
					s.nextLvl = append(s.nextLvl, v)
					if s.p.All {
						s.pars[v] = append(s.pars[v], pathtree.Hop{From: u, Rel: r})
					} else {
						s.par[v] = pathtree.Hop{From: u, Rel: r}
					}
				case d == level && s.p.All:
					s.pars[v] = append(s.pars[v], pathtree.Hop{From: u, Rel: r})
				}
				if v == dst {
					found = true
					if !s.p.All {
						break scan
					}
				}
			}
		}
		if found {
			s.paths(dst, pathtree.Hop{}, false)
			return nil
		}
		for _, e := range s.closing {
			s.paths(e.From, e, true)
			if len(s.pending) > 0 && !s.p.All {
				return nil
			}
		}
		if len(s.pending) > 0 || len(s.nextLvl) == 0 {
			return nil
		}
		s.frontier, s.nextLvl = s.nextLvl, s.frontier
	}
	return nil
}

// cycles finds the shortest cycles from start back to itself on an
// undirected pattern. A walk there and back over one relationship is not
// a trail, and the shortest cycle's tail need not follow a shortest path,
// so each first relationship is tried in turn: the cycle is that
// relationship plus a shortest path back to start without it.
func (s *shortest) cycles(start uint64) error {
	if s.p.Max != plan.Unbounded && s.p.Max < 1 {
		return nil
	}
	nbrs, rels := appendAdj(s.adjs, nil, nil, start)
	if s.steer != nil {
		var err error
		if nbrs, rels, err = s.steer.filter(nbrs, rels); err != nil {
			return err
		}
	}
	var best []vector.Path
	bestLen := -1
	for i, x := range nbrs {
		r := rels[i]
		if s.props != nil && !s.props.match(s.c.Tx, r) {
			continue
		}
		var cand []vector.Path
		if x == start {
			cand = []vector.Path{{Nodes: []uint64{start, start}, Rels: []uint64{r}}}
		} else {
			limit := s.p.Max
			if limit != plan.Unbounded {
				limit--
			}
			if bestLen >= 0 && (limit == plan.Unbounded || bestLen-1 < limit) {
				limit = bestLen - 1
			}
			if limit == 0 {
				continue
			}
			s.pending = s.pending[:0]
			if err := s.bfs(x, start, r, true, limit); err != nil {
				return err
			}
			for _, p := range s.pending {
				cand = append(cand, vector.Path{Nodes: append([]uint64{start}, p.Nodes...), Rels: append([]uint64{r}, p.Rels...)})
			}
		}
		for _, c := range cand {
			switch n := len(c.Rels); {
			case bestLen < 0 || n < bestLen:
				best, bestLen = append(best[:0], c), n
			case n == bestLen && s.p.All:
				best = append(best, c)
			}
		}
	}
	s.pending = append(s.pending[:0], best...)
	return nil
}

// paths appends to pending the shortest paths to node v (every one with
// All), extended by the hop last when closing a cycle back to the start;
// such a cycle must not use a relationship twice.
func (s *shortest) paths(v uint64, last pathtree.Hop, closing bool) {
	var nodes, rels []uint64
	var walk func(v uint64)
	emit := func() {
		n := len(nodes)
		p := vector.Path{Nodes: make([]uint64, 0, n+1), Rels: make([]uint64, 0, n)}
		for i := n - 1; i >= 0; i-- {
			p.Nodes = append(p.Nodes, nodes[i])
		}
		for i := len(rels) - 1; i >= 0; i-- {
			p.Rels = append(p.Rels, rels[i])
		}
		if closing {
			for _, r := range p.Rels {
				if r == last.Rel {
					return
				}
			}
			p.Nodes = append(p.Nodes, p.Nodes[0])
			p.Rels = append(p.Rels, last.Rel)
		}
		s.pending = append(s.pending, p)
	}
	walk = func(v uint64) {
		nodes = append(nodes, v)
		defer func() { nodes = nodes[:len(nodes)-1] }()
		if s.lvl[v] == 0 {
			emit()
			return
		}
		if !s.p.All {
			e := s.par[v]
			rels = append(rels, e.Rel)
			walk(e.From)
			rels = rels[:len(rels)-1]
			return
		}
		for _, e := range s.pars[v] {
			rels = append(rels, e.Rel)
			walk(e.From)
			rels = rels[:len(rels)-1]
		}
	}
	walk(v)
}

// load reads node's neighbours through adjs into s.nbrs and s.rels,
// narrowed to the hops a steered search may take.
func (s *shortest) load(adjs []adjList, node uint64) error {
	s.nbrs, s.rels = appendAdj(adjs, s.nbrs[:0], s.rels[:0], node)
	s.c.Counters.RowsScanned += int64(len(s.nbrs))
	if s.steer == nil {
		return nil
	}
	var err error
	s.nbrs, s.rels, err = s.steer.filter(s.nbrs, s.rels)
	return err
}
