package algo

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// TestPatchEqualsFreshProjection commits random writes (nodes and
// relationships created and deleted, weights set, labels added and
// removed) to a small store, and after each commit checks that every
// projection the cache patches from the previous version equals a fresh
// one: the same vertices, the same lists with the same relationship ids
// and weights (compared by node id, each list sorted), and the same
// results of BFS, SSSP, PageRank and WCC.
func TestPatchEqualsFreshProjection(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { testPatch(t, seed) })
	}
}

func testPatch(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	const n, m = 120, 500
	src, dst := make([]uint32, m), make([]uint32, m)
	w := make([]float64, m)
	for i := range src {
		src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		if i&1 == 0 {
			src[i] = uint32(rng.IntN(8))
		}
		w[i] = float64(1 + rng.IntN(9))
	}
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"A"}, Count: n / 2}, {Labels: []string{"B"}, Count: n / 2}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{{Key: "w", Type: vector.Float64, F64: w}}}})
	if err != nil {
		t.Fatal(err)
	}
	cat := s.Catalog()
	typ, _ := cat.LookupType("E")
	wk, _ := cat.LookupKey("w")
	la, _ := cat.LookupLabel("A")
	lb, _ := cat.LookupLabel("B")
	types := []catalog.TypeID{typ}
	projs := map[string]Projection{
		"bfs":          {Out: true, In: true, HubOrder: true},
		"pagerank":     {In: true, OutDegree: true, HubOrder: true},
		"pagerank-rev": {In: true, OutDegree: true, HubOrder: true, Dir: Reverse},
		"undirected":   {Out: true, Dir: Undirected, HubOrder: true},
		"sssp":         {Out: true, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w"},
		"sssp-undir":   {Out: true, Dir: Undirected, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w"},
		"reverse-rels": {Out: true, Dir: Reverse, OutRels: true},
		"sorted":       {Out: true, Dir: Undirected, Sorted: true},
		"label-a":      {Out: true, In: true, HubOrder: true, FilterLabels: true, Labels: []catalog.LabelID{la}},
		"label-a-w":    {Out: true, Dir: Undirected, FilterLabels: true, Labels: []catalog.LabelID{la}, Weighted: true, Weight: wk, WeightName: "w"},
	}
	for name := range projs {
		p := projs[name]
		p.Types = types
		projs[name] = p
	}
	c := NewCache(1 << 30)
	// Calls end (Run.Release) before the next commit, so that the cache
	// patches in place, except every third round's, which still read
	// their graphs at the next patch: that one copies.
	var reading []*Run
	check := func(round int) {
		for _, r := range reading {
			r.Release()
		}
		reading = reading[:0]
		for name, p := range projs {
			tx := s.Begin()
			r := &Run{}
			got, err := ProjectCached(r, c, tx, p)
			if err != nil {
				t.Fatalf("round %d %s: %v", round, name, err)
			}
			want, err := Project(&Run{}, tx, p)
			if err != nil {
				t.Fatalf("round %d %s: fresh: %v", round, name, err)
			}
			if err := sameGraph(got, want); err != nil {
				t.Fatalf("round %d %s: %v", round, name, err)
			}
			if err := sameResults(got, want, p); err != nil {
				t.Fatalf("round %d %s: %v", round, name, err)
			}
			if err := got.checkInBounded(&Run{}); err != nil && got.In.Off != nil {
				t.Fatalf("round %d %s: %v", round, name, err)
			}
			tx.Rollback()
			reading = append(reading, r)
			if round%3 != 0 {
				r.Release()
				reading = reading[:len(reading)-1]
			}
		}
	}
	check(0)
	for round := 1; round <= 40; round++ {
		tx := s.Begin()
		for range 1 + rng.IntN(3) {
			if err := randomWrite(rng, tx, typ, wk, la, lb); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatalf("round %d: commit: %v", round, err)
		}
		check(round)
	}
	st := c.Stats()
	t.Logf("cache: %+v", st)
	if st.Patches == 0 || st.InPlace == 0 || st.InPlace == st.Patches {
		t.Fatalf("want patches both in place and copying: %+v", st)
	}
}

// TestPatchInPlaceRoom grows the lists of two hubs by turns, so that
// each patch in place moves one past the last list, until the room
// makeSlots left is used up and a patch copies the lists (packed again,
// with room anew); every patched projection equals a fresh one.
func TestPatchInPlaceRoom(t *testing.T) {
	const n, hub = 64, 400
	var src, dst []uint32
	for i := range hub {
		src, dst = append(src, 0, 1), append(dst, uint32(2+i%(n-2)), uint32(2+(i*7)%(n-2)))
	}
	w := make([]float64, len(src))
	for i := range w {
		w[i] = float64(1 + i%5)
	}
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"A"}, Count: n}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{{Key: "w", Type: vector.Float64, F64: w}}}})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := s.Catalog().LookupType("E")
	wk, _ := s.Catalog().LookupKey("w")
	projs := []Projection{
		{Out: true, In: true, HubOrder: true, Types: []catalog.TypeID{typ}},
		{Out: true, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w", OutRels: true, Dir: Reverse, Types: []catalog.TypeID{typ}},
	}
	c := NewCache(1 << 30)
	for round := range 12 {
		if round > 0 {
			tx := s.Begin()
			if _, err := tx.CreateRel(typ, uint64(round%2), uint64(2+round), []catalog.KeyID{wk}, []vector.Value{float64(round)}); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range projs {
			tx := s.Begin()
			r := &Run{}
			got, err := ProjectCached(r, c, tx, p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Project(&Run{}, tx, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameGraph(got, want); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if err := sameResults(got, want, p); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			// The slots a patch in place left unused weigh nothing.
			if a, _ := weightSum(&Run{}, got); p.Weighted && a != sumOf(want.OutW) {
				t.Fatalf("round %d: weight sum %v, want %v", round, a, sumOf(want.OutW))
			}
			r.Release()
			tx.Rollback()
		}
	}
	// Each projection: 11 patches, some of them copies (the room,
	// slotRoom(800) = 1049 slots, holds two moves of a 400-entry list).
	if st := c.Stats(); st.Patches != 22 || st.InPlace == 0 || st.InPlace == st.Patches {
		t.Fatalf("want patches in place and copies: %+v", st)
	}
}

func sumOf(ws []float64) float64 {
	s := 0.0
	for _, w := range ws {
		s += w
	}
	return s
}

// randomWrite makes one random change through tx.
func randomWrite(rng *rand.Rand, tx *storage.Tx, typ catalog.TypeID, wk catalog.KeyID, la, lb catalog.LabelID) error {
	live := tx.LiveNodes().ToArray()
	node := func() uint64 { return uint64(live[rng.IntN(len(live))]) }
	rel := func() (uint64, bool) {
		a := tx.Adjacency(typ, storage.Outgoing)
		for range 20 {
			x := node()
			nb, rels := a.AppendNeighbors(nil, nil, x)
			if len(nb) > 0 {
				return rels[rng.IntN(len(rels))], true
			}
		}
		return 0, false
	}
	weight := func() []vector.Value { return []vector.Value{float64(1 + rng.IntN(9))} }
	switch k := rng.IntN(10); {
	case k < 3:
		_, err := tx.CreateRel(typ, node(), node(), []catalog.KeyID{wk}, weight())
		return err
	case k < 5:
		if id, ok := rel(); ok {
			_, err := tx.DeleteRel(id)
			return err
		}
	case k < 6:
		if id, ok := rel(); ok {
			return tx.SetRelProps(id, []catalog.KeyID{wk}, weight())
		}
	case k < 7:
		l := []catalog.LabelID{la, lb}[rng.IntN(2)]
		id, err := tx.CreateNode([]catalog.LabelID{l}, nil, nil)
		if err == nil && rng.IntN(2) == 0 {
			_, err = tx.CreateRel(typ, id, node(), []catalog.KeyID{wk}, weight())
		}
		return err
	case k < 8:
		if len(live) > 10 {
			_, _, err := tx.DeleteNode(node(), true)
			return err
		}
	case k < 9:
		_, err := tx.AddLabels(node(), []catalog.LabelID{la})
		return err
	default:
		_, err := tx.RemoveLabels(node(), []catalog.LabelID{la})
		return err
	}
	return nil
}

type canonSlot struct {
	nbr, rel uint64
	w        float64
}

// canon is g's lists by node id, each sorted by (neighbour, relationship,
// weight).
func canon(g *Graph, c CSR, rels []uint64, wts []float64) map[uint64][]canonSlot {
	out := map[uint64][]canonSlot{}
	if c.Off == nil {
		return out
	}
	for v := range uint32(g.N) {
		var list []canonSlot
		for i := c.Off[v]; i < c.Ends()[v]; i++ {
			sl := canonSlot{nbr: g.NodeID(c.Nbr[i])}
			if rels != nil {
				sl.rel = rels[i]
			}
			if wts != nil {
				sl.w = wts[i]
			}
			list = append(list, sl)
		}
		slices.SortFunc(list, func(a, b canonSlot) int {
			return cmp.Or(cmp.Compare(a.nbr, b.nbr), cmp.Compare(a.rel, b.rel), cmp.Compare(a.w, b.w))
		})
		out[g.NodeID(v)] = list
	}
	return out
}

func sameGraph(got, want *Graph) error {
	if got.N != want.N || got.Symmetric != want.Symmetric {
		return fmt.Errorf("%d vertices (symmetric %t), want %d (%t)", got.N, got.Symmetric, want.N, want.Symmetric)
	}
	for v := range uint32(want.N) {
		if w, ok := got.Vertex(want.NodeID(v)); !ok || got.NodeID(w) != want.NodeID(v) {
			return fmt.Errorf("node %d is not a vertex", want.NodeID(v))
		}
	}
	if a, b := byNode(got, outDegreesOf(got)), byNode(want, outDegreesOf(want)); fmt.Sprint(a) != fmt.Sprint(b) {
		if want.OutDeg != nil || want.Out.Off != nil {
			return fmt.Errorf("out-degrees %v, want %v", a, b)
		}
	}
	for _, d := range []struct {
		name      string
		got, want map[uint64][]canonSlot
	}{
		{"out", canon(got, got.Out, got.OutRel, got.OutW), canon(want, want.Out, want.OutRel, want.OutW)},
		{"in", canon(got, got.In, nil, nil), canon(want, want.In, nil, nil)},
	} {
		// A cached graph may hold more arrays than the call asked for:
		// only those a fresh projection builds are compared.
		if len(d.want) == 0 && got.N > 0 {
			continue
		}
		for id, l := range d.want {
			if fmt.Sprint(d.got[id]) != fmt.Sprint(l) {
				return fmt.Errorf("%s list of node %d: %v, want %v", d.name, id, d.got[id], l)
			}
		}
	}
	if want.Sorted {
		for _, c := range []CSR{got.Out, got.In} {
			for v := 0; c.Off != nil && v < got.N; v++ {
				if !slices.IsSorted(c.List(uint32(v))) {
					return fmt.Errorf("vertex %d's list is not sorted", v)
				}
			}
		}
	}
	return nil
}

// outDegreesOf is g's out-degrees, from Out when it has no OutDeg (a
// cached graph with Out serves a call that asks for degrees only).
func outDegreesOf(g *Graph) []uint32 {
	if g.OutDeg != nil || g.Out.Off == nil {
		return g.OutDeg
	}
	d := make([]uint32, g.N)
	for v := range d {
		d[v] = uint32(g.Out.Degree(uint32(v)))
	}
	return d
}

func byNode[T any](g *Graph, xs []T) map[uint64]T {
	m := map[uint64]T{}
	for v, x := range xs {
		m[g.NodeID(uint32(v))] = x
	}
	return m
}

// sameResults runs the algorithms p serves on both graphs and compares
// their results by node id (PageRank within a relative 1e-9: its sums
// may add in another order).
func sameResults(got, want *Graph, p Projection) error {
	if want.N == 0 {
		return nil
	}
	src := want.NodeID(0)
	sg, _ := got.Vertex(src)
	switch {
	case p.Weighted:
		a, err := SSSP(&Run{}, got, sg, 2)
		if err != nil {
			return err
		}
		b, err := SSSP(&Run{}, want, 0, 2)
		if err != nil {
			return err
		}
		if x, y := byNode(got, a), byNode(want, b); fmt.Sprint(x) != fmt.Sprint(y) {
			return fmt.Errorf("sssp %v, want %v", x, y)
		}
	case p.In && !p.Out:
		a, _, err := PageRank(&Run{}, got, 0.85, 20, 0)
		if err != nil {
			return err
		}
		b, _, err := PageRank(&Run{}, want, 0.85, 20, 0)
		if err != nil {
			return err
		}
		x, y := byNode(got, a), byNode(want, b)
		for id, r := range y {
			if math.Abs(x[id]-r) > 1e-9*math.Abs(r) {
				return fmt.Errorf("pagerank of %d: %v, want %v", id, x[id], r)
			}
		}
	case p.Out && (p.In || p.Dir == Undirected):
		a, err := BFS(&Run{}, got, sg, -1)
		if err != nil {
			return err
		}
		b, err := BFS(&Run{}, want, 0, -1)
		if err != nil {
			return err
		}
		if x, y := byNode(got, a), byNode(want, b); fmt.Sprint(x) != fmt.Sprint(y) {
			return fmt.Errorf("bfs %v, want %v", x, y)
		}
		ca, err := WCC(&Run{}, got)
		if err != nil {
			return err
		}
		cb, err := WCC(&Run{}, want)
		if err != nil {
			return err
		}
		ia, err := ComponentNodeIDs(&Run{}, got, ca)
		if err != nil {
			return err
		}
		ib, err := ComponentNodeIDs(&Run{}, want, cb)
		if err != nil {
			return err
		}
		if x, y := byNode(got, ia), byNode(want, ib); fmt.Sprint(x) != fmt.Sprint(y) {
			return fmt.Errorf("wcc %v, want %v", x, y)
		}
	}
	return nil
}

// TestPatchConcurrent patches and reads the cache from several
// goroutines while commits go on (run with -race).
func TestPatchConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"A"}, Count: 200}},
		[]storage.BulkRels{{Type: "E", Src: []uint32{0, 1, 2, 3}, Dst: []uint32{1, 2, 3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := s.Catalog().LookupType("E")
	p := Projection{Out: true, In: true, HubOrder: true, Types: []catalog.TypeID{typ}}
	c := NewCache(1 << 30)
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for range 3 {
		wg.Go(func() {
			for range 50 {
				tx := s.Begin()
				got, err := ProjectCached(&Run{}, c, tx, p)
				if err == nil {
					var want *Graph
					if want, err = Project(&Run{}, tx, p); err == nil {
						err = sameGraph(got, want)
					}
				}
				tx.Rollback()
				if err != nil {
					errc <- err
					return
				}
			}
		})
	}
	for range 50 {
		tx := s.Begin()
		if _, err := tx.CreateRel(typ, uint64(rng.IntN(200)), uint64(rng.IntN(200)), nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

// TestPatchAfterVersionGone: two shapes are cached from one version, a
// commit follows and the older version is collected; the first shape's
// call then stores its patched projection, and the second shape's call
// must still find its own entry to patch instead of projecting afresh.
func TestPatchAfterVersionGone(t *testing.T) {
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"V"}, Count: 8}},
		[]storage.BulkRels{{Type: "E", Src: []uint32{0, 1, 2}, Dst: []uint32{1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := s.Catalog().LookupType("E")
	projs := []Projection{
		{Out: true, In: true, HubOrder: true, Types: []catalog.TypeID{typ}},
		{Out: true, Dir: Undirected, HubOrder: true, Types: []catalog.TypeID{typ}},
	}
	c := NewCache(1 << 30)
	call := func() {
		for _, p := range projs {
			tx := s.Begin()
			r := &Run{}
			if _, err := ProjectCached(r, c, tx, p); err != nil {
				t.Fatal(err)
			}
			r.Release()
			tx.Rollback()
		}
	}
	call()
	tx := s.Begin()
	if _, err := tx.CreateRel(typ, 4, 5, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Nothing reads the first version any more: two collections clear
	// the weak pointers to it.
	runtime.GC()
	runtime.GC()
	call()
	if st := c.Stats(); st.Patches != 2 {
		t.Fatalf("want both shapes patched after the commit: %+v", st)
	}
}
