package storage

import (
	"math/rand"
	"runtime"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// BenchmarkVectorColumn stores 32,768 embeddings of 128 FLOATs in one
// commit and reports the live heap per vector they take (and the time of
// the commit), then times building the column's VectorView (a search's
// first step on a version) and reading every vector back as a value.
func BenchmarkVectorColumn(b *testing.B) {
	b.Run("store", func(b *testing.B) {
		for b.Loop() {
			s, heap := storeVectors(b)
			b.ReportMetric(heap, "heap-B/vector")
			runtime.KeepAlive(s)
		}
	})
	s, _ := storeVectors(b)
	snap := s.Snapshot()
	k := s.Catalog().EnsureKey("e")
	const n, dim = 32768, 128
	b.Run("view", func(b *testing.B) {
		for b.Loop() {
			if v := buildVectorView(snap.nodeCol(k), dim); len(v.IDs) != n {
				b.Fatalf("%d vectors in the view", len(v.IDs))
			}
		}
	})
	b.Run("get", func(b *testing.B) {
		col := snap.nodeCol(k)
		for b.Loop() {
			for id := range uint64(n) {
				if col.get(id) == nil {
					b.Fatal("a vector is missing")
				}
			}
		}
	})
}

// storeVectors commits 32,768 random 128-element FLOAT lists as property
// e of as many nodes, and returns the store and the live heap per vector
// it holds.
func storeVectors(b *testing.B) (*Store, float64) {
	const n, dim = 32768, 128
	rnd := rand.New(rand.NewSource(1))
	vals := make([][]float64, n)
	for i := range vals {
		vals[i] = make([]float64, dim)
		for j := range vals[i] {
			vals[i][j] = rnd.NormFloat64()
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	s := New()
	cat := s.Catalog()
	l, k := cat.EnsureLabel("D"), cat.EnsureKey("e")
	tx := s.Begin()
	for _, v := range vals {
		list := make([]vector.Value, dim)
		for j, x := range v {
			list[j] = x
		}
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{list}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	after := heap()
	runtime.KeepAlive(vals) // alive across both measures: only the store's share differs
	return s, float64(after-before) / n
}
