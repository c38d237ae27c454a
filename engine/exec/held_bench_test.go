package exec

import (
	"context"
	"github.com/quiverdb/quiver/engine/functions"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// The operators that keep rows, timed under a statement limit (as the
// server runs every statement: its charges are live): a full sort of
// integers and of strings, collect() into one list and into many, DISTINCT
// over strings, and a buffer.

// heldBatches is n rows of (random integer key below keys, its decimal
// string).
func heldBatches(n, keys int) []*vector.Batch {
	rng := rand.New(rand.NewPCG(7, 8))
	var bs []*vector.Batch
	for from := 0; from < n; from += vector.Capacity {
		m := min(vector.Capacity, n-from)
		k, s := vector.New(vector.Int64, m), vector.New(vector.String, m)
		for i := range m {
			x := rng.IntN(keys)
			k.I64[i], s.Str[i] = int64(x), strconv.Itoa(x)
		}
		bs = append(bs, &vector.Batch{Cols: []*vector.Vector{k, s}, Len: m})
	}
	return bs
}

// limitedContext is a context whose statement may hold 64 GiB: every
// charge is made, none fails.
func limitedContext() *Context {
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	c.Mem.Limit = 64 << 30
	return c
}

func runHeld(b *testing.B, op func() (Operator, error), before func()) {
	b.ReportAllocs()
	for b.Loop() {
		if before != nil {
			before()
		}
		o, err := op()
		if err != nil {
			b.Fatal(err)
		}
		for {
			out, err := o.Next()
			if err != nil {
				b.Fatal(err)
			}
			if out == nil {
				break
			}
		}
	}
}

func benchSort(b *testing.B, col int) {
	bs := heldBatches(1<<20, 1<<30)
	c := limitedContext()
	p := &plan.Sort{Keys: []plan.SortKey{{Col: col}}}
	runHeld(b, func() (Operator, error) { return newSort(c, p, &batchesOp{bs: bs}) }, nil)
}

// BenchmarkSortInts orders 1M rows of (integer, string) by the integer.
func BenchmarkSortInts(b *testing.B) { benchSort(b, 0) }

// BenchmarkSortStrings orders the same rows by the string.
func BenchmarkSortStrings(b *testing.B) { benchSort(b, 1) }

func benchCollect(b *testing.B, keys int, grouped bool) {
	bs := heldBatches(1<<20, keys)
	c := limitedContext()
	p := &plan.Aggregate{Aggs: []plan.AggCall{{Func: functions.AggCollect, Arg: &plan.ColRef{Idx: 1, T: vector.String}}},
		Cols: []plan.Column{{Name: "l"}}}
	if grouped {
		p.Keys = []plan.Expr{&plan.ColRef{Idx: 0, T: vector.Int64}}
		p.Cols = append([]plan.Column{{Name: "k"}}, p.Cols...)
	}
	runHeld(b, func() (Operator, error) { return newHashAggregate(c, p, &batchesOp{bs: bs}) }, nil)
}

// BenchmarkCollect collects 1M strings into one list.
func BenchmarkCollect(b *testing.B) { benchCollect(b, 1<<30, false) }

// BenchmarkCollectGrouped collects 1M strings into the lists of 100K
// groups (about ten each).
func BenchmarkCollectGrouped(b *testing.B) { benchCollect(b, 100_000, true) }

// BenchmarkCountDistinctStrings is count(DISTINCT s) over 1M strings, a
// quarter of them distinct.
func BenchmarkCountDistinctStrings(b *testing.B) {
	bs := heldBatches(1<<20, 1<<18)
	c := limitedContext()
	p := &plan.Aggregate{Aggs: []plan.AggCall{{Func: functions.AggCount, Distinct: true, Arg: &plan.ColRef{Idx: 1, T: vector.String}}},
		Cols: []plan.Column{{Name: "n"}}}
	runHeld(b, func() (Operator, error) { return newHashAggregate(c, p, &batchesOp{bs: bs}) }, nil)
}

// BenchmarkDistinctStrings is DISTINCT over rows of one string, a quarter
// of them distinct.
func BenchmarkDistinctStrings(b *testing.B) {
	bs := heldBatches(1<<20, 1<<18)
	one := make([]*vector.Batch, len(bs))
	for i, x := range bs {
		one[i] = &vector.Batch{Cols: x.Cols[1:], Len: x.Len}
	}
	c := limitedContext()
	runHeld(b, func() (Operator, error) {
		return &distinctOp{c: c, in: &batchesOp{bs: one}, seen: map[string]struct{}{}}, nil
	}, func() {
		for _, x := range one {
			x.Sel = nil // DISTINCT narrowed them last time
		}
	})
}

// BenchmarkBuffer keeps 1M rows of (integer, string) and replays them.
func BenchmarkBuffer(b *testing.B) {
	bs := heldBatches(1<<20, 1<<30)
	c := limitedContext()
	runHeld(b, func() (Operator, error) {
		buf := NewBuffer(&batchesOp{bs: bs}, 2)
		buf.Track(&c.Mem)
		return buf, buf.Fill()
	}, nil)
}
