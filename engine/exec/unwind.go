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
	in   Operator
	expr expr.Evaluator
	// bounds evaluates range()'s arguments when the list is a range.
	bounds []expr.Evaluator
	typ    vector.Type // element column type: typed when the plan knows it

	inb   *vector.Batch
	list  *vector.Vector   // the evaluated lists of inb
	args  []*vector.Vector // the evaluated range arguments of inb
	pos   int              // next logical row of inb
	row   int              // physical row whose elements are in elems
	elems []vector.Value
	next  int
	rng   rangeRow // the row's range, when bounds are set

	idx []int32
	out *vector.Batch
}

// rangeRow is what is left of one row's range: left more values from cur
// by step.
type rangeRow struct {
	cur, step int64
	left      uint64
}

func newUnwind(c *Context, p *plan.Unwind, in Operator) (*unwindOp, error) {
	typ := p.Cols[len(p.Cols)-1].Type
	u := &unwindOp{c: c, in: in, typ: typ, out: &vector.Batch{Cols: make([]*vector.Vector, len(p.Cols))}}
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

// evalLists evaluates the list (or range arguments) of each row of b.
func (u *unwindOp) evalLists(b *vector.Batch) (err error) {
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
	u.row, u.next = row, 0
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
	nin := len(u.out.Cols) - 1
	elemCol := vector.Reuse(u.out.Cols[nin], u.typ)
	u.out.Cols[nin] = elemCol
	u.idx = u.idx[:0]
	for len(u.idx) < vector.Capacity {
		if u.next < len(u.elems) {
			k := len(u.idx)
			elemCol.Set(k, u.elems[u.next])
			u.next++
			u.idx = append(u.idx, int32(u.row))
			continue
		}
		if u.rng.left > 0 {
			k := len(u.idx)
			elemCol.Set(k, u.rng.cur)
			u.rng.cur += u.rng.step
			u.rng.left--
			u.idx = append(u.idx, int32(u.row))
			continue
		}
		if u.inb == nil || u.pos >= u.inb.Rows() {
			if len(u.idx) > 0 {
				break // the output still refers to this input batch
			}
			if err := u.c.CheckCancel(); err != nil {
				return nil, err
			}
			b, err := u.in.Next()
			if err != nil || b == nil {
				return nil, err
			}
			if err := u.evalLists(b); err != nil {
				return nil, err
			}
			u.inb, u.pos = b, 0
			continue
		}
		if err := u.startRow(u.inb.Row(u.pos)); err != nil {
			return nil, err
		}
		u.pos++
	}
	if len(u.idx) == 0 {
		return nil, nil
	}
	for i, src := range u.inb.Cols[:nin] {
		u.out.Cols[i] = vector.Reuse(u.out.Cols[i], src.Type)
		vector.CopyRows(u.out.Cols[i], 0, src, u.idx)
	}
	u.out.Len, u.out.Sel = len(u.idx), nil
	return u.out, nil
}
