package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// subqueryEval evaluates a pattern predicate, EXISTS or a pattern
// comprehension batch-at-a-time, like OPTIONAL MATCH: the sub-plan runs
// once per batch over an argument carrying the batch and a row number,
// and its rows are mapped back to their outer rows by that number.
type subqueryEval struct {
	c     *Context
	p     *plan.PatternSubquery
	rows  *vector.Vector
	found []bool
	lists [][]vector.Value
	cols  []*vector.Vector
	out   *vector.Vector
}

func (e *subqueryEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	if e.found == nil {
		e.found = make([]bool, vector.Capacity)
		e.lists = make([][]vector.Value, vector.Capacity)
	}
	width := len(e.p.Arg.Cols) - 1
	e.cols = append(e.cols[:0], b.Cols[:width]...)
	arg := &vector.Batch{Cols: append(e.cols, e.rows), Len: b.Len, Sel: b.Sel}
	sel, n := rows(b)
	vector.ForRows(sel, n, func(r int) {
		e.rows.I64[r] = int64(r)
		e.found[r] = false
		e.lists[r] = nil
	})
	inner, err := Build(e.c, e.p.Plan)
	if err != nil {
		return nil, err
	}
	a, ok := e.c.args[e.p.Arg]
	if !ok {
		return nil, bug("pattern subquery plan has no argument")
	}
	a.b, a.done = arg, false
	// A predicate stops pulling matches once every row has one.
	pending := b.Rows()
	for pending > 0 || e.p.Proj >= 0 {
		ib, err := inner.Next()
		if err != nil {
			return nil, err
		}
		if ib == nil {
			break
		}
		rowCol := ib.Cols[e.p.RowCol]
		for i := 0; i < ib.Rows(); i++ {
			row := ib.Row(i)
			r := rowCol.I64[row]
			if !e.found[r] {
				e.found[r] = true
				pending--
			}
			if e.p.Proj >= 0 {
				e.lists[r] = append(e.lists[r], ib.Cols[e.p.Proj].Get(row))
			}
		}
	}
	if e.p.Proj < 0 {
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
