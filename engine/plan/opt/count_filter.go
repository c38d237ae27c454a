package opt

import (
	"slices"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// A CountExpand may also take the filters of its chain (rule
// count-filter): a Filter over the scan that reads only the start node,
// and one over an expansion that reads only its far end. The executor
// evaluates each once per candidate node into a set (the start nodes
// kept, or a far end's nodes tested per neighbour), so `MATCH
// (a)-->(b)-->(c) WHERE a.age = 30 AND c.city = 'City001' RETURN
// count(*)` counts without producing the millions of chains it filters.
//
// A node may pass or fail a predicate no row ever reaches it with, so
// the predicate must not fail on any node: only comparisons, the string
// operators, IN a literal list, IS NULL and the logic over them, of the
// node's properties, constants and parameters, none of which raises an
// error whatever the values.

// nodePredicate returns pred with its references to column col made
// references to column 0, when pred reads nothing but col's properties
// under the operators above.
func nodePredicate(pred plan.Expr, col int) (plan.Expr, bool) {
	uses := false
	value := func(e plan.Expr) (plan.Expr, bool) {
		switch x := e.(type) {
		case *plan.Const, *plan.Param:
			return e, true
		case *plan.Property:
			ref, ok := x.Of.(*plan.ColRef)
			if !ok || ref.Idx != col || ref.T != vector.Node {
				return nil, false
			}
			uses = true
			r := *ref
			r.Idx = 0
			return &plan.Property{Of: &r, Key: x.Key}, true
		}
		return nil, false
	}
	var test func(plan.Expr) (plan.Expr, bool)
	test = func(e plan.Expr) (plan.Expr, bool) {
		switch x := e.(type) {
		case *plan.Binary:
			var l, r plan.Expr
			var ok1, ok2 bool
			switch {
			case x.Op.IsComparison():
				l, ok1 = value(x.L)
				r, ok2 = value(x.R)
			case x.Op.IsLogical():
				l, ok1 = test(x.L)
				r, ok2 = test(x.R)
			default:
				return nil, false
			}
			y := *x
			y.L, y.R = l, r
			return &y, ok1 && ok2
		case *plan.Not:
			y, ok := test(x.X)
			return &plan.Not{X: y}, ok
		case *plan.IsNull:
			y := *x
			var ok bool
			y.X, ok = value(x.X)
			return &y, ok
		case *plan.Call:
			if len(x.Args) != 2 {
				return nil, false
			}
			switch x.Name {
			case functions.OpStartsWith, functions.OpEndsWith, functions.OpContains:
			case functions.OpIn:
				// IN fails on anything but a list at its right.
				if !literalList(x.Args[1]) {
					return nil, false
				}
			default:
				return nil, false
			}
			arg, ok := value(x.Args[0])
			if !ok {
				return nil, false
			}
			y := *x // a copy: x belongs to the plan kept when this fails
			y.Args = []plan.Expr{arg, x.Args[1]}
			if x.Name != functions.OpIn {
				y.Args[1], ok = value(x.Args[1])
			}
			return &y, ok
		}
		return nil, false
	}
	out, ok := test(pred)
	return out, ok && uses
}

// literalList reports whether e is a list of constants, or a constant
// list.
func literalList(e plan.Expr) bool {
	switch x := e.(type) {
	case *plan.List:
		return !slices.ContainsFunc(x.Elems, func(el plan.Expr) bool { _, ok := el.(*plan.Const); return !ok })
	case *plan.Const:
		_, ok := x.Val.([]vector.Value)
		return ok
	}
	return false
}

// indexedProperty reports whether pred reads a property some index
// covers on one of labels (on any label, for a scan without one, which
// index-union may serve): a seek then serves the start nodes better than
// a set evaluated over all of them.
func indexedProperty(pred plan.Expr, labels []string, indexes []plan.IndexInfo) bool {
	found := false
	plan.Walk(pred, func(e plan.Expr) {
		if p, ok := e.(*plan.Property); ok {
			for _, ix := range indexes {
				if (len(labels) == 0 || slices.Contains(labels, ix.Label)) && len(ix.Props) > 0 && ix.Props[0] == p.Key {
					found = true
				}
			}
		}
	})
	return found
}
