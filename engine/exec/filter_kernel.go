package exec

import (
	"math"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// rangeFilter is a Filter whose predicate is a conjunction of comparisons
// of a node or relationship property with an integer constant
// (`k.since > 2015 AND b.age < 25`). When every compared column has a
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

// newRangeFilter returns the filter for pred when it is a conjunction of
// integer range terms, else nil.
func newRangeFilter(c *Context, pred plan.Expr, in Operator, gen *filterOp) *rangeFilter {
	if !c.Rules.On(plan.RuleRangeFilter) {
		return nil
	}
	var terms []rangeTerm
	if !rangeTerms(c, pred, &terms) {
		return nil
	}
	f := &rangeFilter{c: c, in: in, terms: terms, gen: gen, views: make([]*storage.IntView, len(terms))}
	for i := range f.bufs {
		f.bufs[i] = make([]int32, 0, vector.Capacity)
	}
	return f
}

// rangeTerms appends the range terms of e's conjuncts; false when one of
// them is not a range term.
func rangeTerms(c *Context, e plan.Expr, terms *[]rangeTerm) bool {
	b, ok := e.(*plan.Binary)
	if !ok {
		return false
	}
	if b.Op == plan.OpAnd {
		return rangeTerms(c, b.L, terms) && rangeTerms(c, b.R, terms)
	}
	if !b.Op.IsComparison() || b.Op == plan.OpNe {
		return false
	}
	op, prop, k := b.Op, b.L, b.R
	if _, isProp := prop.(*plan.Property); !isProp {
		op, prop, k = flipCompare(op), b.R, b.L
	}
	p, ok := prop.(*plan.Property)
	if !ok {
		return false
	}
	ref, ok := p.Of.(*plan.ColRef)
	if !ok {
		return false
	}
	x, ok := intConst(c, k)
	if !ok {
		return false
	}
	t := rangeTerm{col: ref.Idx, key: p.Key, lo: math.MinInt64, hi: math.MaxInt64}
	switch op {
	case plan.OpEq:
		t.lo, t.hi = x, x
	case plan.OpLt:
		if x == math.MinInt64 {
			t.lo, t.hi = 1, 0 // empty
		} else {
			t.hi = x - 1
		}
	case plan.OpLe:
		t.hi = x
	case plan.OpGt:
		if x == math.MaxInt64 {
			t.lo, t.hi = 1, 0
		} else {
			t.lo = x + 1
		}
	case plan.OpGe:
		t.lo = x
	}
	*terms = append(*terms, t)
	return true
}

// flipCompare is the operator of the comparison with its operands swapped.
func flipCompare(op plan.BinOp) plan.BinOp {
	switch op {
	case plan.OpLt:
		return plan.OpGt
	case plan.OpLe:
		return plan.OpGe
	case plan.OpGt:
		return plan.OpLt
	case plan.OpGe:
		return plan.OpLe
	}
	return op
}

// intConst is the value of an INTEGER literal or parameter.
func intConst(c *Context, e plan.Expr) (int64, bool) {
	x, ok := constValue(c, e).(int64)
	return x, ok
}

// constValue is the value of a literal or parameter, nil for any other
// expression.
func constValue(c *Context, e plan.Expr) vector.Value {
	switch e := e.(type) {
	case *plan.Const:
		return e.Val
	case *plan.Param:
		return c.Params[e.Name]
	}
	return nil
}

func (f *rangeFilter) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		sel, n := rows(b)
		if !f.prepare(b) {
			if b, err = f.gen.filter(b); err != nil {
				return nil, err
			}
			if b == nil {
				continue
			}
			return b, nil
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
				break
			}
		}
		if len(sel) == 0 {
			continue
		}
		b.Sel = sel
		return b, nil
	}
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
