package exec

import (
	"context"
	"fmt"
	"github.com/quiverdb/quiver/engine/functions"
	"strconv"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// typedBatch is a batch of one column of type t holding vals (nil:
// null), every other row selected when sparse.
func typedBatch(t vector.Type, sparse bool, vals ...vector.Value) *vector.Batch {
	v := vector.New(t, len(vals))
	for i, x := range vals {
		if x == nil {
			v.SetNull(i)
		} else {
			v.Set(i, x)
		}
	}
	b := &vector.Batch{Cols: []*vector.Vector{v}, Len: len(vals)}
	if sparse {
		for i := 0; i < len(vals); i += 2 {
			b.Sel = append(b.Sel, int32(i))
		}
	}
	return b
}

// A sort's chunks join into the column push would have built from the
// same rows: the same type (typed while every value has one, generic
// when they differ, no type while all are null, leading nulls waiting
// for the first value's) and the same values.
func TestRowChunksJoinAsColumnsPush(t *testing.T) {
	many := make([]vector.Value, 3000) // past a chunk
	for i := range many {
		if i%7 != 0 {
			many[i] = int64(i)
		}
	}
	for _, c := range []struct {
		name    string
		batches []*vector.Batch
	}{
		{"integers", []*vector.Batch{typedBatch(vector.Int64, false, many...)}},
		{"leading nulls", []*vector.Batch{typedBatch(vector.Null, false, nil, nil), typedBatch(vector.String, true, nil, "a", "b", "c")}},
		{"all null", []*vector.Batch{typedBatch(vector.Null, false, nil), typedBatch(vector.Int64, false, nil, nil)}},
		{"mixed", []*vector.Batch{typedBatch(vector.Int64, false, int64(1), nil), typedBatch(vector.String, false, "x"),
			typedBatch(vector.Any, true, 2.5, true, nil, []vector.Value{int64(1)})}},
		{"generic then typed", []*vector.Batch{typedBatch(vector.Any, false, int64(1)), typedBatch(vector.Int64, false, int64(2), nil)}},
		{"nulls in strings", []*vector.Batch{typedBatch(vector.String, false, "a", nil, "c"), typedBatch(vector.String, true, nil, "e", "f")}},
	} {
		m := &memory.Tracker{Limit: 1 << 40}
		var k rowChunks
		var want column
		for _, b := range c.batches {
			if err := k.add(m, b); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < b.Rows(); i++ {
				want.push(b.Cols[0], b.Row(i))
			}
		}
		cols, err := k.columns(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := cols[0]
		if got.n != want.n || got.v.Type != want.v.Type {
			t.Errorf("%s: %d rows of %v, want %d of %v", c.name, got.n, got.v.Type, want.n, want.v.Type)
			continue
		}
		for i := 0; i < got.n; i++ {
			if g, w := fmt.Sprint(got.get(i)), fmt.Sprint(want.get(i)); g != w || got.v.IsNull(i) != want.v.IsNull(i) {
				t.Errorf("%s: row %d is %s, want %s", c.name, i, g, w)
				break
			}
		}
		// What stays charged is the column and its values.
		if used, held := m.Used(), got.capBytes(); used < held || used > held+memory.PayloadBytes(got.v, nil, got.n)+1024 {
			t.Errorf("%s: %d bytes charged for a column of %d", c.name, used, held)
		}
		k.release(m)
		if m.Used() != 0 {
			t.Errorf("%s: %d bytes charged after the release", c.name, m.Used())
		}
	}
}

// stringRows is n rows of one string column, the decimal of each row's
// number.
func stringRows(n int) []*vector.Batch {
	var bs []*vector.Batch
	for from := 0; from < n; from += vector.Capacity {
		m := min(vector.Capacity, n-from)
		v := vector.New(vector.String, m)
		for i := range m {
			v.Str[i] = strconv.Itoa(from + i)
		}
		bs = append(bs, &vector.Batch{Cols: []*vector.Vector{v}, Len: m})
	}
	return bs
}

// The operators that keep rows charge what their arrays take: at their
// peak at least the slots and the strings of every row (a sort its
// permutation too, a collect() its list's room, a hash join its table's
// entries and keys), and they give all of it back once their rows have
// left.
func TestKeptRowsAreChargedByCapacity(t *testing.T) {
	const n = 50_000
	col := &plan.ColRef{Idx: 0, T: vector.String}
	var text int64 // the rows' string bytes
	for _, b := range stringRows(n) {
		text += memory.PayloadBytes(b.Cols[0], nil, b.Len)
	}
	for _, c := range []struct {
		name  string
		build func(c *Context, in Operator) (Operator, error)
		least int64
	}{
		{"sort", func(c *Context, in Operator) (Operator, error) {
			return newSort(c, &plan.Sort{Keys: []plan.SortKey{{Col: 0, Desc: true}}}, in)
		}, n*(memory.StringBytes+4) + text},
		{"top-k sort", func(c *Context, in Operator) (Operator, error) {
			return newSort(c, &plan.Sort{Keys: []plan.SortKey{{Col: 0}}, Limit: konst(int64(n / 2))}, in)
		}, n/2*memory.StringBytes + text/2},
		{"collect", func(c *Context, in Operator) (Operator, error) {
			return newHashAggregate(c, &plan.Aggregate{Aggs: []plan.AggCall{{Func: functions.AggCollect, Arg: col}},
				Cols: []plan.Column{{Name: "l"}}}, in)
		}, n*(memory.IfaceBytes+memory.StringBytes) + text},
		{"grouped collect", func(c *Context, in Operator) (Operator, error) {
			return newHashAggregate(c, &plan.Aggregate{Keys: []plan.Expr{col},
				Aggs: []plan.AggCall{{Func: functions.AggCollect, Arg: col}}, Cols: []plan.Column{{Name: "k"}, {Name: "l"}}}, in)
		}, n*(memory.IfaceBytes+memory.StringBytes) + text},
		{"hash join", func(c *Context, in Operator) (Operator, error) {
			// Right is the rows; Left, a tenth of them, joins each once.
			left := &plan.Project{Cols: []plan.Column{{Name: "l"}}}
			return newHashJoin(c, &plan.HashJoin{Left: left, LeftKey: col, RightKey: col,
				Cols: []plan.Column{{Name: "l"}, {Name: "r"}}}, &batchesOp{bs: stringRows(n / 10)}, in)
		}, n*(memory.StringBytes+memory.ListEntryBytes+4) + 2*text},
		{"buffer", func(c *Context, in Operator) (Operator, error) {
			b := NewBuffer(in, 1)
			b.Track(&c.Mem)
			return b, b.Fill()
		}, n*memory.StringBytes + text},
	} {
		ctx := &Context{Env: expr.Env{Ctx: context.Background()}}
		ctx.Mem.Limit = 1 << 40
		op, err := c.build(ctx, &batchesOp{bs: stringRows(n)})
		if err != nil {
			t.Fatal(err)
		}
		compiled := ctx.Mem.Used() // the expressions the operator compiled
		rows := 0
		for {
			b, err := op.Next()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if b == nil {
				break
			}
			rows += b.Rows()
		}
		if rows == 0 {
			t.Fatalf("%s: no rows", c.name)
		}
		if peak := ctx.Mem.Peak(); peak < c.least {
			t.Errorf("%s: peaked at %d bytes charged, less than the %d its rows take", c.name, peak, c.least)
		}
		if _, isBuffer := op.(*Buffer); !isBuffer && ctx.Mem.Used() != compiled {
			t.Errorf("%s: %d bytes still charged after its last row", c.name, ctx.Mem.Used()-compiled)
		}
	}
}

// A list whose next array does not fit in what the statement may still
// take fails with 53200 before it is allocated: the statement's charge
// never passes the limit by more than that array.
func TestCollectFailsBeforeItsListGrows(t *testing.T) {
	ctx := &Context{Env: expr.Env{Ctx: context.Background()}}
	ctx.Mem.Limit = 4 << 20
	col := &plan.ColRef{Idx: 0, T: vector.String}
	op, err := newHashAggregate(ctx, &plan.Aggregate{Aggs: []plan.AggCall{{Func: functions.AggCollect, Arg: col}},
		Cols: []plan.Column{{Name: "l"}}}, &batchesOp{bs: stringRows(1_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Next()
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("collecting a million strings under 4 MiB: %v, want 53200", err)
	}
	// The failed charge of the array (at most half the list again, a
	// batch's values beside it) was given back.
	if used := ctx.Mem.Used(); used > ctx.Mem.Limit {
		t.Errorf("%d bytes charged after the failure, limit %d", used, ctx.Mem.Limit)
	}
}

// A hash join whose Right side does not fit fails with 53200 while it
// builds its table, rather than holding the table uncharged.
func TestHashJoinTableIsCharged(t *testing.T) {
	ctx := &Context{Env: expr.Env{Ctx: context.Background()}}
	ctx.Mem.Limit = 4 << 20
	col := &plan.ColRef{Idx: 0, T: vector.String}
	op, err := newHashJoin(ctx, &plan.HashJoin{Left: &plan.Project{Cols: []plan.Column{{Name: "l"}}}, LeftKey: col, RightKey: col,
		Cols: []plan.Column{{Name: "l"}, {Name: "r"}}}, &batchesOp{bs: stringRows(10)}, &batchesOp{bs: stringRows(100_000)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Next()
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("joining against 100,000 strings under 4 MiB: %v, want 53200", err)
	}
}
