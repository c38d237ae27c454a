package storage

import (
	"math"
	"math/rand"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestFloatView compares the float view of a FLOAT column (some ids
// without a value) with the values loaded, id by id and summed over
// random id lists in their order; a column that also holds an INTEGER
// has no float view.
func TestFloatView(t *testing.T) {
	const n = 5000
	vals := make([]float64, n)
	null := make([]bool, n)
	for i := range vals {
		vals[i] = float64(i)*0.37 - 600
		null[i] = i%7 == 0
	}
	mixed := []BulkColumn{{Key: "m", Type: vector.Float64, F64: make([]float64, n)}}
	s, err := BulkLoad([]BulkNodes{
		{Labels: []string{"P"}, Count: n, Cols: []BulkColumn{{Key: "f", Type: vector.Float64, F64: vals, Null: null}}},
		{Labels: []string{"Q"}, Count: 10, Cols: []BulkColumn{{Key: "m", Type: vector.Int64, I64: make([]int64, 10)}}},
		{Labels: []string{"R"}, Count: n, Cols: mixed},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	k, _ := s.Catalog().LookupKey("f")
	v := snap.NodeFloatView(k, math.MaxInt32)
	if v == nil {
		t.Fatal("no float view")
	}
	for id := range uint64(n + 10) {
		x, ok := v.Get(id)
		want := id < n && !null[id]
		if ok != want || ok && x != vals[id] {
			t.Fatalf("id %d: %v %v, want %v %v", id, x, ok, vals[min(id, n-1)], want)
		}
	}
	rnd := rand.New(rand.NewSource(1))
	for range 50 {
		ids := make([]uint64, rnd.Intn(2000))
		var want FloatSummary
		for i := range ids {
			ids[i] = uint64(rnd.Intn(n + 100))
			if ids[i] < n && !null[ids[i]] {
				want.Sum += vals[ids[i]]
				want.N++
			}
		}
		var got FloatSummary
		v.Summarize(ids, &got)
		if got != want {
			t.Fatalf("summary of %d ids: %+v, want %+v", len(ids), got, want)
		}
	}
	if km, _ := s.Catalog().LookupKey("m"); snap.NodeFloatView(km, math.MaxInt32) != nil {
		t.Error("a column holding an INTEGER has a float view")
	}
	if ki, _ := s.Catalog().LookupKey("f"); snap.NodeIntView(ki, math.MaxInt32) != nil {
		t.Error("a FLOAT column has an integer view")
	}
}

// TestFloatViewAfterWrites: a write in a transaction gives that
// transaction a view with its value, a second write to the column it now
// owns drops that view, and the old snapshot's view is unchanged.
func TestFloatViewAfterWrites(t *testing.T) {
	const n = 3*GroupSize + 100
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i) / 4
	}
	s, err := BulkLoad([]BulkNodes{{Labels: []string{"P"}, Count: n, Cols: []BulkColumn{{Key: "f", Type: vector.Float64, F64: vals}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := s.Catalog().LookupKey("f")
	keys := []catalog.KeyID{f}
	old := s.Snapshot()
	v0 := old.NodeFloatView(f, math.MaxInt32)
	if v0 == nil {
		t.Fatal("no view of the bulk column")
	}
	tx := s.Begin()
	if err := tx.SetNodeProps(5, keys, []vector.Value{99.5}); err != nil {
		t.Fatal(err)
	}
	v1 := tx.NodeFloatView(f, math.MaxInt32)
	if x, ok := v1.Get(5); v1 == nil || !ok || x != 99.5 {
		t.Fatalf("tx view of 5 = %v %v", x, ok)
	}
	if err := tx.SetNodeProps(6, keys, []vector.Value{nil}); err != nil {
		t.Fatal(err)
	}
	v2 := tx.NodeFloatView(f, math.MaxInt32)
	if v2 == nil || v2 == v1 {
		t.Fatalf("the second write kept the view: %p %p", v1, v2)
	}
	if _, ok := v2.Get(6); ok {
		t.Fatal("removed value still in the view")
	}
	if x, _ := v0.Get(5); x != 1.25 || old.NodeFloatView(f, 1) != v0 {
		t.Fatalf("old snapshot's view changed: %v", x)
	}
}
