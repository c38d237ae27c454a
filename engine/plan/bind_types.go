package plan

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// Type predicates and CAST bind to the operator functions OpIsType and
// OpCast, the type's canonical text a constant second argument that the
// expression compiler reads once (engine/expr/istype.go).

// typeExpr binds x IS :: T and CAST(x AS T).
func (b *binder) typeExpr(e gql.Expr, mode aggMode, aggs *aggCollector) (Expr, error) {
	switch e := e.(type) {
	case *gql.TypePredicate:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		t, err := compiledType(e.Type)
		if err != nil {
			return nil, err
		}
		var out Expr = &Call{Name: functions.OpIsType, Args: []Expr{x, typeConst(t)}, T: vector.Bool}
		if e.Not {
			out = &Not{X: out}
		}
		return out, nil
	case *gql.Cast:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		t, err := compiledType(e.Type)
		if err != nil {
			return nil, err
		}
		if t.Union {
			return nil, semanticAt(e.Type.Pos, "CAST converts to one type, not to the union %s", t.Text)
		}
		rt, kind := functions.CastResult(t)
		return &Call{Name: functions.OpCast, Args: []Expr{x, typeConst(t)}, T: rt, Kind: kind}, nil
	}
	return nil, notSupported(e.Position(), "this kind of expression is not supported yet")
}

// typeCallString shows a type predicate or CAST as the query writes it
// (EXPLAIN: n.x IS :: INTEGER, not #istype(n.x, "INTEGER")).
func typeCallString(e *Call) (string, bool) {
	if e.Name != functions.OpIsType && e.Name != functions.OpCast || len(e.Args) != 2 {
		return "", false
	}
	k, ok := e.Args[1].(*Const)
	if !ok {
		return "", false
	}
	text, ok := k.Val.(string)
	switch {
	case !ok:
		return "", false
	case e.Name == functions.OpIsType:
		return "(" + e.Args[0].String() + " IS :: " + text + ")", true
	case e.Name == functions.OpCast:
		return "CAST(" + e.Args[0].String() + " AS " + text + ")", true
	}
	return "", false
}

func compiledType(ref *gql.TypeRef) (*functions.ValueType, error) {
	t, ok := functions.ParseValueType(ref.String())
	if !ok {
		return nil, semanticAt(ref.Pos, "type %s is not supported", ref.String())
	}
	return t, nil
}

func typeConst(t *functions.ValueType) *Const {
	return &Const{Val: t.Text, T: vector.String}
}

// gqlFunctions are GQL's functions and function-like predicates Quiver
// has no function of its own for, with its nearest form where it has
// one: a call answers 0A000 naming the feature rather than "unknown
// function".
var gqlFunctions = map[string]string{
	"element_id":       ": id() gives a node's or relationship's id",
	"all_different":    "",
	"same":             "",
	"property_exists":  ": test the property with IS NOT NULL",
	"path_length":      ": length(p) is a path's length",
	"cardinality":      ": size(l) is a list's length",
	"char_length":      ": size(s) is a string's length",
	"character_length": ": size(s) is a string's length",
	"byte_length":      "",
	"octet_length":     "",
	"normalize":        "",
}
