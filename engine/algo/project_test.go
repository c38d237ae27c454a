package algo

import (
	"math/rand/v2"
	"slices"
	"sync"
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
