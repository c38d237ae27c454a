package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// subqueryEval evaluates a pattern predicate, EXISTS, COUNT, COLLECT or a
// pattern comprehension batch-at-a-time, like OPTIONAL MATCH: the
// sub-plan runs once per batch over an argument carrying the batch and a
// row number, and its rows are mapped back to their outer rows by that
// number. A per-row subquery (plan.PatternSubquery.PerRow) runs once for
// each row of the batch instead, over an argument selecting that row.
type subqueryEval struct {
	c      *Context
	p      *plan.PatternSubquery
	rows   *vector.Vector
	found  []bool
	counts []int64
	lists  [][]vector.Value
	cols   []*vector.Vector
	one    []int32
	out    *vector.Vector
	// held is what the rows collected for COLLECT or a comprehension
	// were charged, released once the batch's lists are built.
	held int64
	// seen counts each row's matches, for the per-row SKIP and LIMIT.
	seen []int64
	// empty holds the rows of the empty plan once run (emptyRows).
	empty *[][]vector.Value
}

func (e *subqueryEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	if e.found == nil {
		e.found = make([]bool, vector.Capacity)
		e.seen = make([]int64, vector.Capacity)
		e.counts = make([]int64, vector.Capacity)
		e.lists = make([][]vector.Value, vector.Capacity)
	}
	defer func() {
		e.c.Mem.Release(e.held)
		e.held = 0
	}()
	width := len(e.p.Arg.Cols) - 1
	e.cols = append(e.cols[:0], b.Cols[:width]...)
	arg := &vector.Batch{Cols: append(e.cols, e.rows), Len: b.Len, Sel: b.Sel}
	sel, n := rows(b)
	vector.ForRows(sel, n, func(r int) {
		e.rows.I64[r] = int64(r)
		e.found[r] = false
		e.seen[r] = 0
		e.counts[r] = 0
		e.lists[r] = nil
	})
	if !e.p.PerRow {
		if err := e.run(arg, -1, b.Rows()); err != nil {
			return nil, err
		}
	} else {
		for i := 0; i < b.Rows(); i++ {
			if err := e.c.Interrupted(); err != nil {
				return nil, err
			}
			r := b.Row(i)
			e.one = append(e.one[:0], int32(r))
			arg.Sel = e.one
			if err := e.run(arg, r, 1); err != nil {
				return nil, err
			}
		}
	}
	if e.p.EmptyPlan != nil {
		if err := e.fillEmpty(sel, n); err != nil {
			return nil, err
		}
	}
	return e.result(b, sel, n)
}

// fillEmpty gives each row without a match the empty plan's rows: a
// decorrelated keyless aggregate's value over no rows.
func (e *subqueryEval) fillEmpty(sel []int32, n int) error {
	if e.empty == nil {
		rows, err := emptyRows(e.c, e.p.EmptyPlan, e.p.EmptyArg)
		if err != nil {
			return err
		}
		e.empty = &rows
	}
	rows := *e.empty
	vector.ForRows(sel, n, func(r int) {
		if e.found[r] || len(rows) == 0 {
			return
		}
		e.found[r] = true
		e.counts[r] = int64(len(rows))
		if e.p.Proj >= 0 {
			for _, row := range rows {
				e.lists[r] = append(e.lists[r], row[len(row)-1])
			}
		}
	})
	return nil
}

// run runs the sub-plan over arg; its rows belong to outer row r, or
// with r < 0 to the row their row-number column names. pending is how
// many rows have no match yet: a predicate stops pulling once all have.
func (e *subqueryEval) run(arg *vector.Batch, r int, pending int) error {
	inner, err := Build(e.c, e.p.Plan)
	if err != nil {
		return err
	}
	a, ok := e.c.args[e.p.Arg]
	if !ok {
		return bug("pattern subquery plan has no argument")
	}
	a.b, a.done = arg, false
	predicate := e.p.Proj < 0 && !e.p.Count
	for pending > 0 || !predicate {
		ib, err := inner.Next()
		if err != nil {
			return err
		}
		if ib == nil {
			break
		}
		if err := e.c.Interrupted(); err != nil {
			return err // between inner batches: a run may give millions of rows
		}
		if e.p.Proj >= 0 {
			n, err := e.c.chargeBatch(ib)
			e.held += n
			if err != nil {
				return err
			}
		}
		for i := 0; i < ib.Rows(); i++ {
			row := ib.Row(i)
			or := r
			if or < 0 {
				or = int(ib.Cols[e.p.RowCol].I64[row])
				k := e.seen[or]
				e.seen[or]++
				if !e.p.Rows.Keep(k) {
					continue
				}
			}
			if !e.found[or] {
				e.found[or] = true
				pending--
			}
			e.counts[or]++
			if e.p.Proj >= 0 {
				e.lists[or] = append(e.lists[or], ib.Cols[e.p.Proj].Get(row))
			}
		}
	}
	return nil
}

// result is the subquery's value for each row of b.
func (e *subqueryEval) result(b *vector.Batch, sel []int32, n int) (*vector.Vector, error) {
	switch {
	case e.p.Count:
		e.out = vector.Reuse(e.out, vector.Int64)
		out := e.out
		vector.ForRows(sel, n, func(r int) { out.I64[r] = e.counts[r] })
		return out, nil
	case e.p.Proj < 0:
		e.out = vector.Reuse(e.out, vector.Bool)
		out := e.out
		vector.ForRows(sel, n, func(r int) { out.Bools[r] = e.found[r] })
		for _, c := range e.p.NullIf {
			v := b.Cols[c]
			vector.ForRows(sel, n, func(r int) {
				if v.IsNull(r) {
					out.SetNull(r)
				}
			})
		}
		return out, nil
	}
	e.out = vector.Reuse(e.out, vector.Any)
	out := e.out
	vector.ForRows(sel, n, func(r int) {
		l := e.lists[r]
		if l == nil {
			l = []vector.Value{}
		}
		out.Set(r, l)
		e.lists[r] = nil
	})
	return out, nil
}
