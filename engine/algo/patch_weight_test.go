package algo

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// weightStore is a bulk-loaded graph of 200 nodes and 6,000
// relationships (three chunks of the weight columns) with a FLOAT weight
// w and an INTEGER weight iw, both 1..9.
func weightStore(t *testing.T) (s *storage.Store, typ catalog.TypeID, wk, iwk catalog.KeyID) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	const n, m = 200, 6000
	src, dst := make([]uint32, m), make([]uint32, m)
	w, iw := make([]float64, m), make([]int64, m)
	for i := range src {
		src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		iw[i] = int64(1 + rng.IntN(9))
		w[i] = float64(iw[i])
	}
	s, err := storage.BulkLoad([]storage.BulkNodes{{Labels: []string{"V"}, Count: n}},
		[]storage.BulkRels{{Type: "E", Src: src, Dst: dst, Cols: []storage.BulkColumn{
			{Key: "w", Type: vector.Float64, F64: w}, {Key: "iw", Type: vector.Int64, I64: iw}}}})
	if err != nil {
		t.Fatal(err)
	}
	cat := s.Catalog()
	typ, _ = cat.LookupType("E")
	wk, _ = cat.LookupKey("w")
	iwk, _ = cat.LookupKey("iw")
	return s, typ, wk, iwk
}

// TestPatchWeights commits weight changes one at a time (a weight
// changed, one set to the value it holds, a relationship created and
// one deleted, a weight removed and set again) and checks after each that
// the cache's patched projection of FLOAT and of INTEGER weights equals
// a fresh one, lists, results and weight sum, or fails as a fresh one
// does while a projected relationship has no weight.
func TestPatchWeights(t *testing.T) {
	s, typ, wk, iwk := weightStore(t)
	projs := map[string]Projection{
		"float":      {Out: true, Dir: Undirected, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w"},
		"int":        {Out: true, Dir: Undirected, HubOrder: true, Weighted: true, Weight: iwk, WeightName: "iw"},
		"float-rels": {Out: true, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w", OutRels: true},
	}
	for name, p := range projs {
		p.Types = []catalog.TypeID{typ}
		projs[name] = p
	}
	set := func(id uint64, w vector.Value, iw vector.Value) func(tx *storage.Tx) error {
		return func(tx *storage.Tx) error {
			return tx.SetRelProps(id, []catalog.KeyID{wk, iwk}, []vector.Value{w, iw})
		}
	}
	steps := []struct {
		name    string
		write   func(tx *storage.Tx) error
		missing bool // a projected relationship has no weight
	}{
		{"nothing", nil, false},
		{"changed", set(10, 7.5, int64(100)), false},
		{"changed again", set(10, 2.0, int64(0)), false},
		{"same value", func(tx *storage.Tx) error { // what it holds already
			return tx.SetRelProps(12, []catalog.KeyID{wk, iwk}, []vector.Value{tx.RelProp(12, wk), tx.RelProp(12, iwk)})
		}, false},
		{"created", func(tx *storage.Tx) error {
			_, err := tx.CreateRel(typ, 5, 6, []catalog.KeyID{wk, iwk}, []vector.Value{0.25, int64(2)})
			return err
		}, false},
		{"deleted", func(tx *storage.Tx) error {
			_, err := tx.DeleteRel(4000)
			return err
		}, false},
		{"removed", set(20, nil, nil), true},
		{"restored", set(20, 1.0, int64(1)), false},
	}
	c := NewCache(1 << 30)
	for step, st := range steps {
		if st.write != nil {
			tx := s.Begin()
			if err := st.write(tx); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if _, err := tx.Commit(); err != nil {
				t.Fatalf("%s: commit: %v", st.name, err)
			}
		}
		for name, p := range projs {
			tx := s.Begin()
			r := &Run{}
			got, err := ProjectCached(r, c, tx, p)
			want, werr := Project(&Run{}, tx, p)
			if st.missing {
				e, ok := errs.As(err)
				fe, fok := errs.As(werr)
				if !ok || !fok || e.Code != fe.Code || e.Message != fe.Message {
					t.Fatalf("%s %s: %v, want the fresh projection's %v", st.name, name, err, werr)
				}
				r.Release()
				tx.Rollback()
				continue
			}
			if err != nil || werr != nil {
				t.Fatalf("%s %s: %v, fresh: %v", st.name, name, err, werr)
			}
			if err := sameGraph(got, want); err != nil {
				t.Fatalf("%s %s: %v", st.name, name, err)
			}
			// Lists reread at their length keep the CSR packed, until a
			// list grows. The failed patch (removed) dropped its entry:
			// the next call builds afresh.
			if packed := step <= 3 || st.name == "restored"; packed != (got.Out.End == nil) {
				t.Fatalf("%s %s: packed %t, want %t", st.name, name, got.Out.End == nil, packed)
			}
			if err := sameResults(got, want, p); err != nil {
				t.Fatalf("%s %s: %v", st.name, name, err)
			}
			// Integer weights: every sum is exact, the carried one too.
			if a, _ := weightSum(&Run{}, got); a != sumOf(want.OutW) {
				t.Fatalf("%s %s: weight sum %v, want %v", st.name, name, a, sumOf(want.OutW))
			}
			r.Release()
			tx.Rollback()
		}
	}
	if st := c.Stats(); st.InPlace == 0 {
		t.Fatalf("nothing patched in place: %+v", st)
	}
}

// TestDirtyWeights: a commit that sets one relationship's weight copies
// the chunk of 2,048 relationships around it, but only that
// relationship's ends are reread; setting a weight to the value it has
// rereads nothing.
func TestDirtyWeights(t *testing.T) {
	s, typ, wk, _ := weightStore(t)
	p := Projection{Out: true, Dir: Undirected, HubOrder: true, Weighted: true, Weight: wk, WeightName: "w",
		Types: []catalog.TypeID{typ}}
	for _, tc := range []struct {
		w    float64
		want func(src, dst uint64) []uint64
	}{
		{100, func(src, dst uint64) []uint64 { return []uint64{src, dst} }},
		{100, func(uint64, uint64) []uint64 { return nil }}, // the value it has now
	} {
		before := s.Begin()
		snap0 := before.Committed()
		src0 := sourceOf(snap0, p)
		tx := s.Begin()
		const id = 1000
		_, a, b, ok := tx.Rel(id)
		if !ok {
			t.Fatal("no relationship 1000")
		}
		if err := tx.SetRelProps(id, []catalog.KeyID{wk}, []vector.Value{tc.w}); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		after := s.Begin()
		snap1 := after.Committed()
		if snap1 == snap0 {
			t.Fatal("the commit made no version")
		}
		src1 := sourceOf(snap1, p)
		if src1.weight == src0.weight {
			t.Fatal("the weight column is the same")
		}
		out, in, ok := dirtyNodes(snap1, p, true, src0, src1, nil, nil)
		if !ok || in != nil {
			t.Fatalf("dirty: %v %v %v", out, in, ok)
		}
		slices.Sort(out)
		want := tc.want(a, b)
		slices.Sort(want)
		if !slices.Equal(slices.Compact(out), slices.Compact(want)) {
			t.Fatalf("weight %v of %d (%d-%d): dirty %v, want %v", tc.w, id, a, b, out, want)
		}
		before.Rollback()
		after.Rollback()
	}
}

// TestSameWeight: values give the same weight when both absent or both
// valid weights of the same float, an INTEGER as its float.
func TestSameWeight(t *testing.T) {
	for _, tc := range []struct {
		a, b vector.Value
		same bool
	}{
		{nil, nil, true},
		{1.0, 1.0, true},
		{int64(3), 3.0, true},
		{int64(3), int64(3), true},
		{1.0, nil, false},
		{nil, int64(1), false},
		{1.0, 2.0, false},
		{-1.0, -1.0, false}, // invalid: reread, so that the error is a fresh projection's
		{"x", "x", false},
	} {
		if got := sameWeight(tc.a, tc.b); got != tc.same {
			t.Errorf("sameWeight(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
