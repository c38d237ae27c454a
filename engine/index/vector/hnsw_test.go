package vectorindex

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/storage"
)

// meanRecall is recall@k of the index against exact search, over nq
// queries taken from the data (every 37th vector).
func meanRecall(t *testing.T, ix *Index, f *Flat[float32], k, ef, nq int, m Metric, accept func(uint64) bool) float64 {
	t.Helper()
	sum := 0.0
	for qi := range nq {
		q := f.Vector(qi * 37 % len(f.IDs))
		got, err := ix.Search(q, k, ef, accept)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Exact(context.Background(), f, q, k, m, Options{Workers: 2, Accept: accept})
		if err != nil {
			t.Fatal(err)
		}
		sum += recall(got, want)
	}
	return sum / float64(nq)
}

// TestHNSWRecall: recall@10 against exact search on a clustered set of
// 5000 vectors of 32 dimensions (fixed seed).
func TestHNSWRecall(t *testing.T) {
	f := clustered(5000, 32, 25, 42)
	for _, m := range []Metric{Cosine, Euclidean} {
		start := time.Now()
		ix, err := Build(f, Config{Dim: 32, Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		if ix.Len() != len(f.IDs) {
			t.Fatalf("%d indexed, want %d", ix.Len(), len(f.IDs))
		}
		built := time.Since(start)
		r := meanRecall(t, ix, f, 10, 100, 100, m, nil)
		t.Logf("%s: built in %v, recall@10 %.3f at ef 100", m, built, r)
		if r < 0.95 {
			t.Errorf("%s: recall@10 %.3f, want ≥ 0.95", m, r)
		}
	}
}

func TestHNSWFiltered(t *testing.T) {
	f := clustered(4000, 16, 20, 3)
	ix, err := Build(f, Config{Dim: 16, Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	third := func(id uint64) bool { return id%3 == 0 }
	for qi := range 20 {
		got, err := ix.Search(f.Vector(qi*101), 10, 100, third)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 10 {
			t.Fatalf("filtered search: %d hits, want 10", len(got))
		}
		for _, h := range got {
			if !third(h.ID) {
				t.Fatalf("hit %d fails the filter", h.ID)
			}
		}
	}
	if r := meanRecall(t, ix, f, 10, 100, 50, Cosine, third); r < 0.9 {
		t.Errorf("filtered recall@10 %.3f, want ≥ 0.9", r)
	}
	// A filter nothing passes returns nothing, after fetching the whole index.
	got, err := ix.Search(f.Vector(0), 10, 50, func(uint64) bool { return false })
	if err != nil || len(got) != 0 {
		t.Fatalf("filter accepting none: %v, %v", got, err)
	}
}

func TestHNSWDeleteUpdate(t *testing.T) {
	f := clustered(3000, 16, 10, 5)
	ix, err := Build(f, Config{Dim: 16, Metric: Euclidean})
	if err != nil {
		t.Fatal(err)
	}
	for id := uint64(0); id < 3000; id += 2 {
		if !ix.Delete(id) {
			t.Fatalf("delete %d: not indexed", id)
		}
	}
	if ix.Delete(0) {
		t.Fatal("a second delete found the vector")
	}
	if ix.Len() != 1500 {
		t.Fatalf("%d indexed after deleting half, want 1500", ix.Len())
	}
	for qi := range 30 {
		got, err := ix.Search(f.Vector(qi*97), 10, 80, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range got {
			if h.ID%2 == 0 {
				t.Fatalf("deleted vector %d found", h.ID)
			}
		}
	}
	// Move vector 1 onto vector 2000's place (plus a hair): a query
	// there finds both, and a query at 1's old place no longer finds 1.
	moved := append([]float32(nil), f.Vector(2001)...)
	moved[0] += 1e-3
	if err := ix.Put(1, moved); err != nil {
		t.Fatal(err)
	}
	got, err := ix.Search(f.Vector(2001), 2, 0, nil)
	if err != nil || len(got) != 2 || got[0].ID != 2001 || got[1].ID != 1 {
		t.Fatalf("search at the updated vector: %+v, %v", got, err)
	}
	got, err = ix.Search(f.Vector(1), 1, 0, nil)
	if err != nil || len(got) != 1 || got[0].ID == 1 {
		t.Fatalf("search at the old vector: %+v, %v", got, err)
	}
	if ix.Len() != 1500 {
		t.Fatalf("an update changed the count to %d", ix.Len())
	}
	if err := ix.Put(2, []float32{1}); err == nil {
		t.Fatal("a vector of another dimension was indexed")
	}
}

func TestHNSWSaveLoad(t *testing.T) {
	f := clustered(2000, 8, 8, 9)
	for _, m := range []Metric{Cosine, Euclidean, Dot} {
		ix, err := Build(f, Config{Dim: 8, Metric: m, M: 12, EfSearch: 40})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := ix.Save(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if back.Len() != ix.Len() || back.Config() != ix.Config() {
			t.Fatalf("%s: loaded %d vectors, config %+v; want %d, %+v", m, back.Len(), back.Config(), ix.Len(), ix.Config())
		}
		for id := uint64(0); id < 2000; id += 199 {
			a, _ := ix.Vector(id)
			b, ok := back.Vector(id)
			if !ok || len(a) != len(b) || a[0] != b[0] || a[7] != b[7] {
				t.Fatalf("%s: vector %d loaded as %v, want %v", m, id, b, a)
			}
		}
		before := meanRecall(t, ix, f, 10, 100, 30, m, nil)
		after := meanRecall(t, back, f, 10, 100, 30, m, nil)
		t.Logf("%s: recall@10 %.3f saved, %.3f loaded", m, before, after)
		if after < before-0.02 {
			t.Errorf("%s: loaded index recall@10 %.3f, saved %.3f", m, after, before)
		}
	}
	if _, err := Load(bytes.NewReader([]byte("not an index at all, not at all"))); err == nil {
		t.Fatal("garbage loaded as an index")
	}
}

// Searches at the default and at another ef run while vectors are
// updated and deleted (go test -race checks the locking).
func TestHNSWConcurrent(t *testing.T) {
	f := clustered(1200, 8, 6, 13)
	ix, err := Build(f, Config{Dim: 8, Metric: Euclidean})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	for w, ef := range []int{0, 90} {
		go func() {
			for i := range 200 {
				hits, err := ix.Search(f.Vector((i*7+w)%1200), 5, ef, nil)
				if err == nil && len(hits) != 5 {
					err = fmt.Errorf("ef %d: %d hits", ef, len(hits))
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for i := range 400 {
			id := uint64(i % 1200)
			if i%2 == 0 {
				ix.Delete(id)
			} else if err := ix.Put(id, f.Vector(int(id)+1)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestHNSWBuildFromView(t *testing.T) {
	f := clustered(600, 8, 4, 21)
	v := &storage.VectorView{Dim: 8, Odd: []uint64{9999}}
	for i, id := range f.IDs {
		v.IDs = append(v.IDs, id*3) // sparse ids, as a label's nodes are
		for _, x := range f.Vector(i) {
			v.Vals = append(v.Vals, float64(x))
		}
	}
	ix, err := BuildFromView(v, Config{Dim: 8, Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 600 {
		t.Fatalf("%d indexed, want 600", ix.Len())
	}
	got, err := ix.Search(f.Vector(7), 1, 0, nil)
	if err != nil || len(got) != 1 || got[0].ID != 21 {
		t.Fatalf("search at vector 7 (node 21): %+v, %v", got, err)
	}
	if _, err := BuildFromView(v, Config{Dim: 4}); err == nil {
		t.Fatal("a view of another dimension was indexed")
	}
}
