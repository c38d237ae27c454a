package storage

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// goParts is a ForParts that runs the parts on workers goroutines taking
// them from a shared counter, as a projection's workers do.
func goParts(workers int) ForParts {
	return func(n int, part func(i int)) error {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					part(i)
				}
			}()
		}
		wg.Wait()
		return nil
	}
}

// slotViewStore bulk-loads a type A of 100 relationships then a type B
// of m (so B's ids start at 100, not at a word boundary) among 3000
// nodes, with B's FLOAT and INTEGER properties:
//
//	full   FLOAT on every B relationship
//	holes  FLOAT with every 13th missing, B's first present (the view
//	       starts at B's first id: the forward view shares its validity)
//	late   FLOAT missing on B's first 5 (the view starts past B's ids)
//	both   FLOAT on A and B, every 7th missing (B's ids start 100 into
//	       the view, its validity not word-aligned)
//	afull  FLOAT on A with holes and on every B relationship
//	iw     INTEGER 1..255 with every 11th missing
//	iwide  INTEGER over a 2^40 range on every B relationship
func slotViewStore(t *testing.T, m int) *Store {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 3000
	rels := func(k int) (src, dst []uint32) {
		src, dst = make([]uint32, k), make([]uint32, k)
		for i := range k {
			src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		}
		return src, dst
	}
	col := func(k int, hole func(i int) bool, f func(i int) float64) BulkColumn {
		c := BulkColumn{Type: vector.Float64, F64: make([]float64, k), Null: make([]bool, k)}
		for i := range k {
			c.F64[i], c.Null[i] = f(i), hole(i)
		}
		return c
	}
	icol := func(k int, hole func(i int) bool, f func(i int) int64) BulkColumn {
		c := BulkColumn{Type: vector.Int64, I64: make([]int64, k), Null: make([]bool, k)}
		for i := range k {
			c.I64[i], c.Null[i] = f(i), hole(i)
		}
		return c
	}
	none := func(int) bool { return false }
	val := func(i int) float64 { return float64(i%977) * 0.25 }
	full, holes := col(m, none, val), col(m, func(i int) bool { return i%13 == 5 }, val)
	late := col(m, func(i int) bool { return i < 5 }, val)
	bothA, bothB := col(100, func(i int) bool { return i%7 == 0 }, val), col(m, func(i int) bool { return (i+100)%7 == 0 }, val)
	afullA, afullB := col(100, func(i int) bool { return i%3 == 1 }, val), col(m, none, val)
	iw := icol(m, func(i int) bool { return i%11 == 0 }, func(i int) int64 { return 1 + int64(rng.IntN(255)) })
	iwide := icol(m, none, func(i int) int64 { return rng.Int64N(1 << 40) })
	full.Key, holes.Key, late.Key, bothA.Key, bothB.Key, iw.Key, iwide.Key = "full", "holes", "late", "both", "both", "iw", "iwide"
	afullA.Key, afullB.Key = "afull", "afull"
	srcA, dstA := rels(100)
	srcB, dstB := rels(m)
	s, err := BulkLoad([]BulkNodes{{Labels: []string{"V"}, Count: n}}, []BulkRels{
		{Type: "A", Src: srcA, Dst: dstA, Cols: []BulkColumn{bothA, afullA}},
		{Type: "B", Src: srcB, Dst: dstB, Cols: []BulkColumn{full, holes, late, bothB, afullB, iw, iwide}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkSlotView compares a slot-ordered view with its definition, slot
// by slot: entry s is the property value of the relationship base's slot
// s holds, read from the column (RelProp), and the view has a validity
// exactly when some slot has no value. It also checks Span over every
// list of base against the values.
func checkSlotView(t *testing.T, snap *Snapshot, k catalog.KeyID, base *csr.CSR, get func(s uint64) (float64, bool), valid []uint64, span func(dst []float64, from uint64) bool) {
	t.Helper()
	n := uint64(base.NumEdges())
	all := true
	for s := range n {
		rel := base.SlotRel(s)
		var want float64
		wok := false
		switch x := snap.RelProp(rel, k).(type) {
		case float64:
			want, wok = x, true
		case int64:
			want, wok = float64(x), true
		}
		got, ok := get(s)
		if ok != wok || ok && got != want {
			t.Fatalf("slot %d (relationship %d): %v %v, want %v %v", s, rel, got, ok, want, wok)
		}
		all = all && wok
	}
	if _, ok := get(n); ok {
		t.Fatalf("slot %d past the base has a value", n)
	}
	if all != (valid == nil) {
		t.Fatalf("every slot has a value: %t, but validity kept: %t", all, valid != nil)
	}
	off := base.Offsets()
	for node := range len(off) - 1 {
		lo, hi := off[node], off[node+1]
		dst := make([]float64, hi-lo)
		want := true
		for s := lo; s < hi; s++ {
			_, ok := get(s)
			want = want && ok
		}
		if got := span(dst, lo); got != want {
			t.Fatalf("span of node %d's list: %t, want %t", node, got, want)
		} else if got {
			for i, x := range dst {
				if y, _ := get(lo + uint64(i)); x != y {
					t.Fatalf("span of node %d's list, slot %d: %v, want %v", node, lo+uint64(i), x, y)
				}
			}
		}
	}
}

// TestSlotViewsInParts builds every slot-ordered view of slotViewStore's
// properties (both directions of B, several parts each) on four
// goroutines and compares it with its definition; then again after a
// commit deleting relationships (their slots stay in the base, without a
// value) and one removing a weight.
func TestSlotViewsInParts(t *testing.T) {
	m := smallSlotParts(t)
	s := slotViewStore(t, m)
	cat := s.Catalog()
	typ, _ := cat.LookupType("B")
	keys := []string{"full", "holes", "late", "both", "afull", "iw", "iwide"}
	check := func(t *testing.T, snap *Snapshot) {
		for _, name := range keys {
			k, _ := cat.LookupKey(name)
			for _, d := range []Direction{Outgoing, Incoming} {
				base := snap.Adjacency(typ, d).Base()
				if name == "iw" || name == "iwide" {
					v, err := snap.RelSlotViewParts(k, base, base.NumEdges(), goParts(4))
					if err != nil || v == nil {
						t.Fatalf("%s %v: no slot view (%v)", name, d, err)
					}
					get := func(s uint64) (float64, bool) {
						x, ok := v.Get(s)
						return float64(x), ok
					}
					checkSlotView(t, snap, k, base, get, v.valid, v.SpanFloat)
					if again := snap.RelSlotView(k, base, 0); again != v {
						t.Fatalf("%s %v: the slot view is not cached", name, d)
					}
					continue
				}
				v, err := snap.RelFloatSlotViewParts(k, base, base.NumEdges(), goParts(4))
				if err != nil || v == nil {
					t.Fatalf("%s %v: no slot view (%v)", name, d, err)
				}
				checkSlotView(t, snap, k, base, v.Get, v.valid, v.Span)
				if again := snap.RelFloatSlotView(k, base, 0); again != v {
					t.Fatalf("%s %v: the slot view is not cached", name, d)
				}
			}
		}
	}
	t.Run("loaded", func(t *testing.T) { check(t, s.Snapshot()) })
	tx := s.Begin()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		if _, err := tx.DeleteRel(100 + uint64(rng.IntN(m))); err != nil {
			t.Fatal(err)
		}
	}
	full, _ := cat.LookupKey("full")
	if err := tx.SetRelProps(uint64(100+m/2), []catalog.KeyID{full}, []vector.Value{nil}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	t.Run("deleted", func(t *testing.T) { check(t, s.Snapshot()) })
}

// TestViewsInPartsMatchSerial: the id-ordered views built on four
// goroutines equal the serial builds, id by id, validity included.
func TestViewsInPartsMatchSerial(t *testing.T) {
	s := slotViewStore(t, 2*GroupSize*leafSize+999)
	snap := s.Snapshot()
	for _, name := range []string{"full", "holes", "late", "both", "afull"} {
		k, _ := s.Catalog().LookupKey(name)
		c := snap.relCol(k)
		a, _ := buildFloatView(c, serialParts)
		b, _ := buildFloatView(c, goParts(4))
		if a == nil || b == nil || a.lo != b.lo || a.n != b.n || (a.valid == nil) != (b.valid == nil) {
			t.Fatalf("%s: views differ in shape", name)
		}
		sameViews(t, name, a.n, a.Get, b.Get, func(id uint64) any { return snap.RelProp(id, k) })
	}
	for _, name := range []string{"iw", "iwide"} {
		k, _ := s.Catalog().LookupKey(name)
		c := snap.relCol(k)
		a, _ := buildIntView(c, serialParts)
		b, _ := buildIntView(c, goParts(4))
		if a == nil || b == nil || a.lo != b.lo || a.n != b.n || a.base != b.base || a.Width() != b.Width() || (a.valid == nil) != (b.valid == nil) {
			t.Fatalf("%s: views differ in shape", name)
		}
		sameViews(t, name, a.n, a.Get, b.Get, func(id uint64) any { return snap.RelProp(id, k) })
	}
}

// TestSlotViewBuildStopped: a ForParts that stops after some parts
// abandons the build with its error and caches nothing; the next call
// builds the view whole.
func TestSlotViewBuildStopped(t *testing.T) {
	smallSlotParts(t)
	s := slotViewStore(t, int(2*slotPart+5))
	snap := s.Snapshot()
	typ, _ := s.Catalog().LookupType("B")
	k, _ := s.Catalog().LookupKey("holes")
	base := snap.Adjacency(typ, Incoming).Base()
	stop := errors.New("stopped")
	calls := 0
	stopping := func(n int, part func(i int)) error {
		if calls++; calls > 2 {
			return stop
		}
		return serialParts(n, part)
	}
	if v, err := snap.RelFloatSlotViewParts(k, base, base.NumEdges(), stopping); v != nil || !errors.Is(err, stop) {
		t.Fatalf("stopped build: %v, %v", v, err)
	}
	if fs := snap.relCol(k).cache.fslots.Load(); fs != nil && len(*fs) != 0 {
		t.Fatal("a stopped build left a slot view cached")
	}
	v, err := snap.RelFloatSlotViewParts(k, base, base.NumEdges(), goParts(2))
	if err != nil || v == nil {
		t.Fatalf("build after a stop: %v, %v", v, err)
	}
	checkSlotView(t, snap, k, base, v.Get, v.valid, v.Span)
}

// BenchmarkRelSlotViews builds a weight property's views as a weighted
// projection's first call does (the id-ordered view, then the slot
// views of both directions) over 16M bulk-loaded relationships among
// 1M nodes with random endpoints, FLOAT and INTEGER (1..255), serially
// and in parts on two goroutines.
func BenchmarkRelSlotViews(b *testing.B) {
	const n, m = 1 << 20, 1 << 24
	rng := rand.New(rand.NewPCG(1, 2))
	src, dst := make([]uint32, m), make([]uint32, m)
	w, iw := make([]float64, m), make([]int64, m)
	for i := range m {
		src[i], dst[i] = uint32(rng.IntN(n)), uint32(rng.IntN(n))
		iw[i] = 1 + rng.Int64N(255)
		w[i] = float64(iw[i])
	}
	s, err := BulkLoad([]BulkNodes{{Labels: []string{"V"}, Count: n}}, []BulkRels{{Type: "E", Src: src, Dst: dst,
		Cols: []BulkColumn{{Key: "w", Type: vector.Float64, F64: w}, {Key: "iw", Type: vector.Int64, I64: iw}}}})
	if err != nil {
		b.Fatal(err)
	}
	snap := s.Snapshot()
	typ, _ := s.Catalog().LookupType("E")
	bases := []*csr.CSR{snap.Adjacency(typ, Outgoing).Base(), snap.Adjacency(typ, Incoming).Base()}
	for _, name := range []string{"w", "iw"} {
		k, _ := s.Catalog().LookupKey(name)
		c := snap.relCol(k)
		for _, p := range []struct {
			name string
			par  ForParts
		}{{"serial", serialParts}, {"parts2", goParts(2)}} {
			b.Run(name+"/"+p.name, func(b *testing.B) {
				for b.Loop() {
					if name == "w" {
						v, _ := buildFloatView(c, p.par)
						for _, base := range bases {
							if _, err := buildFloatSlotView(v, base, p.par); err != nil {
								b.Fatal(err)
							}
						}
						continue
					}
					v, _ := buildIntView(c, p.par)
					for _, base := range bases {
						if _, err := buildSlotView(v, base, p.par); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// sameViews checks ids 0..n of a view built serially (serial) and in
// parts (parts) against each other and against the column (col).
func sameViews[T comparable](t *testing.T, name string, n uint64, serial, parts func(uint64) (T, bool), col func(uint64) any) {
	t.Helper()
	for id := range n + 1 {
		x, ok := serial(id)
		y, ok2 := parts(id)
		if ok != ok2 || x != y {
			t.Fatalf("%s id %d: %v %v in parts, %v %v serial", name, id, y, ok2, x, ok)
		}
		v := col(id)
		if want, _ := v.(T); ok != (v != nil) || ok && x != want {
			t.Fatalf("%s id %d: %v %v, column holds %v", name, id, x, ok, v)
		}
	}
}

// smallSlotParts cuts slot-ordered views into parts of 1024 slots for the
// rest of t (of 65536 otherwise), so that a store of a few thousand
// relationships is built in several parts, and returns the relationships
// of three parts and a partial one.
func smallSlotParts(t *testing.T) int {
	old := slotPart
	slotPart = 1 << 10
	t.Cleanup(func() { slotPart = old })
	return int(3*slotPart + 777)
}
