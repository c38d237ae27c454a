package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// argumentOp yields one batch given by its parent, once.
type argumentOp struct {
	b    *vector.Batch
	done bool
}

func (a *argumentOp) Next() (*vector.Batch, error) {
	if a.done {
		return nil, nil
	}
	a.done = true
	return a.b, nil
}

// optionalOp implements OPTIONAL MATCH as a batch-at-a-time apply: for
// each input batch it builds and runs the inner plan over that batch (plus
// a row-number column), keeps every inner row, and adds each input row
// the inner plan produced nothing for, with nulls in the new columns.
type optionalOp struct {
	c  *Context
	p  *plan.Optional
	in Operator

	rows    *vector.Vector // row numbers for the argument batch
	buf     []rowstore.Column
	n, pos  int
	out     *vector.Batch
	matched []bool
	held    int64 // bytes of buf charged to the memory budget
}

func newOptional(c *Context, p *plan.Optional, in Operator) *optionalOp {
	ncols := len(p.Inner.Columns())
	return &optionalOp{c: c, p: p, in: in, rows: vector.New(vector.Int64, vector.Capacity),
		out: &vector.Batch{Cols: make([]*vector.Vector, ncols)}, matched: make([]bool, vector.Capacity)}
}

func (o *optionalOp) Next() (*vector.Batch, error) {
	for o.pos >= o.n {
		b, err := o.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		if err := o.apply(b); err != nil {
			return nil, err
		}
	}
	n := min(o.n-o.pos, vector.Capacity)
	for c := range o.buf {
		o.out.Cols[c] = o.buf[c].Emit(o.out.Cols[c], o.pos, n)
	}
	o.out.Len, o.out.Sel = n, nil
	o.pos += n
	return o.out, nil
}

// apply runs the inner plan over one input batch into the buffer.
func (o *optionalOp) apply(b *vector.Batch) error {
	arg := &vector.Batch{Cols: append(append([]*vector.Vector(nil), b.Cols...), o.rows), Len: b.Len, Sel: b.Sel}
	for r := 0; r < b.Len; r++ {
		o.rows.I64[r] = int64(r)
		o.matched[r] = false
	}
	inner, err := Build(o.c, o.p.Inner)
	if err != nil {
		return err
	}
	a, ok := o.c.args[o.p.Arg]
	if !ok {
		return bug("OPTIONAL MATCH plan has no argument")
	}
	a.b, a.done = arg, false
	ncols := len(o.p.Inner.Columns())
	o.buf, o.n, o.pos = make([]rowstore.Column, ncols), 0, 0
	o.c.Mem.Release(o.held) // the previous batch's rows are dropped
	o.held = 0
	for {
		ib, err := inner.Next()
		if err != nil {
			return err
		}
		if ib == nil {
			break
		}
		n, err := o.c.chargeBatch(ib)
		if err != nil {
			return err
		}
		o.held += n
		for i := 0; i < ib.Rows(); i++ {
			r := ib.Row(i)
			o.matched[ib.Cols[o.p.RowCol].I64[r]] = true
			for c := range o.buf {
				o.buf[c].Push(ib.Cols[c], r)
			}
			o.n++
		}
	}
	nargs := len(arg.Cols)
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if o.matched[r] {
			continue
		}
		for c := 0; c < nargs; c++ {
			o.buf[c].Push(arg.Cols[c], r)
		}
		for c := nargs; c < ncols; c++ {
			o.buf[c].Push(expr.NullVector, 0)
		}
		o.n++
	}
	return nil
}
