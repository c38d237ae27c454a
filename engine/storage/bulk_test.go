package storage

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// TestBulkLoad builds a graph spanning several chunk groups, with a key
// shared by two node sets of different types, nulls, and a self loop, and
// checks its invariants, values and adjacency; then a base round trip.
func TestBulkLoad(t *testing.T) {
	const n = 5000
	ages := make([]int64, n)
	null := make([]bool, n)
	for i := range ages {
		ages[i] = int64(i % 90)
		null[i] = i%7 == 0
	}
	src := []uint32{0, 1, 4999, 5001, 5001}
	dst := []uint32{1, 0, 5001, 5001, 2}
	s, err := BulkLoad([]BulkNodes{
		{Labels: []string{"Person"}, Count: n, Cols: []BulkColumn{{Key: "age", Type: vector.Int64, I64: ages, Null: null}}},
		{Labels: []string{"City", "Place"}, Count: 3, Cols: []BulkColumn{
			{Key: "age", Type: vector.String, Str: []string{"old", "new", "mid"}},
			{Key: "founded", Type: vector.Any, Any: []vector.Value{temporal.Date{Days: 1}, nil, temporal.Date{Days: 3}}},
		}},
	}, []BulkRels{{Type: "R", Src: src, Dst: dst, Cols: []BulkColumn{{Key: "w", Type: vector.Float64, F64: []float64{1, 2, 3, 4, 5}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	v := s.Snapshot()
	cat := s.Catalog()
	age, _ := cat.LookupKey("age")
	founded, _ := cat.LookupKey("founded")
	city, _ := cat.LookupLabel("City")
	if v.NodeCount() != n+3 || v.RelCount() != 5 || v.LabelNodes(city).GetCardinality() != 3 || !v.HasLabel(5002, city) {
		t.Fatalf("counts %d %d", v.NodeCount(), v.RelCount())
	}
	if got := v.nodeCol(age).get(4001); got != int64(4001%90) {
		t.Fatalf("age of 4001 = %v", got)
	}
	if got := v.nodeCol(age).get(7); got != nil {
		t.Fatalf("null age = %v", got)
	}
	if got := v.nodeCol(age).get(5001); got != "new" {
		t.Fatalf("age of city 1 = %v", got)
	}
	if got := v.nodeCol(founded).get(5002); got != (temporal.Date{Days: 3}) {
		t.Fatalf("founded = %v", got)
	}
	if v.NodePropType(age) != vector.Any {
		t.Fatalf("mixed column type %s", v.NodePropType(age))
	}
	typ, _ := cat.LookupType("R")
	nb, rels := v.Adjacency(typ, Incoming).AppendNeighbors(nil, nil, 5001)
	// Relationships are numbered in forward slot order (by source, then
	// target): input rows 0 1 2 4 3 get ids 0 1 2 3 4.
	if len(nb) != 2 || nb[0] != 4999 || nb[1] != 5001 || rels[0] != 2 || rels[1] != 4 {
		t.Fatalf("incoming of 5001: %v %v", nb, rels)
	}
	if ty, a, b, ok := v.Rel(3); !ok || ty != typ || a != 5001 || b != 2 {
		t.Fatalf("rel 3: %v %d %d %v", ty, a, b, ok)
	}
	w, _ := cat.LookupKey("w")
	if got := v.relCol(w).get(3); got != 5.0 {
		t.Fatalf("w of rel 3 (input row 4) = %v", got)
	}
	if got := v.relCol(w).get(4); got != 4.0 {
		t.Fatalf("w of rel 4 (input row 3) = %v", got)
	}
	got := saveAndOpen(t, s, t.TempDir())
	if err := got.Check(); err != nil {
		t.Fatal(err)
	}
	equalSnapshots(t, v, got.Snapshot())
}

func TestBulkLoadErrors(t *testing.T) {
	if _, err := BulkLoad([]BulkNodes{{Count: 1}}, []BulkRels{{Type: "R", Src: []uint32{0}, Dst: []uint32{1}}}); err == nil {
		t.Fatal("dangling endpoint accepted")
	}
	if _, err := BulkLoad([]BulkNodes{{Count: 2, Cols: []BulkColumn{{Key: "k", Type: vector.Int64, I64: []int64{1}}}}}, nil); err == nil {
		t.Fatal("short column accepted")
	}
}

// TestBulkLoadParallelEdges: parallel edges in both directions keep both
// CSRs sorted by (neighbour, id) after renumbering (Check verifies it).
func TestBulkLoadParallelEdges(t *testing.T) {
	src := []uint32{1, 0, 1, 0, 0, 2, 1}
	dst := []uint32{0, 1, 0, 1, 1, 1, 0}
	s, err := BulkLoad([]BulkNodes{{Count: 3}}, []BulkRels{{Type: "A", Src: src[:4], Dst: dst[:4]}, {Type: "B", Src: src[4:], Dst: dst[4:]}, {Type: "A", Src: []uint32{2}, Dst: []uint32{0}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	v := s.Snapshot()
	for id := uint64(0); id < 8; id++ {
		if _, _, _, ok := v.Rel(id); !ok {
			t.Fatalf("relationship %d missing", id)
		}
	}
	got := saveAndOpen(t, s, t.TempDir())
	equalSnapshots(t, v, got.Snapshot())
}

// TestBulkLoadOrder loads random sets with parallel edges and self-loops,
// two sets sharing a type, one set spanning several groups, and checks every relationship against its
// input row (the property w is the row's global number): type,
// endpoints, and ids in forward order, by source, then target, then row.
func TestBulkLoadOrder(t *testing.T) {
	for _, w := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", w), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w))
			defer func(m int) { parallelSortMin = m }(parallelSortMin)
			parallelSortMin = 100
			testBulkLoadOrder(t)
		})
	}
}

func testBulkLoadOrder(t *testing.T) {
	const n = 50
	rng := rand.New(rand.NewPCG(1, 2))
	type row struct{ typ, src, dst, w int }
	var rows []row
	var sets []BulkRels
	// C, one set over several chunk groups, takes the typed gather.
	for i, typ := range []string{"A", "B", "A", "C"} {
		m := 300 + 100*i
		if typ == "C" {
			m = 3*GroupSize + 100
		}
		src, dst := make([]uint32, m), make([]uint32, m)
		w := make([]int64, m)
		for r := range m {
			src[r], dst[r] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
			if r%10 == 0 && r > 0 { // a parallel edge
				src[r], dst[r] = src[r-1], dst[r-1]
			}
			w[r] = int64(len(rows))
			rows = append(rows, row{int(typ[0] - 'A'), int(src[r]), int(dst[r]), len(rows)})
		}
		sets = append(sets, BulkRels{Type: typ, Src: src, Dst: dst, Cols: []BulkColumn{{Key: "w", Type: vector.Int64, I64: w}}})
	}
	s, err := BulkLoad([]BulkNodes{{Count: n}}, sets)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	// The expected numbering: type A's rows, then B's, each sorted by
	// (source, target, row).
	want := slices.Clone(rows)
	slices.SortStableFunc(want, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.src, b.src), cmp.Compare(a.dst, b.dst), cmp.Compare(a.w, b.w))
	})
	v := s.Snapshot()
	w, _ := s.Catalog().LookupKey("w")
	for id, r := range want {
		ty, a, b, ok := v.Rel(uint64(id))
		if !ok || int(ty) != r.typ || int(a) != r.src || int(b) != r.dst {
			t.Fatalf("rel %d = %d %d->%d %v, want %+v", id, ty, a, b, ok, r)
		}
		if got := v.relCol(w).get(uint64(id)); got != int64(r.w) {
			t.Fatalf("w of rel %d = %v, want %d", id, got, r.w)
		}
	}
	got := saveAndOpen(t, s, t.TempDir())
	equalSnapshots(t, v, got.Snapshot())
}
