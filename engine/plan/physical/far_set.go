package physical

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// farSet: a Filter right above an expansion that does not close a cycle,
// some of whose conjuncts read only the expansion's far node, may
// evaluate those once per candidate node into a bitset the expansion
// tests (exec/far_set.go); the executor builds the set once the rows
// filtered have paid for it, and never once the statement has written.
// A Filter whose whole predicate is range terms fuses into the
// expansion instead (range-filter), so far-set is never chosen beside it.
func farSet(op plan.Operator) bool {
	f, ok := op.(*plan.Filter)
	if !ok || plan.Chose(op, plan.RuleRangeFilter) {
		return false
	}
	ex, ok := f.Input.(*plan.Expand)
	if !ok || ex.Into >= 0 {
		return false
	}
	far, _ := FarConjuncts(f.Pred, ex)
	return far != nil
}

// FarConjuncts splits the conjuncts of pred, a Filter's predicate over
// Expand ex, into those reading only ex's far node, joined with AND and
// rewritten to read it as column 0 (nil when there are none), and the
// others.
func FarConjuncts(pred plan.Expr, ex *plan.Expand) (far plan.Expr, rest []plan.Expr) {
	farCol := len(ex.Input.Columns()) + 1
	var fars []plan.Expr
	for _, t := range plan.Conjuncts(pred, nil) {
		if x, ok := OnColumn(t, farCol); ok {
			fars = append(fars, x)
		} else {
			rest = append(rest, t)
		}
	}
	if len(fars) == 0 {
		return nil, rest
	}
	return AndAll(fars), rest
}

// AndAll joins conjuncts with AND.
func AndAll(ts []plan.Expr) plan.Expr {
	x := ts[0]
	for _, t := range ts[1:] {
		x = &plan.Binary{Op: plan.OpAnd, L: x, R: t}
	}
	return x
}

// setSafeCalls are the functions a far conjunct may call: they depend on
// their arguments alone, so evaluating them once per node is evaluating
// them once per row.
var setSafeCalls = map[string]bool{
	functions.OpStartsWith: true, functions.OpEndsWith: true, functions.OpContains: true,
	functions.OpRegex: true, functions.OpIn: true,
	"tolower": true, "toupper": true, "trim": true, "ltrim": true, "rtrim": true, "size": true,
	"substring": true, "left": true, "right": true, "tostring": true, "tointeger": true,
	"tofloat": true, "toboolean": true, "abs": true, "coalesce": true, "replace": true,
}

// OnColumn returns t with its references to column col made references
// to column 0, when t reads nothing but col's properties and labels,
// constants and parameters through operators and set-safe functions.
func OnColumn(t plan.Expr, col int) (plan.Expr, bool) {
	uses := false
	var walk func(plan.Expr) (plan.Expr, bool)
	walk = func(e plan.Expr) (plan.Expr, bool) {
		switch x := e.(type) {
		case *plan.Const, *plan.Param:
			return e, true
		case *plan.ColRef:
			if x.Idx != col || x.T != vector.Node {
				return nil, false
			}
			uses = true
			y := *x
			y.Idx = 0
			return &y, true
		case *plan.Property:
			y := *x
			var ok bool
			y.Of, ok = walk(x.Of)
			return &y, ok
		case *plan.HasLabels:
			y := *x
			var ok bool
			y.X, ok = walk(x.X)
			return &y, ok
		case *plan.Binary:
			y := *x
			var ok1, ok2 bool
			y.L, ok1 = walk(x.L)
			y.R, ok2 = walk(x.R)
			return &y, ok1 && ok2
		case *plan.Not:
			y, ok := walk(x.X)
			return &plan.Not{X: y}, ok
		case *plan.Neg:
			y, ok := walk(x.X)
			return &plan.Neg{X: y}, ok
		case *plan.IsNull:
			y := *x
			var ok bool
			y.X, ok = walk(x.X)
			return &y, ok
		case *plan.List:
			elems, ok := walkAll(x.Elems, walk)
			return &plan.List{Elems: elems}, ok
		case *plan.Call:
			if !setSafeCalls[x.Name] {
				return nil, false
			}
			y := *x
			var ok bool
			y.Args, ok = walkAll(x.Args, walk)
			return &y, ok
		}
		return nil, false
	}
	out, ok := walk(t)
	return out, ok && uses
}

// walkAll maps walk over es; false when it fails on any.
func walkAll(es []plan.Expr, walk func(plan.Expr) (plan.Expr, bool)) ([]plan.Expr, bool) {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		y, ok := walk(e)
		if !ok {
			return nil, false
		}
		out[i] = y
	}
	return out, true
}
