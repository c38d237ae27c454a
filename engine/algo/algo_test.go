package algo

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
)

// Large enough random graphs that every parallel loop runs many morsels
// on several workers, checked against sequential references; the
// engine's property tests (engine/algo_prop_test.go) check the
// procedures end to end on small graphs with deletes and overlays.

// randomGraph makes a skewed random directed graph with Out, In and
// weights, lists sorted.
func randomGraph(rng *rand.Rand, n, m int, symmetric bool) *Graph {
	type e struct{ s, d uint32 }
	var es []e
	for range m {
		s := uint32(rng.IntN(n))
		if rng.IntN(2) == 0 {
			s = uint32(rng.IntN(n/50 + 1)) // hubs
		}
		d := uint32(rng.IntN(n))
		es = append(es, e{s, d})
		if symmetric {
			es = append(es, e{d, s})
		}
	}
	build := func(rev bool) CSR {
		off := make([]uint32, n+1)
		for _, x := range es {
			if rev {
				off[x.d+1]++
			} else {
				off[x.s+1]++
			}
		}
		for i := range n {
			off[i+1] += off[i]
		}
		nbr := make([]uint32, len(es))
		at := slices.Clone(off)
		for _, x := range es {
			if rev {
				nbr[at[x.d]] = x.s
				at[x.d]++
			} else {
				nbr[at[x.s]] = x.d
				at[x.s]++
			}
		}
		for v := range n {
			slices.Sort(nbr[off[v]:off[v+1]])
		}
		return CSR{Off: off, Nbr: nbr}
	}
	g := &Graph{N: n, Out: build(false), Sorted: true, Symmetric: symmetric}
	g.In = g.Out
	if !symmetric {
		g.In = build(true)
	}
	g.OutW = make([]float64, len(g.Out.Nbr))
	for i := range g.OutW {
		g.OutW[i] = float64(rng.IntN(100)) / 7
	}
	return g
}

func TestParallelAgainstReferences(t *testing.T) {
	for _, sym := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(3, 4))
		g := randomGraph(rng, 20000, 60000, sym)
		one, two := &Run{Workers: 1}, &Run{Workers: 2}
		src := uint32(rng.IntN(g.N))

		// BFS against a queue BFS.
		want := make([]int32, g.N)
		for i := range want {
			want[i] = Unreached
		}
		want[src] = 0
		q := []uint32{src}
		for len(q) > 0 {
			u := q[0]
			q = q[1:]
			for _, v := range g.Out.List(u) {
				if want[v] < 0 {
					want[v] = want[u] + 1
					q = append(q, v)
				}
			}
		}
		for _, r := range []*Run{one, two} {
			got, err := BFS(r, g, src, -1)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("symmetric %v: BFS differs from the reference (%v)", sym, err)
			}
		}

		// SSSP against Dijkstra (different algorithms, the same least
		// fixed point).
		p, err := Dijkstra(one, g, src, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, delta := range []float64{0, 0.5, 1e-9} {
			d, err := SSSP(two, g, src, delta)
			if err != nil {
				t.Fatal(err)
			}
			for v := range d {
				if d[v] != p.Dist[v] && math.Abs(d[v]-p.Dist[v]) > 1e-9*p.Dist[v] {
					t.Fatalf("symmetric %v delta %g: vertex %d SSSP %v, Dijkstra %v", sym, delta, v, d[v], p.Dist[v])
				}
			}
		}

		// WCC against sequential union-find.
		parent := make([]uint32, g.N)
		for i := range parent {
			parent[i] = uint32(i)
		}
		find := func(x uint32) uint32 {
			for parent[x] != x {
				x = parent[x]
			}
			return x
		}
		for u := range uint32(g.N) {
			for _, v := range g.Out.List(u) {
				a, b := find(u), find(v)
				parent[max(a, b)] = min(a, b)
			}
		}
		comp, err := WCC(two, g)
		if err != nil {
			t.Fatal(err)
		}
		for v := range comp {
			if comp[v] != find(uint32(v)) {
				t.Fatalf("symmetric %v: WCC vertex %d in %d, want %d", sym, v, comp[v], find(uint32(v)))
			}
		}

		// PageRank, CDLP, LCC: the same result on one and two workers.
		pr1, _, err1 := PageRank(one, g, 0.85, 10, 0)
		pr2, _, err2 := PageRank(two, g, 0.85, 10, 0)
		if err1 != nil || err2 != nil || !slices.Equal(pr1, pr2) {
			t.Fatalf("symmetric %v: PageRank depends on the workers", sym)
		}
		seed := func() []int64 {
			s := make([]int64, g.N)
			for i := range s {
				s[i] = int64(i)
			}
			return s
		}
		l1, err1 := CDLP(one, g, seed(), 5)
		l2, err2 := CDLP(two, g, seed(), 5)
		if err1 != nil || err2 != nil || !slices.Equal(l1, l2) {
			t.Fatalf("symmetric %v: CDLP depends on the workers", sym)
		}
		c1, err1 := LCC(one, g)
		c2, err2 := LCC(two, g)
		if err1 != nil || err2 != nil || !slices.Equal(c1, c2) {
			t.Fatalf("symmetric %v: LCC depends on the workers", sym)
		}
	}
}

// Every algorithm stops with the run's error, and fails with 53200 when
// its arrays do not fit the accountant's limit.
func TestStopAndMemory(t *testing.T) {
	g := randomGraph(rand.New(rand.NewPCG(5, 6)), 20000, 40000, false)
	algos := map[string]func(r *Run) error{
		"bfs":      func(r *Run) error { _, err := BFS(r, g, 0, -1); return err },
		"sssp":     func(r *Run) error { _, err := SSSP(r, g, 0, 0); return err },
		"dijkstra": func(r *Run) error { _, err := Dijkstra(r, g, 0, nil); return err },
		"wcc":      func(r *Run) error { _, err := WCC(r, g); return err },
		"pagerank": func(r *Run) error { _, _, err := PageRank(r, g, 0.85, 20, 0); return err },
		"cdlp":     func(r *Run) error { _, err := CDLP(r, g, make([]int64, g.N), 10); return err },
		"lcc":      func(r *Run) error { _, err := LCC(r, g); return err },
	}
	stopErr := errors.New("stopped")
	for name, run := range algos {
		calls := 0
		r := &Run{Workers: 1, Stop: func() error {
			calls++
			if calls > 1 {
				return stopErr
			}
			return nil
		}}
		if err := run(r); !errors.Is(err, stopErr) {
			t.Errorf("%s: got %v after %d stop checks, want the stop error", name, err, calls)
		}
		mem := &memory.Tracker{Limit: 4096}
		r = &Run{Workers: 2, Mem: mem}
		err := run(r)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
			t.Errorf("%s: got %v under a 4 KiB limit, want 53200", name, err)
		}
		r.Release()
		if mem.Used() != 0 {
			t.Errorf("%s: %d bytes still charged after Release", name, mem.Used())
		}
	}
}

// The triangle kernel gives the same counts with 32-bit marks (lists of
// 65535 or more higher-ranked neighbours) as with 16-bit ones.
func TestTrianglesMarkWidths(t *testing.T) {
	for _, sym := range []bool{false, true} {
		g := randomGraph(rand.New(rand.NewPCG(7, 8)), 3000, 30000, sym)
		r := &Run{Workers: 2}
		s := g.Symmetric || g.In.Off == nil
		deg := make([]uint32, g.N)
		for v := range g.N {
			union(g, s, uint32(v), func(uint32, uint8) { deg[v]++ })
		}
		up, err := orient(r, g, s, deg)
		if err != nil {
			t.Fatal(err)
		}
		a, err1 := trianglesBy[uint16](r, g.N, up, s, 2)
		b, err2 := trianglesBy[uint32](r, g.N, up, s, 4)
		if err1 != nil || err2 != nil || !slices.Equal(a, b) || slices.Max(a) == 0 {
			t.Fatalf("symmetric %v: counts differ by mark width (%v, %v)", sym, err1, err2)
		}
	}
}

// The setup before an algorithm's first round (initialising per-vertex
// arrays, ranking CDLP's seeds, deriving out-degrees) and the work after
// its last (CDLP's relabelling) check the stop too: with a stop already
// set when the call starts, every algorithm fails with it before its
// first round starts, and a run with no rounds at all (CDLP or PageRank
// with 0 iterations) still fails with it rather than return a result.
func TestStopBeforeFirstRound(t *testing.T) {
	g := randomGraph(rand.New(rand.NewPCG(9, 10)), 20000, 40000, false)
	// Seeds in decreasing order take CDLP's ranking path (sort, search).
	seed := func() []int64 {
		s := make([]int64, g.N)
		for v := range s {
			s[v] = int64(g.N - v)
		}
		return s
	}
	algos := []struct {
		name string
		run  func(r *Run) error
	}{
		{"bfs", func(r *Run) error { _, err := BFS(r, g, 0, -1); return err }},
		{"sssp", func(r *Run) error { _, err := SSSP(r, g, 0, 0); return err }},
		{"dijkstra", func(r *Run) error { _, err := Dijkstra(r, g, 0, nil); return err }},
		{"wcc", func(r *Run) error { _, err := WCC(r, g); return err }},
		{"pagerank", func(r *Run) error { _, _, err := PageRank(r, g, 0.85, 20, 0); return err }},
		{"pagerank 0 iterations", func(r *Run) error { _, _, err := PageRank(r, g, 0.85, 0, 0); return err }},
		{"cdlp", func(r *Run) error { _, err := CDLP(r, g, seed(), 10); return err }},
		{"cdlp 0 iterations", func(r *Run) error { _, err := CDLP(r, g, seed(), 0); return err }},
		{"cdlp 0 iterations, increasing seeds", func(r *Run) error { _, err := CDLP(r, g, make([]int64, g.N), 0); return err }},
	}
	stopErr := errors.New("stopped")
	for _, a := range algos {
		rounds := 0
		mem := &memory.Tracker{}
		r := &Run{Workers: 2, Mem: mem, Stop: func() error { return stopErr },
			Probe: func(string, int) { rounds++ }}
		if err := a.run(r); !errors.Is(err, stopErr) {
			t.Errorf("%s: got %v, want the stop error", a.name, err)
		}
		if rounds != 0 {
			t.Errorf("%s: %d rounds started after the stop", a.name, rounds)
		}
		r.Release()
		if mem.Used() != 0 {
			t.Errorf("%s: %d bytes still charged after Release", a.name, mem.Used())
		}
	}
}

// pull's four partial sums and its tail add every entry of a list once:
// against a plain sum, over lists of every length up to 3 blocks and a
// tail, from a vertex range that does not start at 0.
func TestPull(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	contrib := make([]float32, 50)
	for i := range contrib {
		contrib[i] = float32(rng.Float64())
	}
	off, nbr := []uint32{0}, []uint32{}
	for n := range 16 {
		for range n {
			nbr = append(nbr, uint32(rng.IntN(len(contrib))))
		}
		off = append(off, uint32(len(nbr)))
	}
	const lo, base, d = 3, 0.01, 0.85
	pr := make([]float64, 16-lo)
	next := make([]float64, len(pr))
	wantDelta := 0.0
	for i := range pr {
		pr[i] = rng.Float64()
	}
	delta := pull(off, off[1:], nbr, contrib, pr, next, lo, base, d)
	for i := range next {
		sum := 0.0
		for _, u := range nbr[off[lo+i]:off[lo+i+1]] {
			sum += float64(contrib[u])
		}
		want := base + d*sum
		wantDelta = max(wantDelta, math.Abs(want-pr[i]))
		if math.Abs(next[i]-want) > 1e-12 {
			t.Errorf("vertex %d (%d entries): %v, plain sum gives %v", lo+i, off[lo+i+1]-off[lo+i], next[i], want)
		}
	}
	if math.Abs(delta-wantDelta) > 1e-12 {
		t.Errorf("largest change %v, want %v", delta, wantDelta)
	}
}

// PageRank reads contributions without a bounds check, so it refuses a
// graph whose lists name a vertex beyond N, and checks a graph once.
func TestPageRankRefusesOutOfRangeNeighbour(t *testing.T) {
	g := &Graph{N: 2, Out: CSR{Off: []uint32{0, 1, 2}, Nbr: []uint32{1, 7}}, Symmetric: true}
	g.In = g.Out
	if _, _, err := PageRank(&Run{}, g, 0.85, 3, 0); err == nil || !strings.Contains(err.Error(), "not one of the 2 vertices") {
		t.Fatalf("PageRank over a neighbour 7 of 2 vertices: %v", err)
	}
	g.In.Nbr[1] = 0
	if _, _, err := PageRank(&Run{}, g, 0.85, 3, 0); err != nil || !g.inBounded.Load() {
		t.Fatalf("PageRank over a valid graph: %v, checked %v", err, g.inBounded.Load())
	}
}
