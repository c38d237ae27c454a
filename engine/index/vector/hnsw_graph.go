package vectorindex

import (
	"math"
	"math/rand"
	"slices"
	"sync"
)

// graph is the HNSW graph (Malkov & Yashunin) on dense int32 slots:
// vectors in one flat array, each slot's neighbour lists in fixed-size
// int32 rows (a count, then the neighbours): 2·m on layer 0 in one flat
// array, m on each upper layer in a row per slot that has one.
//
// Inserts lock the lists they read or write, one at a time (a stripe of
// mutexes by slot), so a build inserts from several goroutines; the
// entry point and top level change under topMu. Searches of a finished
// graph read without locks: the Index keeps writers out while they run.
type graph struct {
	dim, m, m0, efc int
	metric          Metric
	vecs            []float32
	inv             []float32 // each slot's 1/|vector| (cosine)
	levels          []uint8
	layer0          []int32
	upper           [][]int32
	// entry is the slot searches start from (-1: empty graph), top its
	// level.
	topMu sync.Mutex
	entry int32
	top   int
	locks []sync.Mutex
	// inFlight holds the slots being inserted (a parallel build's
	// workers), under flightMu.
	flightMu sync.Mutex
	inFlight []int32
}

// lockStripes is the number of list mutexes: far more than workers, so
// two inserts rarely wait on each other's stripe.
const lockStripes = 1 << 12

// maxLevel caps a slot's level (the chance of a level above it, m^-31,
// is nil).
const maxLevel = 31

func newGraph(cfg Config) *graph {
	return &graph{dim: cfg.Dim, m: cfg.M, m0: 2 * cfg.M, efc: cfg.EfConstruction, metric: cfg.Metric,
		entry: -1, locks: make([]sync.Mutex, lockStripes)}
}

func (g *graph) slots() int { return len(g.levels) }

func (g *graph) vec(s int32) []float32 {
	i := int(s) * g.dim
	return g.vecs[i : i+g.dim : i+g.dim]
}

// list is s's neighbour row on layer l: row[0] the count, then the
// neighbours.
func (g *graph) list(s int32, l int) []int32 {
	if l == 0 {
		w := g.m0 + 1
		return g.layer0[int(s)*w : (int(s)+1)*w : (int(s)+1)*w]
	}
	w := g.m + 1
	return g.upper[s][(l-1)*w : l*w : l*w]
}

func (g *graph) probe(s int32) probe { return probe{g.vec(s), g.inv[s]} }

func (g *graph) lock(s int32) *sync.Mutex { return &g.locks[int(s)&(lockStripes-1)] }

// randomLevel draws a level with P(level ≥ l) = m^-l (the paper's
// m_L = 1/ln m).
func randomLevel(r *rand.Rand, m int) int {
	l := int(-math.Log(1-r.Float64()) / math.Log(float64(m)))
	return min(l, maxLevel)
}

// grow appends slots with the given levels; their vectors must already
// be in g.vecs.
func (g *graph) grow(levels []uint8) {
	for s := len(g.inv); s < len(g.levels)+len(levels); s++ {
		g.inv = append(g.inv, invNorm(g.vec(int32(s))))
	}
	g.levels = append(g.levels, levels...)
	g.layer0 = append(g.layer0, make([]int32, len(levels)*(g.m0+1))...)
	for _, l := range levels {
		var row []int32
		if l > 0 {
			row = make([]int32, int(l)*(g.m+1))
		}
		g.upper = append(g.upper, row)
	}
}

// neighbours returns s's neighbours on layer l; with lock, a copy taken
// under s's lock into sr.nbuf.
func (g *graph) neighbours(sr *searcher, s int32, l int, lock bool) []int32 {
	row := g.list(s, l)
	if !lock {
		return row[1 : 1+row[0]]
	}
	mu := g.lock(s)
	mu.Lock()
	sr.nbuf = append(sr.nbuf[:0], row[1:1+row[0]]...)
	mu.Unlock()
	return sr.nbuf
}

// greedy walks layer l from ep to the closest node it can reach (the
// search of ef 1 on the layers above the one searched).
func (g *graph) greedy(sr *searcher, q probe, ep cand, l int, lock bool) cand {
	for changed := true; changed; {
		changed = false
		for _, n := range g.neighbours(sr, ep.s, l, lock) {
			if d := g.dist(q, n); d < ep.d {
				ep, changed = cand{d, n}, true
			}
		}
	}
	return ep
}

// searchLayer is the paper's SEARCH-LAYER: a best-first walk of layer l
// from ep keeping the ef closest nodes in sr.res, ending when the
// closest unexpanded candidate is farther than the farthest kept.
// Nodes keep refuses (tombstones, a filter's rejects) are walked
// through but not kept: a rejected node still leads to its neighbours.
func (g *graph) searchLayer(sr *searcher, q probe, ep cand, ef, l int, lock bool, keep func(int32) bool) {
	sr.begin(g.slots())
	sr.visit(ep.s)
	sr.cands.push(ep)
	if keep == nil || keep(ep.s) {
		sr.res.push(ep)
	}
	for len(sr.cands) > 0 {
		c := sr.cands.pop()
		if len(sr.res) >= ef && c.d > sr.res[0].d {
			break
		}
		for _, n := range g.neighbours(sr, c.s, l, lock) {
			if !sr.visit(n) {
				continue
			}
			d := g.dist(q, n)
			if len(sr.res) < ef || d < sr.res[0].d {
				sr.cands.push(cand{d, n})
				if keep == nil || keep(n) {
					sr.res.push(cand{d, n})
					if len(sr.res) > ef {
						sr.res.pop()
					}
				}
			}
		}
	}
}

// selectNeighbours is the paper's heuristic (SELECT-NEIGHBORS-HEURISTIC
// without extension): of the candidates, closest first, keep one only if
// it is closer to the base than to every one kept so far, up to max. A
// cluster's nodes then link to a few of its members and to the other
// clusters, where the m closest would all lie in one cluster.
func (g *graph) selectNeighbours(out, cs []cand, max int) []cand {
	out = out[:0]
	for _, c := range cs {
		if len(out) >= max {
			break
		}
		v := g.probe(c.s)
		good := true
		for _, k := range out {
			if g.dist(v, k.s) < c.d {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
		}
	}
	return out
}

// insert links slot s (its vector and level already in place) into the
// graph.
func (g *graph) insert(sr *searcher, s int32) {
	q := g.probe(s)
	level := int(g.levels[s])
	g.enterFlight(sr, s)
	defer g.leaveFlight(s)
	g.topMu.Lock()
	if g.entry < 0 {
		g.entry, g.top = s, level
		g.topMu.Unlock()
		return
	}
	ep, top := g.entry, g.top
	if level <= top {
		g.topMu.Unlock()
	} else {
		// A new top level: other inserts wait (rare, about log_m n times
		// per build) until this node, their next entry, has its links.
		defer func() {
			g.entry, g.top = s, level
			g.topMu.Unlock()
		}()
	}
	cur := cand{g.dist(q, ep), ep}
	for l := top; l > level; l-- {
		cur = g.greedy(sr, q, cur, l, true)
	}
	notSelf := func(n int32) bool { return n != s }
	for l := min(level, top); l >= 0; l-- {
		g.searchLayer(sr, q, cur, g.efc, l, true, notSelf)
		w := sr.drain()
		if len(w) == 0 {
			continue
		}
		cur = w[0]
		sr.kept = g.selectNeighbours(sr.kept, w, g.m)
		g.keepUnseen(sr, q, w, l)
		mu := g.lock(s)
		mu.Lock()
		g.setOwnList(sr, s, q, l)
		mu.Unlock()
		for _, k := range sr.kept {
			g.link(sr, k.s, s, k.d, l)
		}
	}
}

// setOwnList writes sr.kept as s's list on layer l, under s's lock. The
// list is empty unless inserts running beside this one linked to s while
// it searched: their links are kept too (pruned with the same heuristic
// when they overflow), or s would not lead back to them and the graph
// could fall apart where points lie close together, as on a line.
func (g *graph) setOwnList(sr *searcher, s int32, q probe, l int) {
	row := g.list(s, l)
	cs := append(sr.pruneIn[:0], sr.kept...)
	for _, x := range row[1 : 1+row[0]] {
		if !slices.ContainsFunc(cs, func(c cand) bool { return c.s == x }) {
			cs = append(cs, cand{g.dist(q, x), x})
		}
	}
	sr.pruneIn = cs
	if capacity := g.capacity(l); len(cs) > capacity {
		slices.SortFunc(cs, byDistance)
		sr.pruneOut = g.selectNeighbours(sr.pruneOut, cs, capacity)
		cs = sr.pruneOut
	}
	row[0] = int32(len(cs))
	for i, k := range cs {
		row[1+i] = k.s
	}
}

// link adds s (at distance d) to n's list on layer l; a full list is
// pruned with the same heuristic over its members and s.
func (g *graph) link(sr *searcher, n, s int32, d float32, l int) {
	capacity := g.capacity(l)
	mu := g.lock(n)
	mu.Lock()
	defer mu.Unlock()
	row := g.list(n, l)
	cnt := int(row[0])
	if cnt < capacity {
		row[1+cnt] = s
		row[0]++
		return
	}
	v := g.probe(n)
	cs := append(sr.pruneIn[:0], cand{d, s})
	for _, x := range row[1 : 1+cnt] {
		cs = append(cs, cand{g.dist(v, x), x})
	}
	sr.pruneIn = cs
	slices.SortFunc(cs, byDistance)
	sr.pruneOut = g.selectNeighbours(sr.pruneOut, cs, capacity)
	row[0] = int32(len(sr.pruneOut))
	for i, k := range sr.pruneOut {
		row[1+i] = k.s
	}
}

// capacity is the length of a node's list on layer l: m0 on the ground
// layer, m above.
func (g *graph) capacity(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.m
}

// byDistance orders candidates nearest first, ties by slot.
func byDistance(a, b cand) int {
	switch {
	case a.d < b.d:
		return -1
	case a.d > b.d:
		return 1
	}
	return int(a.s - b.s)
}
