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
	ints := intBatch
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
	run := func(c *Context) (got []string, sizes []int) {
		h, err := newHashJoin(c, p, &batchesOp{bs: left}, &batchesOp{bs: []*vector.Batch{right}})
		if err != nil {
			t.Fatal(err)
		}
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
		if h.Next(); h.table != nil {
			t.Error("the table is held after Left is exhausted")
		}
		return got, sizes
	}
	_, sizes := run(&Context{Env: expr.Env{Ctx: context.Background()}})
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

	// On a gather's worker that fills its own batch from sparse ones, the
	// join hands over the pairs of each batch pulled: the worker's fill
	// copies them once, not after the join's.
	worker := &Context{Env: expr.Env{Ctx: context.Background()}, worker: &workerState{fill: &batchFill{}}}
	_, sizes = run(worker)
	wantSizes := []int{2, 1, 2}
	for range joinFillPulls*2 + 3 {
		wantSizes = append(wantSizes, 1)
	}
	if wantSizes = append(wantSizes, 2); !slices.Equal(sizes, wantSizes) {
		t.Errorf("on a filling worker, batches of %v rows, want %v", sizes, wantSizes)
	}
}

// The bound on batches pulled holds when the first joinFillPulls batches
// of Left pair nothing: the first pair after them is handed over at
// once, not held until the output is full or Left ends.
func TestHashJoinFillBoundAfterEmptyPulls(t *testing.T) {
	ints := intBatch
	built := vector.New(vector.Int64, 1)
	built.I64[0] = 1
	right := &vector.Batch{Cols: []*vector.Vector{built}, Len: 1}
	var left []*vector.Batch
	for range joinFillPulls + 6 {
		left = append(left, ints(7))
	}
	left = append(left, ints(1), ints(1), ints(1))
	p := &plan.HashJoin{
		Left:     &plan.NodeScan{Cols: []plan.Column{{Name: "l", Type: vector.Int64}}},
		Right:    &plan.NodeScan{Cols: []plan.Column{{Name: "r", Type: vector.Int64}}},
		LeftKey:  &plan.ColRef{Idx: 0, Name: "l", T: vector.Int64},
		RightKey: &plan.ColRef{Idx: 0, Name: "r", T: vector.Int64},
		Cols:     []plan.Column{{Name: "l", Type: vector.Int64}, {Name: "r", Type: vector.Int64}},
	}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	h, err := newHashJoin(c, p, &batchesOp{bs: left}, &batchesOp{bs: []*vector.Batch{right}})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for {
		b, err := h.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		sizes = append(sizes, b.Rows())
	}
	if want := []int{1, 2}; !slices.Equal(sizes, want) {
		t.Fatalf("batches of %v rows, want %v", sizes, want)
	}
}

// intBatch is a dense batch of one INTEGER column holding vs.
func intBatch(vs ...int64) *vector.Batch {
	v := vector.New(vector.Int64, len(vs))
	copy(v.I64, vs)
	return &vector.Batch{Cols: []*vector.Vector{v}, Len: len(vs)}
}
