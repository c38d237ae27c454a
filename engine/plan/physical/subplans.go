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
	w := walker{f: f, x: x}
	w.visit(op)
}

// walker is one visit of a plan: a struct rather than closures, so that
// the visit allocates nothing per operator (it runs for every
// statement).
type walker struct {
	f func(plan.Operator)
	x func(plan.Operator, plan.Expr)
	// op is the operator whose fields are being read, and inputs its
	// inputs (visited as children, not again as sub-plans).
	op     plan.Operator
	inputs []plan.Operator
}

func (w *walker) visit(op plan.Operator) {
	if op == nil {
		return // a missing input of a plan built by hand
	}
	w.f(op)
	inputs := op.Children()
	for _, c := range inputs {
		w.visit(c)
	}
	w.op, w.inputs = op, inputs
	w.value(reflect.ValueOf(op).Elem())
}

// value visits the plans and expressions v holds: f for each plan
// besides the operator's inputs, x for each expression, sub-expressions
// included.
func (w *walker) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		switch {
		case v.Type() == operatorType:
			if o := v.Interface().(plan.Operator); !slices.Contains(w.inputs, o) {
				op, inputs := w.op, w.inputs
				w.visit(o)
				w.op, w.inputs = op, inputs
			}
		case v.Type() == exprType:
			w.expr(v.Interface().(plan.Expr))
		}
	case reflect.Slice, reflect.Array:
		if !holdsPlans(v.Type()) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			w.value(v.Index(i))
		}
	case reflect.Struct:
		for _, i := range fieldsHoldingPlans(v.Type()) {
			w.value(v.Field(i))
		}
	}
	// Pointers are left alone: an operator's pointer fields are the
	// Argument its inner plan reads, the expansions an ExpandIntersect
	// fused (no longer operators of their own) and catalog entries.
}

// expr visits e and its sub-expressions, and the plan of each pattern
// subquery among them.
func (w *walker) expr(e plan.Expr) {
	op, inputs := w.op, w.inputs
	plan.Walk(e, func(e plan.Expr) {
		if sq, ok := e.(*plan.PatternSubquery); ok {
			w.visit(sq.Plan)
			if sq.EmptyPlan != nil {
				w.visit(sq.EmptyPlan)
			}
			w.op, w.inputs = op, inputs
		}
		w.x(op, e)
	})
}

// fieldsHoldingPlans is the indexes of struct type t's exported fields
// that can hold an operator or an expression, memoized per type: reading
// every field's description by reflection for every operator of every
// statement was most of the pass's cost.
func fieldsHoldingPlans(t reflect.Type) []int {
	if f, ok := planFields.Load(t); ok {
		return f.([]int)
	}
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		if sf := t.Field(i); sf.IsExported() && holdsPlans(sf.Type) {
			idx = append(idx, i)
		}
	}
	planFields.Store(t, idx)
	return idx
}

// planFields memoizes fieldsHoldingPlans per type.
var planFields sync.Map

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
