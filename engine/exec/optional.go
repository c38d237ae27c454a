package exec

import (
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
	applyBuffer
	p  *plan.Optional
	in Operator
}

func newOptional(c *Context, p *plan.Optional, in Operator) *optionalOp {
	return &optionalOp{applyBuffer: newApplyBuffer(c, len(p.Inner.Columns())), p: p, in: in}
}

func (o *optionalOp) Next() (*vector.Batch, error) { return o.next(o.in, o.apply) }

// apply runs the inner plan over one input batch into the buffer.
func (o *optionalOp) apply(b *vector.Batch) (bool, error) {
	arg := o.start(b)
	inner, err := Build(o.c, o.p.Inner)
	if err != nil {
		return false, err
	}
	a, ok := o.c.args[o.p.Arg]
	if !ok {
		return false, bug("OPTIONAL MATCH plan has no argument")
	}
	a.b, a.done = arg, false
	for {
		ib, err := inner.Next()
		if err != nil {
			return false, err
		}
		if ib == nil {
			break
		}
		if err := o.charge(ib); err != nil {
			return false, err
		}
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
		for c := nargs; c < len(o.buf); c++ {
			o.buf[c].Push(expr.NullVector, 0)
		}
		o.n++
	}
	return false, nil
}
