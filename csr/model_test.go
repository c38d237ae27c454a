package csr

import (
	"cmp"
	"flag"
	"math/rand/v2"
	"slices"
	"testing"
)

var seedFlag = flag.Uint64("seed", 0, "run the randomized tests with this seed only (0: the fixed seed list)")

// seeds returns the seeds a randomized test runs with, logging each one so
// that a failure can be replayed with -seed.
func seeds(t *testing.T, fixed int) []uint64 {
	if *seedFlag != 0 {
		return []uint64{*seedFlag}
	}
	s := make([]uint64, fixed)
	for i := range s {
		s[i] = uint64(i + 1)
	}
	return s
}

// slot is one model entry of a neighbour list.
type slot struct{ dst, rel uint64 }

// model is the naive graph the tests compare against: a map from node to
// its (dst, rel) list, and from rel to its source.
type model struct {
	adj map[uint64][]slot
	src map[uint64]uint64
}

func newModel() *model {
	return &model{adj: map[uint64][]slot{}, src: map[uint64]uint64{}}
}

func (m *model) insert(e Edge) {
	m.adj[e.Src] = append(m.adj[e.Src], slot{e.Dst, e.Rel})
	m.src[e.Rel] = e.Src
}

func (m *model) remove(rel uint64) {
	s := m.src[rel]
	m.adj[s] = slices.DeleteFunc(m.adj[s], func(x slot) bool { return x.rel == rel })
	delete(m.src, rel)
}

// list is node's expected list, sorted by (dst, rel).
func (m *model) list(node uint64) (nbrs, rels []uint64) {
	l := slices.Clone(m.adj[node])
	slices.SortFunc(l, func(x, y slot) int { return cmpSlot(x.dst, x.rel, y.dst, y.rel) })
	for _, s := range l {
		nbrs = append(nbrs, s.dst)
		rels = append(rels, s.rel)
	}
	return nbrs, rels
}

func (m *model) edges() []Edge {
	var es []Edge
	for s, l := range m.adj {
		for _, x := range l {
			es = append(es, Edge{s, x.dst, x.rel})
		}
	}
	return es
}

func (m *model) liveRels() []uint64 {
	rels := make([]uint64, 0, len(m.src))
	for r := range m.src {
		rels = append(rels, r)
	}
	slices.Sort(rels)
	return rels
}

// bound is one past the largest node id with a live edge.
func (m *model) bound() int {
	b := uint64(0)
	for s, l := range m.adj {
		for _, x := range l {
			b = max(b, s+1, x.dst+1)
		}
	}
	return int(b)
}

// prefix is put in front of every Append call's destination to check that
// the methods append rather than overwrite.
var prefix = []uint64{7, 7}

// compareCSR checks every node of c against m, then c.Check.
func compareCSR(t *testing.T, c *CSR, m *model) {
	t.Helper()
	if err := c.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if c.NumEdges() != len(m.src) {
		t.Fatalf("NumEdges = %d, want %d", c.NumEdges(), len(m.src))
	}
	compareLoops(t, "CSR", c.Loops(), m)
	compareLoops(t, "decoded CSR", c.findLoops(), m)
	if got := c.Offsets(); len(got) != c.NumNodes()+1 || got[c.NumNodes()] != uint64(c.NumEdges()) {
		t.Fatalf("Offsets len %d end %d", len(got), got[len(got)-1])
	}
	for v := uint64(0); v < uint64(c.NumNodes())+3; v++ {
		want, wantRels := m.list(v)
		nbrs := c.AppendNeighbors(slices.Clone(prefix), v)
		rels := c.AppendRels(slices.Clone(prefix), v)
		if !slices.Equal(nbrs[:2], prefix) || !slices.Equal(nbrs[2:], want) || !slices.Equal(rels[2:], wantRels) {
			t.Fatalf("node %d: got %v %v, want %v %v", v, nbrs[2:], rels[2:], want, wantRels)
		}
		if c.Degree(v) != len(want) {
			t.Fatalf("node %d: Degree %d, want %d", v, c.Degree(v), len(want))
		}
	}
}

// loops is the model's self-loops: node ids, sorted, one per loop slot.
func (m *model) loops() []uint64 {
	var out []uint64
	for src, l := range m.adj {
		for _, s := range l {
			if s.dst == src {
				out = append(out, src)
			}
		}
	}
	slices.Sort(out)
	return out
}

// compareLoops checks the loops found by a decoding pass, by Check and by
// an Adjacency against the model's.
func compareLoops(t *testing.T, what string, got []uint64, m *model) {
	t.Helper()
	if want := m.loops(); !slices.Equal(got, want) && len(got)+len(want) > 0 {
		t.Fatalf("%s loops = %v, want %v", what, got, want)
	}
}

// compareAdj checks every node of a against m, then a.Check.
func compareAdj(t *testing.T, a *Adjacency, m *model) {
	t.Helper()
	if err := a.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if a.NumEdges() != len(m.src) {
		t.Fatalf("NumEdges = %d, want %d", a.NumEdges(), len(m.src))
	}
	compareLoops(t, "Adjacency", a.AppendLoops(nil), m)
	for v := uint64(0); v < uint64(a.NumNodes())+3; v++ {
		want, wantRels := m.list(v)
		nbrs, rels := a.AppendNeighbors(slices.Clone(prefix), slices.Clone(prefix), v)
		if !slices.Equal(nbrs[:2], prefix) || !slices.Equal(rels[:2], prefix) ||
			!slices.Equal(nbrs[2:], want) || !slices.Equal(rels[2:], wantRels) {
			t.Fatalf("node %d: got %v %v, want %v %v", v, nbrs[2:], rels[2:], want, wantRels)
		}
		if a.Degree(v) != len(want) {
			t.Fatalf("node %d: Degree %d, want %d", v, a.Degree(v), len(want))
		}
		if !a.Dirty(v) {
			// A clean node must read exactly like the base.
			if b := a.Base().AppendNeighbors(nil, v); !slices.Equal(b, want) {
				t.Fatalf("node %d clean but base has %v, want %v", v, b, want)
			}
		}
		if a.Dirty(v) && !a.DirtyGroup(v) {
			t.Fatalf("node %d dirty in a clean group", v)
		}
	}
}

// randomGraph draws a graph of one of several shapes: empty, one node,
// power-law sources, a hub over several blocks, many parallel edges and
// self-loops; isolated nodes arise in all of them. Relationship ids are
// dense (shuffled) or sparse to exercise both relationship indexes.
func randomGraph(r *rand.Rand) (int, *model) {
	m := newModel()
	var n, e int
	switch r.IntN(6) {
	case 0:
		return 0, m
	case 1:
		n, e = 1, r.IntN(5)
	default:
		n, e = 1+r.IntN(200), r.IntN(1200)
	}
	shape := r.IntN(4)
	rels := uniqueRels(r, e)
	for i := range e {
		var src, dst uint64
		switch shape {
		case 0: // uniform
			src, dst = r.Uint64N(uint64(n)), r.Uint64N(uint64(n))
		case 1: // power-law-ish sources: squares of uniforms skew to 0
			f := r.Float64()
			src, dst = uint64(f*f*f*float64(n)), r.Uint64N(uint64(n))
		case 2: // one hub plus parallel edges and self-loops
			src = 0
			if r.IntN(4) == 0 {
				src = r.Uint64N(uint64(n))
			}
			dst = r.Uint64N(uint64(min(n, 1+r.IntN(8))))
			if r.IntN(5) == 0 {
				dst = src
			}
		case 3: // clustered ids: neighbours near the source
			src = r.Uint64N(uint64(n))
			dst = min(uint64(n-1), src+r.Uint64N(4))
		}
		m.insert(Edge{src, dst, rels[i]})
	}
	return n, m
}

// uniqueRels returns n distinct relationship ids, dense or sparse.
func uniqueRels(r *rand.Rand, n int) []uint64 {
	rels := make([]uint64, n)
	if r.IntN(2) == 0 {
		lo := r.Uint64N(1000)
		for i := range rels {
			rels[i] = lo + uint64(i)
		}
		r.Shuffle(n, func(i, j int) { rels[i], rels[j] = rels[j], rels[i] })
		return rels
	}
	seen := map[uint64]bool{}
	for i := range rels {
		x := r.Uint64()
		for seen[x] {
			x = r.Uint64()
		}
		seen[x] = true
		rels[i] = x
	}
	return rels
}

func shuffled(r *rand.Rand, es []Edge) []Edge {
	slices.SortFunc(es, func(x, y Edge) int { return cmp.Compare(x.Rel, y.Rel) }) // map order is random
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	return es
}

func TestBuildModel(t *testing.T) {
	for _, seed := range seeds(t, 200) {
		r := rand.New(rand.NewPCG(seed, 1))
		n, m := randomGraph(r)
		c := Build(n, shuffled(r, m.edges()))
		if c.NumNodes() != n {
			t.Fatalf("seed %d: NumNodes %d, want %d", seed, c.NumNodes(), n)
		}
		compareCSR(t, c, m)
		if t.Failed() {
			t.Logf("seed %d", seed)
			return
		}
	}
}

func TestApplyModel(t *testing.T) {
	for _, seed := range seeds(t, 60) {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 2))
		n, m := randomGraph(r)
		var a *Adjacency
		if n == 0 && r.IntN(2) == 0 {
			a = NewAdjacency(nil)
		} else {
			a = NewAdjacency(Build(n, shuffled(r, m.edges())))
		}
		compareAdj(t, a, m)
		nextRel := uint64(1 << 62)
		lastTS := uint64(0)
		for step := range 40 {
			var ins []Edge
			var del []uint64
			live := m.liveRels()
			r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
			del = live[:r.IntN(min(len(live), 12)+1)]
			for _, rel := range del {
				m.remove(rel)
			}
			bound := uint64(max(a.NumNodes(), 1))
			for range r.IntN(15) {
				// Beyond the base's nodes, onto the same few nodes, and
				// parallel to existing edges.
				src := r.Uint64N(bound + 3)
				if r.IntN(3) == 0 {
					src = r.Uint64N(min(bound, 3))
				}
				dst := r.Uint64N(bound + 3)
				if r.IntN(4) == 0 && len(m.adj[src]) > 0 {
					dst = m.adj[src][0].dst
				}
				e := Edge{src, dst, nextRel}
				nextRel += 1 + r.Uint64N(3)
				ins = append(ins, e)
				m.insert(e)
			}
			a = a.Apply(ins, del, uint64(step+1))
			if len(ins)+len(del) > 0 {
				lastTS = uint64(step + 1)
			}
			if a.TS() != lastTS {
				t.Fatalf("step %d: TS %d, want %d", step, a.TS(), lastTS)
			}
			compareAdj(t, a, m)
			if r.IntN(8) == 0 {
				a = a.Compact(max(m.bound(), a.NumNodes()) + r.IntN(3))
				if a.Dirty(0) || a.TS() != lastTS {
					t.Fatalf("step %d: compacted version dirty or lost its ts", step)
				}
				compareAdj(t, a, m)
				compareCSR(t, a.Base(), m)
			}
		}
		// A final compaction to the tightest bound must equal a fresh build.
		c := a.Compact(m.bound()).Base()
		compareCSR(t, c, m)
		if t.Failed() {
			return
		}
	}
}
