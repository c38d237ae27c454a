package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// callSubqueryOp runs CALL { … } (plan.CallSubquery) as a batch-at-a-time
// apply, as optionalOp runs OPTIONAL MATCH: for each input batch it builds
// the inner plan over that batch and a row-number column (or, per row,
// over an argument selecting one row at a time), and joins each inner
// row to the outer row its number names. The joined rows of one input
// batch are buffered, charged to the statement's memory, and emitted in
// batches. A unit subquery passes the input batch on once the inner plan
// ran for each of its rows.
type callSubqueryOp struct {
	applyBuffer
	p  *plan.CallSubquery
	in Operator

	one []int32 // the selection of one row, per row
	// since counts the input rows run since the last commit (IN
	// TRANSACTIONS).
	since int64
	// seen counts each input row's inner rows, for the per-row SKIP and
	// LIMIT; empty holds the rows of the empty plan once run.
	seen  []int64
	empty *[][]vector.Value
}

func newCallSubquery(c *Context, p *plan.CallSubquery, in Operator) *callSubqueryOp {
	return &callSubqueryOp{applyBuffer: newApplyBuffer(c, len(p.Cols)), p: p, in: in, seen: make([]int64, vector.Capacity)}
}

func (o *callSubqueryOp) Next() (*vector.Batch, error) { return o.next(o.in, o.apply) }

// apply runs the inner plan for the rows of one input batch, buffering
// the joined rows; a unit subquery passes the input batch on.
func (o *callSubqueryOp) apply(b *vector.Batch) (bool, error) {
	return o.p.Unit, o.applyRows(b)
}

// applyRows is apply's work.
func (o *callSubqueryOp) applyRows(b *vector.Batch) error {
	arg := o.start(b)
	clear(o.seen[:b.Len])
	if !o.p.PerRow {
		if err := o.run(b, arg, -1); err != nil {
			return err
		}
		var empty [][]vector.Value
		if o.p.EmptyPlan != nil {
			if o.empty == nil {
				rows, err := emptyRows(o.c, o.p.EmptyPlan, o.p.EmptyArg)
				if err != nil {
					return err
				}
				o.empty = &rows
			}
			empty = *o.empty
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			switch {
			case o.matched[r]:
			case len(empty) > 0:
				o.pushEmpty(b, r, empty)
			case o.p.Optional:
				o.pushUnmatched(b, r)
			}
		}
		return nil
	}
	for i := 0; i < b.Rows(); i++ {
		if err := o.c.Interrupted(); err != nil {
			return err
		}
		r := b.Row(i)
		o.one = append(o.one[:0], int32(r))
		arg.Sel = o.one
		if err := o.run(b, arg, r); err != nil {
			return err
		}
		if o.p.Optional && !o.matched[r] {
			o.pushUnmatched(b, r)
		}
		if o.p.BatchRows > 0 {
			if o.since++; o.since == o.p.BatchRows {
				o.since = 0
				if err := o.commit(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// commit ends the statement's transaction after a batch of IN
// TRANSACTIONS rows and goes on in a new one.
func (o *callSubqueryOp) commit() error {
	if err := DrainUpdates(o.c); err != nil {
		return err
	}
	if o.c.CommitBatch == nil {
		return bug("CALL { … } IN TRANSACTIONS without a transaction to commit")
	}
	return o.c.CommitBatch()
}

// run runs the inner plan over arg; its rows belong to outer row r, or
// with r < 0 to the row their row-number column names.
func (o *callSubqueryOp) run(b, arg *vector.Batch, r int) error {
	mark := len(o.c.eagers)
	inner, err := Build(o.c, o.p.Inner)
	if err != nil {
		return err
	}
	a, ok := o.c.args[o.p.Arg]
	if !ok {
		return bug("CALL subquery plan has no argument")
	}
	a.b, a.done = arg, false
	nouter := len(o.p.Cols) - len(o.p.Ret)
	for {
		ib, err := inner.Next()
		if err != nil {
			return err
		}
		if ib == nil {
			return o.c.endEagers(mark)
		}
		if err := o.c.Interrupted(); err != nil {
			return err // between inner batches: a run may give millions of rows
		}
		if o.p.Unit {
			continue // run for its effects
		}
		if err := o.charge(ib); err != nil {
			return err
		}
		for i := 0; i < ib.Rows(); i++ {
			row := ib.Row(i)
			or := r
			if or < 0 {
				or = int(ib.Cols[o.p.RowCol].I64[row])
				k := o.seen[or]
				o.seen[or]++
				if !o.p.Rows.Keep(k) {
					continue
				}
			}
			o.matched[or] = true
			for c := 0; c < nouter; c++ {
				o.buf[c].Push(b.Cols[c], or)
			}
			for j, c := range o.p.Ret {
				o.buf[nouter+j].Push(ib.Cols[c], row)
			}
			o.n++
		}
	}
}

// pushEmpty adds outer row r joined with each of the empty plan's rows:
// what a decorrelated keyless aggregate gives a row it saw nothing for.
func (o *callSubqueryOp) pushEmpty(b *vector.Batch, r int, rows [][]vector.Value) {
	nouter := len(o.p.Cols) - len(o.p.Ret)
	for _, row := range rows {
		for c := 0; c < nouter; c++ {
			o.buf[c].Push(b.Cols[c], r)
		}
		off := len(row) - len(o.p.Ret)
		for j := range o.p.Ret {
			o.buf[nouter+j].PushValue(row[off+j])
		}
		o.n++
	}
}

// emptyRows runs a subquery's empty plan over an argument of no rows: the
// rows a keyless aggregate gives an outer row that had none (one, as a
// rule: count 0, collect []).
func emptyRows(c *Context, p plan.Operator, arg *plan.Argument) ([][]vector.Value, error) {
	inner, err := Build(c, p)
	if err != nil {
		return nil, err
	}
	a, ok := c.args[arg]
	if !ok {
		return nil, bug("subquery's empty plan has no argument")
	}
	cols := make([]*vector.Vector, len(arg.Cols))
	for i, col := range arg.Cols {
		cols[i] = vector.New(col.Type, vector.Capacity)
	}
	a.b, a.done = &vector.Batch{Cols: cols}, false
	var out [][]vector.Value
	for {
		ib, err := inner.Next()
		if err != nil || ib == nil {
			return out, err
		}
		for i := 0; i < ib.Rows(); i++ {
			row := ib.Row(i)
			vals := make([]vector.Value, len(ib.Cols))
			for j, v := range ib.Cols {
				vals[j] = v.Get(row)
			}
			out = append(out, vals)
		}
	}
}

// pushUnmatched adds outer row r with nulls for the returned columns:
// OPTIONAL CALL of a row the subquery gave nothing for.
func (o *callSubqueryOp) pushUnmatched(b *vector.Batch, r int) {
	nouter := len(o.p.Cols) - len(o.p.Ret)
	for c := 0; c < nouter; c++ {
		o.buf[c].Push(b.Cols[c], r)
	}
	for c := nouter; c < len(o.p.Cols); c++ {
		o.buf[c].Push(expr.NullVector, 0)
	}
	o.n++
}

// argumentLeaf is one leaf of a plan's Argument: it yields the batch its
// parent gave the Argument (src), once. A plan with several leaves of one
// Argument (the parts of a UNION in a subquery) reads it in each; the
// plan is built anew for each batch, and its leaves with it.
type argumentLeaf struct {
	src  *argumentOp
	done bool
}

func (a *argumentLeaf) Next() (*vector.Batch, error) {
	if a.done || a.src.done {
		return nil, nil
	}
	a.done = true
	return a.src.b, nil
}

// endEagers finishes the Eager barriers built since the statement had
// mark of them, those of one run of a subquery's plan: it runs the ones
// never pulled (their writes happen whatever stopped early above them),
// releases the rows they held and forgets them, so that a subquery run
// per row for millions of rows does not keep a barrier per row to the
// end of the statement.
func (c *Context) endEagers(mark int) error {
	for _, e := range c.eagers[mark:] {
		if !e.filled {
			e.filled = true
			if err := e.buf.Fill(); err != nil {
				return err
			}
		}
		if e.buf.mem != nil {
			e.buf.held.Release(e.buf.mem)
		}
		e.buf.cols = nil
	}
	clear(c.eagers[mark:])
	c.eagers = c.eagers[:mark]
	return nil
}
