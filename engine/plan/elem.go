package plan

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// A LIST column's element type: a result written in columns (Arrow)
// carries a list whose elements are all of one scalar type as a typed
// list, where an unknown one travels as a list of generic values. The
// plan knows it only where it holds by construction, never from the
// data: a list literal whose elements are typed expressions, a constant
// list, a function whose elements have one type (range, split, labels,
// keys), and a column that carries it on. A list parameter's elements
// are not used: a plan is reused for other values of the parameter.

// ElemOf is the scalar type (BOOLEAN, INTEGER, FLOAT, STRING) of every
// element of the lists e gives, nulls aside, or vector.Null when it is
// not known.
func ElemOf(e Expr) vector.Type {
	var t vector.Type
	switch x := e.(type) {
	case *ColRef:
		return x.Elem
	case *List:
		for _, el := range x.Elems {
			if !elemAgrees(&t, el.Type()) {
				return vector.Null
			}
		}
	case *Const:
		l, ok := x.Val.([]vector.Value)
		if !ok {
			return vector.Null
		}
		for _, v := range l {
			if v != nil && !elemAgrees(&t, vector.TypeOf(v)) {
				return vector.Null
			}
		}
	case *Call:
		if f, ok := functions.Lookup(x.Name); ok && x.Kind == "LIST" {
			t = f.Elem
		}
	}
	if !scalarElem(t) {
		return vector.Null
	}
	return t
}

// elemAgrees folds an element's type into *t: false when it is neither
// null nor *t's scalar type.
func elemAgrees(t *vector.Type, el vector.Type) bool {
	switch {
	case el == vector.Null:
		return true
	case !scalarElem(el):
		return false
	case *t == vector.Null:
		*t = el
		return true
	}
	return *t == el
}

// scalarElem reports whether t is an element type a LIST column carries.
func scalarElem(t vector.Type) bool {
	return t == vector.Bool || t == vector.Int64 || t == vector.Float64 || t == vector.String
}
