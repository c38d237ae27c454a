package idset

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// TestPairSet checks the set against a map over pairs that share values
// across groups, collide in their low bits and hit the extremes.
func TestPairSet(t *testing.T) {
	type pair struct {
		g int32
		x uint64
	}
	var s PairSet
	want := map[pair]bool{}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 50000 {
		p := pair{int32(rng.IntN(7)), uint64(rng.IntN(3000))}
		switch i % 5 {
		case 1:
			p.x = uint64(i) << 40
		case 2:
			p.x = math.MaxUint64 - uint64(rng.IntN(10))
		}
		if got := s.Add(p.g, p.x); got != !want[p] {
			t.Fatalf("Add(%d, %d) = %v, want %v", p.g, p.x, got, !want[p])
		}
		want[p] = true
	}
	if s.n != len(want) {
		t.Fatalf("%d entries, want %d", s.n, len(want))
	}
	for p := range want {
		if s.Add(p.g, p.x) {
			t.Fatalf("(%d, %d) lost after growth", p.g, p.x)
		}
	}
}

// TestVisitSet checks the bitset against a map, over ids far apart (new
// blocks, growth) and close together (shared words), and again after
// clear.
func TestVisitSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var v VisitSet
	for round := range 3 {
		want := map[uint64]bool{}
		for i := range 20000 {
			x := uint64(rng.IntN(5000))
			if i%3 == 0 {
				x = uint64(rng.IntN(1 << 22))
			}
			if v.Has(x) != want[x] {
				t.Fatalf("round %d: Has(%d) = %v, want %v", round, x, !want[x], want[x])
			}
			if got := v.Add(x); got != !want[x] {
				t.Fatalf("round %d: VisitSet.Add(%d) = %v, want %v", round, x, got, !want[x])
			}
			want[x] = true
		}
		v.Clear()
		for x := range want {
			if v.Has(x) {
				t.Fatalf("round %d: %d still set after Clear", round, x)
			}
		}
	}
}

// TestDistinctIDKinds checks that a value reads as the same distinct
// value from a typed vector and from a generic one, and that floats,
// strings and the three kinds stay apart.
func TestDistinctIDKinds(t *testing.T) {
	anyv := &vector.Vector{Type: vector.Any, Any: []vector.Value{int64(5), vector.NodeRef(5), vector.RelRef(5), 5.0, "5"}}
	typed := []*vector.Vector{
		{Type: vector.Int64, I64: []int64{5}},
		{Type: vector.Node, IDs: []uint64{5}},
		{Type: vector.Rel, IDs: []uint64{5}},
	}
	for i, tv := range typed {
		k1, x1, ok1 := DistinctID(tv, 0)
		k2, x2, ok2 := DistinctID(anyv, i)
		if !ok1 || !ok2 || k1 != k2 || x1 != x2 || k1 != i {
			t.Fatalf("kind %d: typed (%d, %d, %v), generic (%d, %d, %v)", i, k1, x1, ok1, k2, x2, ok2)
		}
	}
	for _, r := range []int{3, 4} {
		if _, _, ok := DistinctID(anyv, r); ok {
			t.Fatalf("%v read as an integer kind", anyv.Any[r])
		}
	}
}
