package algo

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// projectStore is a bulk-loaded store of 2^20 nodes and 2^24 :E
// relationships, half from a small set of hubs (a skewed degree
// distribution), each with a FLOAT weight w in 1..255, built once per
// test binary.
var projectStore = sync.OnceValues(func() (*storage.Store, error) {
	const n, m = 1 << 20, 1 << 24
	rng := rand.New(rand.NewPCG(7, 8))
	src, dst := make([]uint32, m), make([]uint32, m)
	for i := range src {
		src[i] = uint32(rng.IntN(n))
		if i&1 == 0 {
			src[i] = uint32(rng.IntN(n / 64))
		}
		dst[i] = uint32(rng.IntN(n))
	}
	w := make([]float64, m)
	for i := range w {
		w[i] = float64(1 + rng.IntN(255))
	}
	return storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"V"}, Count: n}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{{Key: "w", Type: vector.Float64, F64: w}}}})
})

// BenchmarkProject builds the projections the algorithms ask for over a
// 1M-node, 16M-relationship graph on two workers.
func BenchmarkProject(b *testing.B) {
	s, err := projectStore()
	if err != nil {
		b.Fatal(err)
	}
	typ, _ := s.Catalog().LookupType("E")
	wk, _ := s.Catalog().LookupKey("w")
	for _, c := range []struct {
		name string
		p    Projection
	}{
		{"natural-out-in", Projection{Out: true, In: true}},
		{"undirected", Projection{Out: true, Dir: Undirected}},
		{"undirected-sorted", Projection{Out: true, Dir: Undirected, Sorted: true}},
		{"degree-in", Projection{OutDegree: true, In: true}},
		{"out-rels", Projection{Out: true, OutRels: true}},
		{"undirected-hole", Projection{Out: true, Dir: Undirected}},
		{"undirected-weighted", Projection{Out: true, Dir: Undirected, Weighted: true, Weight: wk, WeightName: "w"}},
		{"undirected-hub", Projection{Out: true, Dir: Undirected, HubOrder: true}},
		{"undirected-weighted-hub", Projection{Out: true, Dir: Undirected, Weighted: true, Weight: wk, WeightName: "w", HubOrder: true}},
	} {
		c.p.Types = []catalog.TypeID{typ}
		if c.name == "undirected-hole" {
			// A node created and deleted: the live set has a hole, so
			// the vertices are renumbered.
			tx := s.Begin()
			id, err := tx.CreateNode(nil, nil, nil)
			if err == nil {
				_, _, err = tx.DeleteNode(id, false)
			}
			if err == nil {
				_, err = tx.Commit()
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				tx := s.Begin()
				if _, err := Project(&Run{Workers: 2}, tx, c.p); err != nil {
					b.Fatal(err)
				}
				tx.Rollback()
			}
		})
	}
}

// mergeRuns sorts a list made of sorted runs (empty ones included) as a
// sort would.
func TestMergeRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var l lister
	for range 2000 {
		var list []uint32
		l.runs = l.runs[:0]
		const base = 100
		for range 1 + rng.IntN(5) {
			l.runs = append(l.runs, base+uint32(len(list)))
			run := make([]uint32, rng.IntN(12))
			for i := range run {
				run[i] = uint32(rng.IntN(20))
			}
			slices.Sort(run)
			list = append(list, run...)
		}
		want := slices.Sorted(slices.Values(list))
		if err := l.mergeRuns(&Run{}, list, base); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(list, want) {
			t.Fatalf("runs %v: merged %v, want %v", l.runs, list, want)
		}
	}
}

// HubOrder numbers the same vertices by decreasing degree (ties in node
// id order) and gives every node the same neighbours as node id order,
// each list sorted in the new numbering with its relationship ids and
// weights moved along, with and without a label filter, a hole in the
// node ids, and in each direction.
func TestHubOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, m = 300, 2000
	src, dst, w := make([]uint32, m), make([]uint32, m), make([]float64, m)
	for i := range src {
		src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		if i%3 == 0 {
			src[i] = uint32(rng.IntN(8)) // hubs
		}
		w[i] = float64(rng.IntN(1000))
	}
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"A"}, Count: n / 2}, {Labels: []string{"B"}, Count: n / 2}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{{Key: "w", Type: vector.Float64, F64: w}}}})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := s.Catalog().LookupType("E")
	wk, _ := s.Catalog().LookupKey("w")
	la, _ := s.Catalog().LookupLabel("A")
	for _, hole := range []bool{false, true} {
		if hole {
			tx := s.Begin()
			if _, _, err := tx.DeleteNode(5, true); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		for _, dir := range []Direction{Natural, Reverse, Undirected} {
			for _, filter := range []bool{false, true} {
				p := Projection{Types: []catalog.TypeID{typ}, Dir: dir, Out: true, In: true}
				if filter {
					p.Labels, p.FilterLabels = []catalog.LabelID{la}, true
				}
				tx := s.Begin()
				plain, err := Project(&Run{Workers: 2}, tx, p)
				if err != nil {
					t.Fatal(err)
				}
				p.HubOrder = true
				hub, err := Project(&Run{Workers: 2}, tx, p)
				if err != nil {
					t.Fatal(err)
				}
				// Out-degrees without Out take the order's count, and a
				// graph of In alone drops it.
				p.Out, p.OutDegree = false, true
				hubDeg, err := Project(&Run{Workers: 2}, tx, p)
				if err != nil {
					t.Fatal(err)
				}
				p.OutDegree = false
				hubIn, err := Project(&Run{Workers: 2}, tx, p)
				if err != nil {
					t.Fatal(err)
				}
				// Relationship ids and weights travel with their slots.
				p.In, p.Out, p.OutRels, p.Weighted, p.Weight, p.WeightName = false, true, true, true, wk, "w"
				hubW, err := Project(&Run{Workers: 2}, tx, p)
				if err != nil {
					t.Fatal(err)
				}
				p.HubOrder = false
				plainW, err := Project(&Run{Workers: 2}, tx, p)
				if err != nil {
					t.Fatal(err)
				}
				tx.Rollback()
				for _, h := range []*Graph{hub, hubIn, hubW} {
					if !h.Sorted {
						t.Fatalf("hole %t dir %d filter %t: a hub-ordered projection is not marked sorted", hole, dir, filter)
					}
				}
				where := func() string { return fmt.Sprintf("hole %t dir %d filter %t", hole, dir, filter) }
				if hub.N != plain.N || hub.N == 0 {
					t.Fatalf("%s: %d vertices, want %d", where(), hub.N, plain.N)
				}
				for v := range hub.N {
					node := hub.NodeID(uint32(v))
					if w, ok := hub.Vertex(node); !ok || w != uint32(v) {
						t.Fatalf("%s: vertex %d is node %d, which maps back to %d %t", where(), v, node, w, ok)
					}
					pv, ok := plain.Vertex(node)
					if !ok {
						t.Fatalf("%s: node %d is not a vertex of the plain projection", where(), node)
					}
					if v > 0 {
						prev, d := hub.Out.Degree(uint32(v-1)), hub.Out.Degree(uint32(v))
						if prev < d || prev == d && hub.NodeID(uint32(v-1)) > node {
							t.Fatalf("%s: vertex %d (node %d, degree %d) after node %d of degree %d", where(), v, node, d, hub.NodeID(uint32(v-1)), prev)
						}
					}
					if hubDeg.NodeID(uint32(v)) != node || int(hubDeg.OutDeg[v]) != plain.Out.Degree(pv) {
						t.Fatalf("%s: out-degree only: vertex %d is node %d of out-degree %d, want node %d of %d",
							where(), v, hubDeg.NodeID(uint32(v)), hubDeg.OutDeg[v], node, plain.Out.Degree(pv))
					}
					for _, c := range []struct{ h, p *CSR }{{&hub.Out, &plain.Out}, {&hub.In, &plain.In}, {&hubIn.In, &plain.In}, {&hubW.Out, &plainW.Out}} {
						if !slices.IsSorted(c.h.List(uint32(v))) {
							t.Fatalf("%s: vertex %d's list %v is not sorted", where(), v, c.h.List(uint32(v)))
						}
						got := nodesOf(hub, c.h.List(uint32(v)))
						want := nodesOf(plain, c.p.List(pv))
						if !slices.Equal(got, want) {
							t.Fatalf("%s: node %d has neighbours %v, want %v", where(), node, got, want)
						}
					}
					if got, want := slotsOf(hubW, uint32(v)), slotsOf(plainW, pv); !slices.Equal(got, want) {
						t.Fatalf("%s: node %d has slots %v, want %v", where(), node, got, want)
					}
				}
			}
		}
	}
}

// nodesOf is the sorted node ids of a list of g's vertices.
// slot is one Out slot of a projection with relationship ids and weights.
type slot struct {
	node, rel uint64
	w         float64
}

// slotsOf is v's Out slots, sorted.
func slotsOf(g *Graph, v uint32) []slot {
	var out []slot
	for i := g.Out.Off[v]; i < g.Out.Off[v+1]; i++ {
		out = append(out, slot{g.NodeID(g.Out.Nbr[i]), g.OutRel[i], g.OutW[i]})
	}
	slices.SortFunc(out, func(a, b slot) int {
		if a.node != b.node {
			return cmp.Compare(a.node, b.node)
		}
		return cmp.Compare(a.rel, b.rel)
	})
	return out
}

func nodesOf(g *Graph, list []uint32) []uint64 {
	out := make([]uint64, len(list))
	for i, v := range list {
		out[i] = g.NodeID(v)
	}
	slices.Sort(out)
	return out
}

// TestIntegerWeights projects the same weights stored as INTEGER (read
// through the slot-ordered integer view) and as FLOAT, before and after
// a commit that makes some lists dirty: the lists, their relationship
// ids and their weights agree. A negative INTEGER weight is reported
// with its relationship.
func TestIntegerWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, m = 300, 4000
	src, dst := make([]uint32, m), make([]uint32, m)
	w, iw := make([]float64, m), make([]int64, m)
	for i := range src {
		src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		iw[i] = int64(rng.IntN(1000))
		w[i] = float64(iw[i])
	}
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"V"}, Count: n}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{
			{Key: "w", Type: vector.Float64, F64: w}, {Key: "iw", Type: vector.Int64, I64: iw}}}})
	if err != nil {
		t.Fatal(err)
	}
	cat := s.Catalog()
	typ, _ := cat.LookupType("E")
	wk, _ := cat.LookupKey("w")
	iwk, _ := cat.LookupKey("iw")
	compare := func(when string) {
		for _, dir := range []Direction{Natural, Undirected} {
			p := Projection{Out: true, OutRels: true, Dir: dir, HubOrder: true, Weighted: true, Types: []catalog.TypeID{typ}}
			fp, ip := p, p
			fp.Weight, fp.WeightName = wk, "w"
			ip.Weight, ip.WeightName = iwk, "iw"
			tx := s.Begin()
			fg, err := Project(&Run{Workers: 2}, tx, fp)
			if err != nil {
				t.Fatal(err)
			}
			ig, err := Project(&Run{Workers: 2}, tx, ip)
			if err != nil {
				t.Fatal(err)
			}
			tx.Rollback()
			if err := sameGraph(ig, fg); err != nil {
				t.Fatalf("%s, direction %d: %v", when, dir, err)
			}
		}
	}
	compare("bulk-loaded")
	tx := s.Begin()
	for range 20 {
		v := int64(rng.IntN(1000))
		if _, err := tx.CreateRel(typ, uint64(rng.IntN(n)), uint64(rng.IntN(n)), []catalog.KeyID{wk, iwk}, []vector.Value{float64(v), v}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	compare("after a commit")
	tx = s.Begin()
	bad, err := tx.CreateRel(typ, 1, 2, []catalog.KeyID{wk, iwk}, []vector.Value{1.0, int64(-3)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = s.Begin()
	defer tx.Rollback()
	_, err = Project(&Run{}, tx, Projection{Out: true, HubOrder: true, Weighted: true, Weight: iwk, WeightName: "iw", Types: []catalog.TypeID{typ}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("relationship %d has weight iw = -3", bad)) {
		t.Fatalf("a negative INTEGER weight: %v", err)
	}
}

// TestHubOrderWorkers builds symmetric hub-ordered projections (filled
// in node id order by the workers, each list sorted in the new
// numbering) with 1 to 5 workers: every build gives the same arrays, bit
// for bit, every list is sorted, and the lists are those of a
// projection in node id order.
func TestHubOrderWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, m = 500, 6000
	src, dst := make([]uint32, m), make([]uint32, m)
	w := make([]float64, m)
	for i := range src {
		src[i], dst[i] = uint32(rng.IntN(n/10)), uint32(rng.IntN(n))
		if i%3 == 0 {
			src[i], dst[i] = dst[i], src[i]
		}
		w[i] = float64(rng.IntN(50))
	}
	src[0], dst[0] = 7, 7 // a self-loop
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"V"}, Count: n}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{{Key: "w", Type: vector.Float64, F64: w}}}})
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := s.Catalog().LookupType("E")
	wk, _ := s.Catalog().LookupKey("w")
	for _, p := range []Projection{
		{Out: true},
		{Out: true, OutRels: true, Weighted: true, Weight: wk, WeightName: "w"},
		{Out: true, Weighted: true, Weight: wk, WeightName: "w"},
	} {
		p.Dir, p.HubOrder, p.Types = Undirected, true, []catalog.TypeID{typ}
		tx := s.Begin()
		var first *Graph
		for workers := 1; workers <= 5; workers++ {
			g, err := Project(&Run{Workers: workers}, tx, p)
			if err != nil {
				t.Fatal(err)
			}
			for v := range uint32(g.N) {
				if !slices.IsSorted(g.Out.List(v)) {
					t.Fatalf("%d workers: vertex %d's list is not sorted", workers, v)
				}
			}
			if first == nil {
				first = g
				continue
			}
			if !slices.Equal(g.Out.Off, first.Out.Off) || !slices.Equal(g.Out.Nbr, first.Out.Nbr) ||
				!slices.Equal(g.OutRel, first.OutRel) || !slices.Equal(g.OutW, first.OutW) {
				t.Fatalf("%d workers: the arrays differ from 1 worker's", workers)
			}
		}
		// The same lists as a projection in node id order.
		q := p
		q.HubOrder = false
		want, err := Project(&Run{}, tx, q)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameGraph(first, want); err != nil {
			t.Fatal(err)
		}
		tx.Rollback()
	}
}

// TestWeightViewsStop: a weighted projection's first call builds the
// weights' slot-ordered views in parts on the run's workers, checking
// the stop between parts. A stopped build fails with the stop error;
// the next call builds them whole, and every slot carries the weight of
// its relationship, FLOAT or INTEGER, in both directions.
func TestWeightViewsStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n, m = 5000, 200_000
	src, dst := make([]uint32, m), make([]uint32, m)
	w, iw := make([]float64, m), make([]int64, m)
	for i := range src {
		src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		iw[i] = 1 + int64(rng.IntN(1000))
		w[i] = float64(iw[i]) + 0.5
	}
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"V"}, Count: n}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{
			{Key: "w", Type: vector.Float64, F64: w}, {Key: "iw", Type: vector.Int64, I64: iw}}}})
	if err != nil {
		t.Fatal(err)
	}
	cat := s.Catalog()
	typ, _ := cat.LookupType("E")
	stopErr := errors.New("stopped")
	for _, key := range []string{"w", "iw"} {
		k, _ := cat.LookupKey(key)
		p := Projection{Out: true, OutRels: true, Dir: Undirected, Weighted: true, Weight: k, WeightName: key, Types: []catalog.TypeID{typ}}
		tx := s.Begin()
		// Each of the two workers may check once before it sees the
		// other's failure; none checks twice.
		var stops atomic.Int64
		_, err := Project(&Run{Workers: 2, Stop: func() error { stops.Add(1); return stopErr }}, tx, p)
		if n := stops.Load(); !errors.Is(err, stopErr) || n < 1 || n > 2 {
			t.Fatalf("%s: %v after %d stop checks, want the stop error at each worker's first", key, err, n)
		}
		g, err := Project(&Run{Workers: 2}, tx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.OutW) != 2*m {
			t.Fatalf("%s: %d weights, want %d", key, len(g.OutW), 2*m)
		}
		for s, rel := range g.OutRel {
			var want float64
			switch x := tx.RelProp(rel, k).(type) {
			case float64:
				want = x
			case int64:
				want = float64(x)
			}
			if g.OutW[s] != want || want == 0 {
				t.Fatalf("%s: slot %d (relationship %d) weighs %v, want %v", key, s, rel, g.OutW[s], want)
			}
		}
		tx.Rollback()
	}
}
