package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// rangeFilter is a Filter whose predicate is a conjunction of comparisons
// of a node or relationship property with an integer literal or
// parameter (`k.since > 2015 AND b.age < $max`). When every compared column has a
// dense IntView (storage/intview.go), each comparison is a range test
// that narrows the selection straight from the view: no gathered value
// vector, no boolean vector, no three-valued AND. A batch where some
// column has no view (a mixed or sparse column, a view not yet worth
// building, a write in this statement that changed the column) takes the
// general predicate, which answers the same.
//
// Only whole conjunctions of such terms qualify: comparisons never fail,
// so narrowing term by term cannot skip an error the general path would
// raise (which evaluates every conjunct on every row).
type rangeFilter struct {
	c     *Context
	p     *plan.Filter
	in    Operator
	terms []rangeTerm
	gen   *filterOp // the general path
	views []*storage.IntView
	bufs  [2][]int32
}

// rangeTerm is `property(col) in [lo, hi]`.
type rangeTerm struct {
	col    int
	key    string
	lo, hi int64
}

// newRangeFilter returns the range filter for p, whose predicate the
// physical pass found to be a conjunction of range terms; nil, and a
// note for PROFILE, when a bound is a parameter whose value is not an
// integer.
func newRangeFilter(c *Context, p *plan.Filter, in Operator, gen *filterOp) *rangeFilter {
	terms, ok := rangeTerms(c, p.Pred, p, plan.RuleRangeFilter)
	if !ok {
		return nil
	}
	f := &rangeFilter{c: c, p: p, in: in, terms: terms, gen: gen, views: make([]*storage.IntView, len(terms))}
	for i := range f.bufs {
		f.bufs[i] = c.pool().Int32s()
	}
	return f
}

// rangeTerms resolves the bounds of pred's range terms (plan.AppendRangeTerms)
// for strategy s, chosen for operator p. False when pred is not such a
// conjunction (a plan the physical pass did not see) or a bound is a
// parameter whose value is not an integer, which PROFILE then notes.
func rangeTerms(c *Context, pred plan.Expr, p plan.Operator, s string) ([]rangeTerm, bool) {
	var buf [4]plan.RangeTerm
	pts, ok := plan.AppendRangeTerms(buf[:0], pred)
	if !ok {
		return nil, false
	}
	terms := make([]rangeTerm, len(pts))
	for i, t := range pts {
		x, ok := bound(c, t.Bound).(int64)
		if !ok {
			c.fellBack(p, s, notOfType(t.Bound, "an integer"))
			return nil, false
		}
		terms[i] = rangeTerm{col: t.Col, key: t.Key}
		terms[i].lo, terms[i].hi = t.Range(x)
	}
	return terms, true
}

// noView is the note of a batch that took the general path because a
// term's column had no integer view.
const noView = "a column without an integer view"

// bound is the value of a literal or parameter, nil for any other
// expression.
func bound(c *Context, e plan.Expr) vector.Value {
	switch e := e.(type) {
	case *plan.Const:
		return e.Val
	case *plan.Param:
		return c.Params[e.Name]
	}
	return nil
}

// notOfType is the fallback note for bound e, whose value is not what
// the strategy needs: "$since is not an integer".
func notOfType(e plan.Expr, what string) string {
	if p, ok := e.(*plan.Param); ok {
		return "$" + p.Name + " is not " + what
	}
	return e.String() + " is not " + what
}

func (f *rangeFilter) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		if b, err = f.filter(b); err != nil || b != nil {
			return b, err
		}
	}
}

// filter narrows b to the rows in every term's range, through the views,
// or through the general predicate when some term's column has none; nil
// when no row is left.
func (f *rangeFilter) filter(b *vector.Batch) (*vector.Batch, error) {
	sel, n := rows(b)
	if !f.prepare(b) {
		f.c.fellBack(f.p, plan.RuleRangeFilter, noView)
		return f.gen.filter(b)
	}
	for i, t := range f.terms {
		ids := b.Cols[t.col]
		if err := f.c.CheckDeleted(ids, b.Sel, b.Len); err != nil {
			return nil, err
		}
		f.c.Counters.DBHits += int64(b.Rows())
		dst := f.bufs[i&1][:0]
		sel = f.views[i].SelectRange(dst, ids, sel, n, t.lo, t.hi)
		if len(sel) == 0 {
			return nil, nil
		}
	}
	b.Sel = sel
	return b, nil
}

// prepare looks up the view of every term's column for batch b; false
// when some term cannot use one.
func (f *rangeFilter) prepare(b *vector.Batch) bool {
	rows := b.Rows()
	for i, t := range f.terms {
		ids := b.Cols[t.col]
		k, ok := f.c.Catalog.LookupKey(t.key)
		if !ok {
			return false
		}
		switch ids.Type {
		case vector.Node:
			f.views[i] = f.c.Tx.NodeIntView(k, rows)
		case vector.Rel:
			f.views[i] = f.c.Tx.RelIntView(k, rows)
		default:
			return false
		}
		if f.views[i] == nil {
			return false
		}
	}
	return true
}
