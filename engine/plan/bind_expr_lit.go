package plan

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// caseExpr binds CASE as the operator function #case. Arguments:
// whether it is the simple form, the subject (or null), then when/then
// pairs, then else.
func (b *binder) caseExpr(e *gql.Case, mode aggMode, aggs *aggCollector) (Expr, error) {
	var args []Expr
	parts := append([]gql.Expr{e.Subject}, interleave(e.Whens, e.Thens)...)
	parts = append(parts, e.Else)
	for _, part := range parts {
		if part == nil {
			args = append(args, &Const{Val: nil, T: vector.Null})
			continue
		}
		x, err := b.exprWith(part, mode, aggs)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	simple := &Const{Val: e.Subject != nil, T: vector.Bool}
	return &Call{Name: functions.OpCase, Args: append([]Expr{simple}, args...), T: vector.Any}, nil
}

// listLit binds a list literal, one constant when its elements are.
func (b *binder) listLit(e *gql.ListLit, mode aggMode, aggs *aggCollector) (Expr, error) {
	l := &List{}
	for _, x := range e.Elems {
		el, err := b.exprWith(x, mode, aggs)
		if err != nil {
			return nil, err
		}
		l.Elems = append(l.Elems, el)
	}
	return b.foldConst(l), nil
}

// mapLit binds a map literal, one constant when its values are.
func (b *binder) mapLit(e *gql.MapLit, mode aggMode, aggs *aggCollector) (Expr, error) {
	m := &Map{Keys: e.Keys}
	for _, x := range e.Values {
		v, err := b.exprWith(x, mode, aggs)
		if err != nil {
			return nil, err
		}
		m.Vals = append(m.Vals, v)
	}
	return b.foldConst(m), nil
}

// foldConst turns a list or map literal whose parts are all constants into
// one constant value, built once instead of per row (RuleConstantFold).
func (b *binder) foldConst(e Expr) Expr {
	if !b.opts.On(RuleConstantFold) {
		return e
	}
	switch x := e.(type) {
	case *List:
		vals := make([]vector.Value, len(x.Elems))
		for i, el := range x.Elems {
			c, ok := el.(*Const)
			if !ok {
				return e
			}
			vals[i] = c.Val
		}
		b.fire(RuleConstantFold)
		return &Const{Val: vals, T: vector.Any}
	case *Map:
		vals := make(map[string]vector.Value, len(x.Keys))
		for i, k := range x.Keys {
			c, ok := x.Vals[i].(*Const)
			if !ok {
				return e
			}
			vals[k] = c.Val
		}
		b.fire(RuleConstantFold)
		return &Const{Val: vals, T: vector.Any}
	}
	return e
}

func interleave(a, b []gql.Expr) []gql.Expr {
	out := make([]gql.Expr, 0, 2*len(a))
	for i := range a {
		out = append(out, a[i], b[i])
	}
	return out
}
