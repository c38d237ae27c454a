package plan

import (
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// aggMode says how an expression may use aggregate functions.
type aggMode uint8

const (
	// noAggregates: WHERE, property maps, SKIP/LIMIT, aggregate arguments.
	noAggregates aggMode = iota
	// collectAggregates: a projection item; aggregates are collected into
	// the Aggregate operator and replaced by references to its output.
	collectAggregates
)

// expr binds an expression against the current scope.
func (b *binder) expr(e gql.Expr, mode aggMode) (Expr, error) {
	return b.exprWith(e, mode, nil)
}

// exprWith binds an expression; aggs, when not nil, collects aggregate calls
// (mode collectAggregates) and the result refers to them through aggRef.
// Each kind of expression binds in a method of its own, by family:
// operators (bind_expr_ops.go), reads of variables, properties and list
// elements (bind_expr_access.go), literals and CASE (bind_expr_lit.go),
// function and aggregate calls (bind_expr_call.go).
func (b *binder) exprWith(e gql.Expr, mode aggMode, aggs *aggCollector) (Expr, error) {
	if f, ok := e.(*gql.FuncCall); ok {
		if x, ok, err := b.aggregateCall(f, mode, aggs); ok {
			return x, err
		}
	}
	if x, ok, err := b.localExpr(e, mode, aggs); ok {
		return x, err
	}
	switch e := e.(type) {
	case *gql.Literal:
		return &Const{Val: e.Value, T: vector.TypeOf(e.Value)}, nil
	case *gql.Param:
		// A missing parameter is reported when the query runs; here its
		// type is simply unknown.
		return b.param(e.Name), nil
	case *gql.Variable:
		return b.variable(e)
	case *gql.PropertyAccess:
		return b.propertyAccess(e, mode, aggs)
	case *gql.LabelTest:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		return &HasLabels{X: x, Labels: e.Labels, Any: e.Any, Expr: bindLabelExpr(e.Expr)}, nil
	case *gql.IsNull:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		return &IsNull{X: x, Negate: e.Not}, nil
	case *gql.TypePredicate, *gql.Cast:
		return b.typeExpr(e, mode, aggs)
	case *gql.Unary:
		return b.unary(e, mode, aggs)
	case *gql.Binary:
		return b.binary(e, mode, aggs)
	case *gql.Comparison:
		return b.comparison(e, mode, aggs)
	case *gql.FuncCall:
		return b.call(e, mode, aggs)
	case *gql.Index:
		return b.index(e, mode, aggs)
	case *gql.Slice:
		return b.slice(e, mode, aggs)
	case *gql.Case:
		return b.caseExpr(e, mode, aggs)
	case *gql.ListLit:
		return b.listLit(e, mode, aggs)
	case *gql.MapLit:
		return b.mapLit(e, mode, aggs)
	}
	return nil, notSupported(e.Position(), "this kind of expression is not supported yet")
}

// param binds parameter name, typed by its value when it has one.
func (b *binder) param(name string) *Param {
	v, ok := b.params[name]
	if !ok || b.untyped {
		return &Param{Name: name, T: vector.Any}
	}
	return &Param{Name: name, T: vector.TypeOf(v), Kind: valueKind(v)}
}
