package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// unwindOp turns each input row into one row per element of a list. The
// input columns are gathered per output batch with typed copies, as in
// expand.
type unwindOp struct {
	c    *Context
	in   Operator
	expr evaluator
	typ  vector.Type // element column type: typed when the plan knows it

	inb   *vector.Batch
	list  *vector.Vector // the evaluated lists of inb
	pos   int            // next logical row of inb
	row   int            // physical row whose elements are in elems
	elems []vector.Value
	next  int

	idx []int32
	out *vector.Batch
}

func newUnwind(c *Context, p *plan.Unwind, in Operator) (*unwindOp, error) {
	ev, err := compile(c, p.Expr)
	if err != nil {
		return nil, err
	}
	typ := p.Cols[len(p.Cols)-1].Type
	return &unwindOp{c: c, in: in, expr: ev, typ: typ, out: &vector.Batch{Cols: make([]*vector.Vector, len(p.Cols))}}, nil
}

func (u *unwindOp) Next() (*vector.Batch, error) {
	if err := u.c.checkCancel(); err != nil {
		return nil, err
	}
	nin := len(u.out.Cols) - 1
	elemCol := ensure(u.out.Cols[nin], u.typ)
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
		if u.inb == nil || u.pos >= u.inb.Rows() {
			if len(u.idx) > 0 {
				break // the output still refers to this input batch
			}
			b, err := u.in.Next()
			if err != nil || b == nil {
				return nil, err
			}
			if u.list, err = u.expr.eval(b); err != nil {
				return nil, err
			}
			u.inb, u.pos = b, 0
			continue
		}
		u.row = u.inb.Row(u.pos)
		u.pos++
		switch x := u.list.Get(u.row).(type) {
		case nil:
			u.elems = u.elems[:0]
		case []vector.Value:
			u.elems = x
		default:
			u.elems = append(u.elems[:0], x)
		}
		u.next = 0
	}
	if len(u.idx) == 0 {
		return nil, nil
	}
	for i, src := range u.inb.Cols[:nin] {
		u.out.Cols[i] = ensure(u.out.Cols[i], src.Type)
		copyRows(u.out.Cols[i], 0, src, u.idx)
	}
	u.out.Len, u.out.Sel = len(u.idx), nil
	return u.out, nil
}
