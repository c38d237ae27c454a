package arrowio

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// genScalar is a value of a member the union's fast path writes.
func genScalar(r *rand.Rand) vector.Value {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return r.Int64() - r.Int64()
	case 3:
		return r.NormFloat64()
	case 4:
		return []string{"", "é", "a\"b", "text"}[r.IntN(4)]
	}
	return temporal.Date{Days: r.Int64N(200_000) - 100_000}
}

// TestUnionFastPathEqualsBuilders: an ANY or LIST column written
// straight into the union's buffers is the array arrow-go's builders
// make of the same values, with and without a selection, with nulls,
// and when a value outside the fast path's members sends the batch to
// the builders after part of it was written.
func TestUnionFastPathEqualsBuilders(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 200; round++ {
		n := 1 + r.IntN(70)
		typ := []string{"ANY", "LIST"}[round%2]
		v := vector.New(vector.Any, n)
		for i := range v.Any {
			if typ == "ANY" {
				v.Any[i] = genScalar(r)
				continue
			}
			if r.IntN(8) == 0 {
				continue // a null list
			}
			l := make([]vector.Value, r.IntN(5))
			for j := range l {
				l[j] = genScalar(r)
			}
			v.Any[i] = l
		}
		slow := round%5 == 4 // a member only the builders write
		if slow {
			x := temporal.LocalTime{Nanos: 5}
			if typ == "ANY" {
				v.Any[n-1] = x
			} else {
				v.Any[n-1] = []vector.Value{int64(1), x}
			}
		}
		b := &vector.Batch{Cols: []*vector.Vector{v}, Len: n}
		if r.IntN(2) == 0 {
			for i := n - 1; i >= 0; i -= 1 + r.IntN(3) {
				b.Sel = append(b.Sel, int32(i))
			}
		}
		cols := []engine.Column{{Name: "c", Type: typ}}
		enc := NewEncoder(memory.DefaultAllocator, cols, nil)
		got, err := enc.Record(b)
		if err != nil {
			t.Fatal(err)
		}
		// The builders' array, value by value.
		bld := array.NewBuilder(memory.DefaultAllocator, enc.Schema().Field(0).Type)
		for i := 0; i < b.Rows(); i++ {
			if err := enc.appendAs(bld, typ, v.Get(b.Row(i))); err != nil {
				t.Fatal(err)
			}
		}
		want := bld.NewArray()
		if !array.Equal(got.Column(0), want) {
			t.Fatalf("round %d (%s, slow %v): fast path\n%v\nbuilders\n%v", round, typ, slow, got.Column(0), want)
		}
		want.Release()
		bld.Release()
		got.Release()
		enc.Release()
	}
}
