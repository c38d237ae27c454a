package plan

import (
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// The functions a query may call are engine/functions' catalog: the
// binder reads their signatures and type rules from it.

// kindOf is the static kind of an argument, 0 when unknown.
func kindOf(e Expr) functions.ArgKind {
	switch t := e.Type(); t {
	case vector.Null:
		return 0
	case vector.Bool:
		return functions.ArgBool
	case vector.Int64:
		return functions.ArgInt
	case vector.Float64:
		return functions.ArgFloat
	case vector.String:
		return functions.ArgString
	case vector.Node:
		return functions.ArgNode
	case vector.Rel:
		return functions.ArgRel
	case vector.Any:
		switch KindOf(e) {
		case "LIST":
			return functions.ArgList
		case "MAP":
			return functions.ArgMap
		case "PATH":
			return functions.ArgPath
		}
		return 0
	}
	return functions.ArgOther
}

// CheckArgs reports the index of the first argument whose static type
// function f cannot take, or -1. Only arguments of a known type are
// checked.
func CheckArgs(f *functions.Func, args []Expr) int {
	for i, a := range args {
		if !f.Accepts(i, kindOf(a)) {
			return i
		}
	}
	return -1
}

// ResultType is a call's static result type and kind: the table's, made
// precise where the arguments' types decide it.
func ResultType(f *functions.Func, args []Expr) (vector.Type, string) {
	switch f.Name {
	case "abs":
		if t := args[0].Type(); t == vector.Int64 || t == vector.Float64 {
			return t, ""
		}
	case "reverse":
		switch kindOf(args[0]) {
		case functions.ArgString:
			return vector.String, ""
		case functions.ArgList:
			return vector.Any, "LIST"
		}
	case "coalesce":
		// One common type (nulls aside) types the result.
		t, kind := vector.Null, ""
		for _, a := range args {
			at := a.Type()
			switch {
			case at == vector.Null:
				continue
			case t == vector.Null:
				t, kind = at, KindOf(a)
			case t != at || kind != KindOf(a):
				return vector.Any, ""
			}
		}
		if t == vector.Null {
			return vector.Any, ""
		}
		return t, kind
	}
	return f.Result, f.Kind
}

// staticTypeName names an expression's static type for error messages.
func staticTypeName(e Expr) string {
	if e.Type() == vector.Any {
		if k := KindOf(e); k != "" {
			return k
		}
	}
	return e.Type().String()
}

// findCall reports the position of a call of function name (lower case)
// inside exprs.
func findCall(exprs []gql.Expr, name string) (gql.Pos, bool) {
	var found *gql.Pos
	for _, e := range exprs {
		gql.Walk(e, func(x gql.Expr) bool {
			if f, ok := x.(*gql.FuncCall); ok && found == nil && len(f.Namespace) == 0 && strings.EqualFold(f.Name, name) {
				p := f.Pos
				found = &p
			}
			return found == nil
		})
	}
	if found == nil {
		return gql.Pos{}, false
	}
	return *found, true
}
