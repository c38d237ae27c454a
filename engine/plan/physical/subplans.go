package physical

import (
	"reflect"

	"github.com/quiverdb/quiver/engine/plan"
)

// The executor builds more plans than the tree of Children: MERGE's match
// and create plans, and the plan of each pattern subquery (EXISTS, a
// pattern predicate or comprehension) inside an operator's expressions.
// Their operators take strategies too, so the pass visits them; reading
// the fields by reflection keeps the visit free of a case per operator
// and per expression type, and a new operator or expression holding a
// plan is visited without more code.

var (
	operatorType = reflect.TypeOf((*plan.Operator)(nil)).Elem()
	exprType     = reflect.TypeOf((*plan.Expr)(nil)).Elem()
)

// each calls f for every operator of the plan rooted at op, its sub-plans
// included.
func each(op plan.Operator, f func(plan.Operator)) {
	plan.Inspect(op, func(o plan.Operator) bool {
		f(o)
		for _, sub := range subplans(o) {
			each(sub, f)
		}
		return true
	})
}

// subplans are the plans op holds besides its inputs.
func subplans(op plan.Operator) []plan.Operator {
	inputs := map[plan.Operator]bool{}
	for _, c := range op.Children() {
		inputs[c] = true
	}
	var out []plan.Operator
	var value func(v reflect.Value)
	value = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			if v.IsNil() {
				return
			}
			switch {
			case v.Type() == operatorType:
				if o := v.Interface().(plan.Operator); !inputs[o] {
					out = append(out, o)
				}
			case v.Type() == exprType:
				plan.Walk(v.Interface().(plan.Expr), func(e plan.Expr) {
					if sq, ok := e.(*plan.PatternSubquery); ok {
						out = append(out, sq.Plan)
					}
				})
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				value(v.Index(i))
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					value(v.Field(i))
				}
			}
		}
		// Pointers are left alone: an operator's pointer fields are the
		// Argument its inner plan reads, the expansions an
		// ExpandIntersect fused (no longer operators of their own) and
		// catalog entries.
	}
	value(reflect.ValueOf(op).Elem())
	return out
}
