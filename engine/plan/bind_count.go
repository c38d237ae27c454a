package plan

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// countExpr binds a SKIP or LIMIT count: an expression that reads no
// variable (a constant, a parameter, toInteger(ceil(1.7))). A constant or
// parameter count is checked here; other expressions when the query
// starts.
func (b *binder) countExpr(e gql.Expr, what string) (Expr, error) {
	pos := e.Position()
	if p, ok := containsAggregate(e); ok {
		return nil, semanticAt(p, "%s cannot use aggregate functions", what)
	}
	saved := b.sc.cols
	b.sc.cols = nil // no variable is visible: the count is computed once
	x, err := b.expr(e, noAggregates)
	b.sc.cols = saved
	if err != nil {
		if containsVariable(e) {
			return nil, semanticAt(pos, "%s expects an expression that does not depend on the rows (a constant or a parameter)", what)
		}
		return nil, err
	}
	switch c := x.(type) {
	case *Const:
		return x, CheckCount(c.Val, what, pos.Line, pos.Column)
	case *Param:
		if v, ok := b.params[c.Name]; ok {
			// A reused plan checks the next value the same way.
			b.countChecks = append(b.countChecks, CountCheck{Param: c, What: what, Line: pos.Line, Column: pos.Column})
			return x, CheckCountOf(x, v, what, pos.Line, pos.Column)
		}
	}
	return x, nil
}

// containsVariable reports whether e reads a variable.
func containsVariable(e gql.Expr) bool {
	found := false
	gql.Walk(e, func(x gql.Expr) bool {
		if _, ok := x.(*gql.Variable); ok {
			found = true
		}
		return !found
	})
	return found
}

// CheckCountOf checks the value v of count, a SKIP or LIMIT expression,
// as CheckCount does. A count that reads a parameter is data: a bad one
// is a 22023 (invalid parameter value); a count of the text alone (a
// literal, toInteger(ceil(-1.7))) is a 42000.
func CheckCountOf(count Expr, v vector.Value, what string, line, col int) error {
	err := CheckCount(v, what, line, col)
	if err == nil {
		return nil
	}
	readsParam := false
	Walk(count, func(x Expr) {
		if _, ok := x.(*Param); ok {
			readsParam = true
		}
	})
	if e, ok := errs.As(err); ok && readsParam {
		return asParamError(e)
	}
	return err
}

// CheckCount checks a SKIP or LIMIT count: a non-negative INTEGER. The
// error is a 42000 error as openCypher classifies it (NegativeIntegerArgument,
// InvalidArgumentType), with the count's position when line > 0.
func CheckCount(v vector.Value, what string, line, col int) error {
	var err *errs.Error
	switch n := v.(type) {
	case int64:
		if n >= 0 {
			return nil
		}
		err = errs.Semantic("%s expects a non-negative INTEGER, got %d", what, n)
	default:
		err = errs.Semantic("%s expects a non-negative INTEGER, got %s", what, FormatValue(v))
	}
	if line > 0 {
		return err.At(line, col)
	}
	return err
}
