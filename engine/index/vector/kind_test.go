package vectorindex

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

func TestCheckOptions(t *testing.T) {
	def := func(o *catalog.VectorOptions, keys ...string) *catalog.Index {
		return &catalog.Index{Name: "v", Type: catalog.Vector, Label: "L", Keys: keys, Vector: o}
	}
	for _, c := range []struct {
		def  *catalog.Index
		want string
	}{
		{def(nil, "e"), "must give dimensions"},
		{def(&catalog.VectorOptions{Dimensions: -1}, "e"), "dimensions must be from 1"},
		{def(&catalog.VectorOptions{Dimensions: MaxDimensions + 1}, "e"), "dimensions must be from 1"},
		{def(&catalog.VectorOptions{Dimensions: 3, Similarity: "jaccard"}, "e"), "unknown similarity"},
		{def(&catalog.VectorOptions{Dimensions: 3, M: 1}, "e"), "m must be"},
		{def(&catalog.VectorOptions{Dimensions: 3, M: MaxM + 1}, "e"), "m must be"},
		{def(&catalog.VectorOptions{Dimensions: 3, EfConstruction: -5}, "e"), "ef_construction"},
		{def(&catalog.VectorOptions{Dimensions: 3}, "e", "f"), "exactly one property"},
	} {
		err := Kind{}.Check(c.def)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodeInvalidParam || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want 22023 with %q", c.def.Vector, err, c.want)
		}
	}
	if err := (Kind{}).Check(def(&catalog.VectorOptions{Dimensions: 3, Similarity: "DOT", M: 4, EfConstruction: 10}, "e")); err != nil {
		t.Errorf("good options: %v", err)
	}
}

// vstore is a store with a VECTOR index on :Doc(e) (dimension 4) kept by
// a Manager.
type vstore struct {
	s   *storage.Store
	m   *index.Manager
	doc catalog.LabelID
	key catalog.KeyID
}

func newVStore(t *testing.T, nodes int) *vstore {
	s := storage.New()
	cat := s.Catalog()
	st := &vstore{s: s, doc: cat.EnsureLabel("Doc"), key: cat.EnsureKey("e")}
	r := rand.New(rand.NewPCG(1, 2))
	st.commit(t, func(tx *storage.Tx) error {
		for range nodes {
			if _, err := tx.CreateNode([]catalog.LabelID{st.doc}, []catalog.KeyID{st.key}, []vector.Value{randVec(r)}); err != nil {
				return err
			}
		}
		return nil
	})
	st.m = index.NewManager(s, cat, map[catalog.IndexType]index.Kind{catalog.Vector: Kind{}})
	t.Cleanup(st.m.Close)
	st.commit(t, func(tx *storage.Tx) error {
		return tx.CreateIndex(catalog.Index{Name: "docs", Type: catalog.Vector, Label: "Doc", Keys: []string{"e"},
			Vector: &catalog.VectorOptions{Dimensions: 4, Similarity: "euclidean"}})
	})
	return st
}

func randVec(r *rand.Rand) []vector.Value {
	v := make([]vector.Value, 4)
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	return v
}

func (st *vstore) commit(t *testing.T, f func(tx *storage.Tx) error) {
	t.Helper()
	tx := st.s.Begin()
	if err := f(tx); err != nil {
		t.Error(err)
		tx.Rollback()
		return
	}
	if _, err := tx.Commit(); err != nil {
		t.Error(err)
	}
}

// search answers at tx through the index (ok false: it could not) and
// exactly, by scoring every labelled node tx reads.
func (st *vstore) search(t *testing.T, tx *storage.Tx, q []float64, k int) (got, want []Hit, ok bool) {
	t.Helper()
	def := tx.Schema().Index("docs")
	e, err := st.m.Lookup(def)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Await(ctx, tx.BaseTS()); err != nil {
		t.Fatal(err)
	}
	x := e.Index().(*Managed)
	got, ok, err = x.Search(ctx, tx, Query{Vector: q, K: k, Ef: 400, TS: tx.BaseTS(), Own: index.Touched(tx.Ops(), false)})
	if err != nil {
		t.Fatal(err)
	}
	top := newTopK(k)
	it := tx.LabelNodes(st.doc).Iterator()
	for it.HasNext() {
		id := uint64(it.Next())
		if v, vok := x.vectorOf(tx, id); vok {
			s, _ := score(Euclidean, q, v, vector.Norm(q))
			top.offer(Hit{ID: id, Score: s})
		}
	}
	return got, top.sorted(), ok
}

// Under a writer updating, deleting, creating and relabelling nodes, a
// search at each held snapshot answers what an exact scan of that
// snapshot does: no newer vector, no missed older one; and a transaction
// sees its own writes.
func TestSearchAtSnapshots(t *testing.T) {
	st := newVStore(t, 300)
	r := rand.New(rand.NewPCG(3, 4))
	q := []float64{0.2, -0.1, 0.3, 0}
	var held []*storage.Tx
	for round := range 12 {
		held = append(held, st.s.Begin())
		st.commit(t, func(tx *storage.Tx) error {
			for range 20 {
				id := uint64(r.IntN(300 + round))
				var err error
				switch r.IntN(5) {
				case 0:
					err = tx.SetNodeProps(id, []catalog.KeyID{st.key}, []vector.Value{randVec(r)})
				case 1:
					err = tx.SetNodeProps(id, []catalog.KeyID{st.key}, []vector.Value{nil})
				case 2:
					_, err = tx.RemoveLabels(id, []catalog.LabelID{st.doc})
				case 3:
					_, _, err = tx.DeleteNode(id, true)
				default:
					_, err = tx.CreateNode([]catalog.LabelID{st.doc}, []catalog.KeyID{st.key}, []vector.Value{[]vector.Value{0.2, -0.1, 0.3, r.Float64() * 0.01}})
				}
				if err != nil && !missing(err) {
					return err
				}
			}
			return nil
		})
	}
	for i, tx := range held {
		got, want, ok := st.search(t, tx, q, 10)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("snapshot %d (answered %v):\n got %v\nwant %v", i, ok, got, want)
		}
		tx.Rollback()
	}
	// Own writes: a new nearest node and a deleted one.
	w := st.s.Begin()
	defer w.Rollback()
	id, err := w.CreateNode([]catalog.LabelID{st.doc}, []catalog.KeyID{st.key}, []vector.Value{[]vector.Value{0.2, -0.1, 0.3, 0.0}})
	if err != nil {
		t.Fatal(err)
	}
	got, want, ok := st.search(t, w, q, 5)
	if !ok || !slices.Equal(got, want) || got[0].ID != id || got[0].Score != 1 {
		t.Errorf("own writes:\n got %v\nwant %v", got, want)
	}
}

// missing reports the error of a write to a node that is gone (a 22000).
func missing(err error) bool {
	e, ok := errs.As(err)
	return ok && e.Code == errs.CodeData
}

// A snapshot older than the change log keeps is not answered by the
// index (the caller searches exactly).
func TestSearchBeyondHorizon(t *testing.T) {
	defer func(d time.Duration) { RetainChanges = d }(RetainChanges)
	RetainChanges = 0
	st := newVStore(t, 50)
	old := st.s.Begin()
	defer old.Rollback()
	st.commit(t, func(tx *storage.Tx) error {
		return tx.SetNodeProps(1, []catalog.KeyID{st.key}, []vector.Value{[]vector.Value{1.0, 1.0, 1.0, 1.0}})
	})
	time.Sleep(time.Millisecond) // the next commit is later than RetainChanges (0) after it
	st.commit(t, func(tx *storage.Tx) error {
		return tx.SetNodeProps(2, []catalog.KeyID{st.key}, []vector.Value{[]vector.Value{1.0, 1.0, 1.0, 1.0}})
	})
	// Searching now first waits until the index applied both commits
	// (the second pruned the first's log entry).
	now := st.s.Begin()
	defer now.Rollback()
	if got, want, ok := st.search(t, now, []float64{1, 0, 0, 0}, 3); !ok || !slices.Equal(got, want) {
		t.Errorf("now (answered %v): %v, want %v", ok, got, want)
	}
	if _, _, ok := st.search(t, old, []float64{1, 0, 0, 0}, 3); ok {
		t.Errorf("a snapshot older than the change log was answered by the index")
	}
}

// Searches run while a writer commits (go test -race).
func TestSearchConcurrentWithApply(t *testing.T) {
	st := newVStore(t, 200)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(5, 6))
		for range 40 {
			st.commit(t, func(tx *storage.Tx) error {
				return tx.SetNodeProps(uint64(r.IntN(200)), []catalog.KeyID{st.key}, []vector.Value{randVec(r)})
			})
		}
	}()
	for range 40 {
		tx := st.s.Begin()
		got, want, ok := st.search(t, tx, []float64{0.5, 0.5, 0, 0}, 5)
		tx.Rollback()
		if !ok || !slices.Equal(got, want) {
			t.Errorf("answered %v: %v, want %v", ok, got, want)
			break
		}
	}
	wg.Wait()
}

// Populate reports progress and a FAILED-free ONLINE state.
func TestPopulateProgress(t *testing.T) {
	st := newVStore(t, 100)
	def := st.s.Snapshot().Schema().Index("docs")
	e, err := st.m.Lookup(def)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if s, pct := st.m.State(def); s != index.StateOnline || pct != 100 {
		t.Errorf("state %s %.0f", s, pct)
	}
	if n := e.Index().(*Managed).Len(); n != 100 {
		t.Errorf("indexed %d, want 100", n)
	}
}
