package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// unwindOp turns each input row into one row per element of a list. The
// input columns are gathered per output batch with typed copies, as in
// expand.
//
// UNWIND range(a, b[, s]) does not build the list: it counts from a to b
// row by row (rangeRow), so `UNWIND range(1, 60000000) AS x` holds one
// batch, not sixty million values, and stops at the deadline like any
// other loop.
type unwindOp struct {
	c    *Context
	cur  cursor
	expr expr.Evaluator
	// bounds evaluates range()'s arguments when the list is a range.
	bounds []expr.Evaluator
	typ    vector.Type // element column type: typed when the plan knows it

	list  *vector.Vector   // the evaluated lists of the input batch
	args  []*vector.Vector // the evaluated range arguments of the input batch
	elems []vector.Value   // the elements of the cursor's current row
	next  int
	rng   rangeRow // the row's range, when bounds are set
}

// rangeRow is what is left of one row's range: left more values from cur
// by step.
type rangeRow struct {
	cur, step int64
	left      uint64
}

func newUnwind(c *Context, p *plan.Unwind, in Operator) (*unwindOp, error) {
	typ := p.Cols[len(p.Cols)-1].Type
	u := &unwindOp{c: c, typ: typ, cur: newCursor(c.pool(), in, len(p.Cols)-1, len(p.Cols))}
	u.cur.onBatch = u.evalLists
	if call, ok := p.Expr.(*plan.Call); ok && call.Name == "range" && len(call.Args) >= 2 && len(call.Args) <= 3 {
		args, err := expr.CompileArgs(&c.Env, call.Args)
		if err != nil {
			return nil, err
		}
		u.bounds = args
		u.args = make([]*vector.Vector, len(args))
		return u, nil
	}
	ev, err := compile(c, p.Expr)
	if err != nil {
		return nil, err
	}
	u.expr = ev
	return u, nil
}

// evalLists evaluates the list (or range arguments) of each row of a new
// input batch b.
func (u *unwindOp) evalLists(b *vector.Batch) (err error) {
	// Rows of empty lists pull batch after batch within one Next.
	if err := u.c.CheckCancel(); err != nil {
		return err
	}
	if u.bounds == nil {
		u.list, err = u.expr.Eval(b)
		return err
	}
	for i, a := range u.bounds {
		if u.args[i], err = a.Eval(b); err != nil {
			return err
		}
	}
	return nil
}

// startRow makes row's elements the next to emit.
func (u *unwindOp) startRow(row int) error {
	u.next = 0
	if u.bounds == nil {
		switch x := u.list.Get(row).(type) {
		case nil:
			u.elems = u.elems[:0]
		case []vector.Value:
			u.elems = x
		default:
			u.elems = append(u.elems[:0], x)
		}
		return nil
	}
	u.elems = u.elems[:0]
	vals := make([]vector.Value, len(u.args))
	for i, a := range u.args {
		vals[i] = a.Get(row)
	}
	start, end, step, err := functions.RangeBounds(vals)
	if err != nil {
		return err
	}
	u.rng = rangeRow{cur: start, step: step, left: functions.RangeCount(start, end, step)}
	return nil
}

func (u *unwindOp) Next() (*vector.Batch, error) {
	if err := u.c.CheckCancel(); err != nil {
		return nil, err
	}
	out, nin := u.cur.out, u.cur.nin
	out.Cols[nin] = vector.Reuse(out.Cols[nin], u.typ)
	return u.cur.fill(u)
}

// produce emits the current row's elements still to emit: its list's, or
// its range's values.
func (u *unwindOp) produce() error {
	elemCol := u.cur.out.Cols[u.cur.nin]
	for u.next < len(u.elems) && !u.cur.full() {
		elemCol.Set(len(u.cur.idx), u.elems[u.next])
		u.next++
		u.cur.emitRow()
	}
	for u.rng.left > 0 && !u.cur.full() {
		elemCol.Set(len(u.cur.idx), u.rng.cur)
		u.rng.cur += u.rng.step
		u.rng.left--
		u.cur.emitRow()
	}
	return nil
}

// advance starts the next input row.
func (u *unwindOp) advance() (bool, error) {
	ok, err := u.cur.nextRow()
	if !ok || err != nil {
		return false, err
	}
	return true, u.startRow(u.cur.row)
}
