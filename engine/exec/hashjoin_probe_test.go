package exec

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// A hash join copies the pairs of several batches of Left into one batch
// of output, in Left's order, and starts the next one when it is full,
// when joinFillPulls batches of Left have been pulled, or when a batch's
// columns have other types than the rows it holds (a batch of STRINGs
// after INTEGERs): no output batch mixes them, and no pair is lost or
// repeated at those boundaries.
func TestHashJoinFillsBatches(t *testing.T) {
	ints := func(vs ...int64) *vector.Batch {
		v := vector.New(vector.Int64, len(vs))
		copy(v.I64, vs)
		return &vector.Batch{Cols: []*vector.Vector{v}, Len: len(vs)}
	}
	strs := func(vs ...string) *vector.Batch {
		v := vector.New(vector.String, len(vs))
		copy(v.Str, vs)
		return &vector.Batch{Cols: []*vector.Vector{v}, Len: len(vs)}
	}
	built := vector.New(vector.Any, 3)
	copy(built.Any, []vector.Value{int64(1), "a", int64(1)}) // key 1 twice
	right := &vector.Batch{Cols: []*vector.Vector{built}, Len: 3}

	// Left's batches, and the pairs each makes, in order.
	var left []*vector.Batch
	var want []string
	var types []vector.Type // of each pair's probe value
	add := func(b *vector.Batch, pairs ...string) {
		left = append(left, b)
		want = append(want, pairs...)
		for range pairs {
			types = append(types, b.Cols[0].Type)
		}
	}
	add(ints(1, 2), "1|1", "1|1")
	add(ints(7)) // no match: pulled, nothing to pair
	add(strs("a", "b"), "a|a")
	add(ints(2, 1), "1|1", "1|1")
	for range joinFillPulls*2 + 3 { // sparse: a pair every other batch
		add(strs("x"))
		add(strs("x", "a"), "a|a")
	}
	add(ints(1), "1|1", "1|1")

	p := &plan.HashJoin{
		Left:     &plan.NodeScan{Cols: []plan.Column{{Name: "l", Type: vector.Any}}},
		Right:    &plan.NodeScan{Cols: []plan.Column{{Name: "r", Type: vector.Any}}},
		LeftKey:  &plan.ColRef{Idx: 0, Name: "l", T: vector.Any},
		RightKey: &plan.ColRef{Idx: 0, Name: "r", T: vector.Any},
		Cols:     []plan.Column{{Name: "l", Type: vector.Any}, {Name: "r", Type: vector.Any}},
	}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	h, err := newHashJoin(c, p, &batchesOp{bs: left}, &batchesOp{bs: []*vector.Batch{right}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var sizes []int
	for {
		b, err := h.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		at := len(got)
		for i := 0; i < b.Rows(); i++ {
			got = append(got, fmt.Sprintf("%v|%v", b.Cols[0].Get(b.Row(i)), b.Cols[1].Get(b.Row(i))))
		}
		for i := at; i < len(got) && i < len(types); i++ {
			if types[i] != b.Cols[0].Type {
				t.Fatalf("pair %d (%s) is of type %v in a batch of %v", i, got[i], types[i], b.Cols[0].Type)
			}
		}
		sizes = append(sizes, b.Rows())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pairs %v\nwant %v", got, want)
	}
	// Each run of one type in its own batches: the first INTEGERs' pairs
	// (the STRING batch after them kept for the next call), the STRING's,
	// the INTEGERs' again; then the sparse run of STRINGs, whose 262
	// batches come out 64 at a time, 32 pairs each, the 3 pairs of the
	// last 6, and the last INTEGER batch's 2 pairs.
	for i, n := range sizes {
		if n > vector.Capacity {
			t.Fatalf("batch %d of %d rows, more than %d", i, n, vector.Capacity)
		}
	}
	if wantSizes := []int{2, 1, 2, 32, 32, 32, 32, 3, 2}; vector.Capacity >= 64 && !slices.Equal(sizes, wantSizes) {
		t.Errorf("batches of %v rows, want %v", sizes, wantSizes)
	}
	if h.Next(); h.table != nil {
		t.Error("the table is held after Left is exhausted")
	}
}
