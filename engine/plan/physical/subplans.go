package physical

import (
	"reflect"
	"slices"
	"sync"

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
// included, and x for every expression each operator holds (and every
// expression inside one: the arguments of a call, a list's elements),
// with the operator.
func each(op plan.Operator, f func(plan.Operator), x func(plan.Operator, plan.Expr)) {
	if op == nil {
		return // a missing input of a plan built by hand
	}
	f(op)
	inputs := op.Children()
	for _, c := range inputs {
		each(c, f, x)
	}
	subplans(op, inputs, func(sub plan.Operator) { each(sub, f, x) }, func(e plan.Expr) { x(op, e) })
}

// subplans calls f for each plan op holds besides its inputs, and x for
// each expression it holds, sub-expressions included.
func subplans(op plan.Operator, inputs []plan.Operator, f func(plan.Operator), x func(plan.Expr)) {
	var value func(v reflect.Value)
	value = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			if v.IsNil() {
				return
			}
			switch {
			case v.Type() == operatorType:
				if o := v.Interface().(plan.Operator); !slices.Contains(inputs, o) {
					f(o)
				}
			case v.Type() == exprType:
				plan.Walk(v.Interface().(plan.Expr), func(e plan.Expr) {
					if sq, ok := e.(*plan.PatternSubquery); ok {
						f(sq.Plan)
					}
					x(e)
				})
			}
		case reflect.Slice, reflect.Array:
			if !holdsPlans(v.Type()) {
				return
			}
			for i := 0; i < v.Len(); i++ {
				value(v.Index(i))
			}
		case reflect.Struct:
			if !holdsPlans(v.Type()) {
				return
			}
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
}

// holdsPlans reports whether a value of type t can hold an operator or an
// expression outside a pointer, so that the visit skips what cannot (an
// operator's columns, sort keys, names): the pass runs for every
// statement, and most of a plan's fields are such.
func holdsPlans(t reflect.Type) bool {
	if h, ok := holds.Load(t); ok {
		return h.(bool)
	}
	h := false
	holds.Store(t, false) // until known: a type reached again through itself adds nothing
	switch t.Kind() {
	case reflect.Interface:
		h = t == operatorType || t == exprType
	case reflect.Slice, reflect.Array:
		h = holdsPlans(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField() && !h; i++ {
			h = t.Field(i).IsExported() && holdsPlans(t.Field(i).Type)
		}
	}
	holds.Store(t, h)
	return h
}

// holds memoizes holdsPlans per type.
var holds sync.Map
