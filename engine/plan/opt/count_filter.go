package opt

import (
	"slices"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
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
// references to column 0 (physical.OnColumn), when pred reads nothing but
// col's properties under the operators above.
func nodePredicate(pred plan.Expr, col int) (plan.Expr, bool) {
	if !errorFree(pred) {
		return nil, false
	}
	return physical.OnColumn(pred, col)
}

// errorFree reports whether test is built of the operators above over
// values that are constants, parameters or a property of a column (which
// column, OnColumn checks).
func errorFree(test plan.Expr) bool {
	value := func(e plan.Expr) bool {
		switch x := e.(type) {
		case *plan.Const, *plan.Param:
			return true
		case *plan.Property:
			_, ok := x.Of.(*plan.ColRef)
			return ok
		}
		return false
	}
	switch x := test.(type) {
	case *plan.Binary:
		switch {
		case x.Op.IsComparison():
			return value(x.L) && value(x.R)
		case x.Op.IsLogical():
			return errorFree(x.L) && errorFree(x.R)
		}
	case *plan.Not:
		return errorFree(x.X)
	case *plan.IsNull:
		return value(x.X)
	case *plan.Call:
		if len(x.Args) != 2 || !value(x.Args[0]) {
			return false
		}
		switch x.Name {
		case functions.OpStartsWith, functions.OpEndsWith, functions.OpContains:
			return value(x.Args[1])
		case functions.OpIn:
			// IN fails on anything but a list at its right.
			return literalList(x.Args[1])
		}
	}
	return false
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
