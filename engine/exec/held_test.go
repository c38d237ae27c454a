package exec

import (
	"context"
	"strconv"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

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
