package csr

import (
	"bytes"
	"cmp"
	"math/rand"
	"slices"
	"testing"
)

// TestBuildSorted: lists sorted by the caller give the CSR Build gives
// for the same edges, and EncodeTo writes exactly AppendEncode's bytes.
func TestBuildSorted(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 5, 300, 20000} {
		var edges []Edge
		for i := 0; i < n*4 && n > 0; i++ {
			e := Edge{Src: uint64(rnd.Intn(n)), Dst: uint64(rnd.Intn(n)), Rel: uint64(i)}
			if i%7 == 0 && i > 0 { // parallel edges
				e.Src, e.Dst = edges[i-1].Src, edges[i-1].Dst
			}
			edges = append(edges, e)
		}
		want := Build(n, edges)
		sorted := slices.Clone(edges)
		slices.SortFunc(sorted, func(a, b Edge) int {
			return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst), cmp.Compare(a.Rel, b.Rel))
		})
		offsets := make([]uint64, n+1)
		dsts := make([]uint32, len(sorted))
		rels := make([]uint64, len(sorted))
		for i, e := range sorted {
			offsets[e.Src+1]++
			dsts[i], rels[i] = uint32(e.Dst), e.Rel
		}
		for v := 1; v <= n; v++ {
			offsets[v] += offsets[v-1]
		}
		got := BuildSorted(n, offsets, dsts, rels)
		if err := got.Check(); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !sameCSR(got, want) {
			t.Fatalf("n=%d: BuildSorted differs from Build", n)
		}
	}
}

// sameCSR reports whether two CSRs hold the same offsets, blocks and ids.
func sameCSR(a, b *CSR) bool {
	if a.NumNodes() != b.NumNodes() || a.NumEdges() != b.NumEdges() || !slices.Equal(a.offsets, b.offsets) || !bytes.Equal(a.data, b.data) {
		return false
	}
	for v := range uint64(a.NumNodes() + 1) {
		if a.start(v) != b.start(v) {
			return false
		}
	}
	for s := range uint64(a.NumEdges()) {
		if a.rel(s) != b.rel(s) {
			return false
		}
	}
	return true
}

// TestSequentialRels: a CSR whose ids are computed (base+slot) behaves
// exactly like one holding the same ids: lists, ids, Check, storing and
// loading, deletes by id through an Adjacency, compaction and renumbering.
func TestSequentialRels(t *testing.T) {
	rnd := rand.New(rand.NewSource(5))
	const n, base = 300, 1000
	var edges []Edge
	for i := range 2000 {
		e := Edge{Src: uint64(rnd.Intn(n)), Dst: uint64(rnd.Intn(n)), Rel: uint64(i)}
		if i%9 == 0 && i > 0 { // parallel edges
			e.Src, e.Dst = edges[i-1].Src, edges[i-1].Dst
		}
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst), cmp.Compare(a.Rel, b.Rel))
	})
	offsets := make([]uint64, n+1)
	dsts := make([]uint32, len(edges))
	for i, e := range edges {
		offsets[e.Src+1]++
		dsts[i] = uint32(e.Dst)
	}
	for v := 1; v <= n; v++ {
		offsets[v] += offsets[v-1]
	}
	seq := BuildSortedSequential(n, slices.Clone(offsets), dsts, base)
	ids := make([]uint64, len(edges))
	for s := range ids {
		ids[s] = base + uint64(s)
	}
	stored := BuildSorted(n, slices.Clone(offsets), dsts, ids)
	same := func(what string, a, b *CSR) {
		t.Helper()
		if err := a.Check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if a.NumEdges() != b.NumEdges() {
			t.Fatalf("%s: %d edges, want %d", what, a.NumEdges(), b.NumEdges())
		}
		for v := range uint64(n) {
			if !slices.Equal(a.AppendNeighbors(nil, v), b.AppendNeighbors(nil, v)) || !slices.Equal(a.Rels(v), b.Rels(v)) ||
				!slices.Equal(a.AppendRels([]uint64{7}, v), b.AppendRels([]uint64{7}, v)) {
				t.Fatalf("%s: node %d differs", what, v)
			}
		}
	}
	same("built", seq, stored)
	if b, ok := seq.SequentialBase(); !ok || b != base {
		t.Fatalf("SequentialBase %d %v", b, ok)
	}
	if !sameCSR(seq, stored) {
		t.Fatal("stored forms differ")
	}
	dec, err := store(seq, 50, 100, 0).load()
	if err != nil {
		t.Fatal(err)
	}
	if !dec.seq || dec.rels != nil || dec.rels32 != nil {
		t.Fatal("loaded sequential ids are stored")
	}
	same("loaded", dec, stored)
	dec32, err := store(stored, 50, 100, 32).load()
	if err != nil {
		t.Fatal(err)
	}
	same("loaded with 32-bit ids", dec32, stored)
	same("WithSequentialRels", stored.WithSequentialRels(base), stored)
	mapped := make([]uint64, base+len(edges))
	for i := range mapped {
		mapped[i] = uint64(3*i + 1)
	}
	same("WithMappedRels", seq.WithMappedRels(mapped), stored.WithMappedRels(mapped))
	// Deletes by id (slotOf), inserts, then compaction.
	del := []uint64{base, base + 17, base + 1999, base + 500}
	ins := []Edge{{Src: 3, Dst: 4, Rel: 9000}, {Src: 299, Dst: 0, Rel: 9001}}
	a := NewAdjacency(seq).Apply(ins, del, 2)
	b := NewAdjacency(stored).Apply(ins, del, 2)
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	for v := range uint64(n) {
		an, ar := a.AppendNeighbors(nil, nil, v)
		bn, br := b.AppendNeighbors(nil, nil, v)
		if !slices.Equal(an, bn) || !slices.Equal(ar, br) {
			t.Fatalf("after apply: node %d differs", v)
		}
	}
	if a.NumEdges() != len(edges)-len(del)+len(ins) {
		t.Fatalf("after apply: %d edges", a.NumEdges())
	}
	same("compacted", a.Compact(n).Base(), b.Compact(n).Base())
	// An id outside the range is not found.
	if _, ok := seq.slotOf(base - 1); ok {
		t.Fatal("id below the base found")
	}
	if _, ok := seq.slotOf(base + uint64(len(edges))); ok {
		t.Fatal("id past the end found")
	}
}
