package plan

import (
	"math"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// variable binds a variable: a projection's alias, or a column of the
// scope.
func (b *binder) variable(e *gql.Variable) (Expr, error) {
	if x, ok := b.aliases[e.Name]; ok {
		return x, nil
	}
	col, ok := b.sc.lookup(e.Name)
	if !ok {
		return nil, semanticAt(e.Pos, "variable %s is not defined", e.Name)
	}
	return b.sc.ref(col), nil
}

// propertyAccess binds x.key, refusing a value known to have no
// properties.
func (b *binder) propertyAccess(e *gql.PropertyAccess, mode aggMode, aggs *aggCollector) (Expr, error) {
	x, err := b.exprWith(e.X, mode, aggs)
	if err != nil {
		return nil, err
	}
	if t, bad := noProperties(x); bad {
		return nil, syntaxAt(e.Pos, "cannot read property %s of a %s", e.Key, t)
	}
	return b.decrypt(&Property{Of: x, Key: e.Key}, e.Key), nil
}

// index binds x[i]: a list element or a map value.
func (b *binder) index(e *gql.Index, mode aggMode, aggs *aggCollector) (Expr, error) {
	x, err := b.exprWith(e.X, mode, aggs)
	if err != nil {
		return nil, err
	}
	i, err := b.exprWith(e.I, mode, aggs)
	if err != nil {
		return nil, err
	}
	return b.decryptDynamic(&Call{Name: functions.OpIndex, Args: []Expr{x, i}, T: vector.Any}, i), nil
}

// slice binds x[from..to]. A missing bound is the list's start or end (an
// end past the list is clamped to it); a bound that is null makes the
// slice null.
func (b *binder) slice(e *gql.Slice, mode aggMode, aggs *aggCollector) (Expr, error) {
	args := []Expr{}
	for i, part := range []gql.Expr{e.X, e.From, e.To} {
		if part == nil {
			end := int64(0)
			if i == 2 {
				end = math.MaxInt64
			}
			args = append(args, &Const{Val: end, T: vector.Int64})
			continue
		}
		x, err := b.exprWith(part, mode, aggs)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	return &Call{Name: functions.OpSlice, Args: args, T: vector.Any, Kind: "LIST"}, nil
}

// noProperties reports an expression whose type is known when the query
// is compiled and has no properties to read (openCypher's
// InvalidArgumentType): a number, string, boolean, list or path. Nodes,
// relationships, maps and temporal values have properties; anything of
// unknown type, and a parameter, is checked when the query runs.
func noProperties(e Expr) (string, bool) {
	if _, ok := e.(*Param); ok {
		return "", false // a parameter's value is checked when the query runs
	}
	switch e.Type() {
	case vector.Bool, vector.Int64, vector.Float64, vector.String:
		return e.Type().String(), true
	}
	switch k := KindOf(e); k {
	case "LIST", KindPath:
		return k, true
	}
	return "", false
}
