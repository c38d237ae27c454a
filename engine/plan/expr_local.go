package plan

import (
	"strings"

	"github.com/quiverdb/quiver/vector"
)

// Expressions that evaluate an inner expression per element of a list or
// per match of a pattern. Their inner expressions are bound over an inner
// scope: the Width columns of the enclosing scope (so outer variables keep
// their column numbers) followed by the local variables.

// ListComp is [Var IN List WHERE Pred | Proj]: Pred and Proj see the
// element as column Width.
type ListComp struct {
	List  Expr
	Var   string
	Width int
	Pred  Expr // nil keeps every element
	Proj  Expr // nil yields the element
}

// Quantifier is any/all/none/single(Var IN List WHERE Pred), with Pred
// seeing the element as column Width.
type Quantifier struct {
	Kind  string
	List  Expr
	Var   string
	Width int
	Pred  Expr
}

// Reduce is reduce(Acc = Init, Var IN List | Expr): Expr sees the
// accumulator as column Width and the element as column Width+1.
type Reduce struct {
	Init, List Expr
	Acc, Var   string
	Width      int
	Expr       Expr
}

// MapProjItem is one entry of a map projection: Key: Val, or every
// property of the projected value when All.
type MapProjItem struct {
	Key string
	Val Expr
	All bool
}

// MapProjection is X{...}: a map built from X's properties and other
// values, null when X is null.
type MapProjection struct {
	X     Expr
	Items []MapProjItem
}

// PatternSubquery evaluates Plan, planned over Arg, for each row: Arg
// carries the Width outer columns and the row number, which Plan's rows
// carry in column RowCol. With Proj < 0 it is true when the row has a
// match (a pattern predicate, EXISTS), or with Count the number of
// matches (COUNT { … }); else it collects column Proj of the matches into
// a list (a pattern comprehension, COLLECT { … }). PerRow runs Plan once
// per row instead of once per batch (bind_subqueries.go says when), and
// RowCol is then -1.
type PatternSubquery struct {
	Plan   Operator
	Arg    *Argument
	RowCol int
	Proj   int
	Count  bool
	PerRow bool
	Text   string
	// Rows limits each row's matches (decorrelated only); EmptyPlan over
	// EmptyArg, run over no row, gives the matches of a row Plan gave
	// none (a keyless aggregate's; bind_subqueries.go).
	Rows      RowLimit
	EmptyPlan Operator
	EmptyArg  *Argument
	// NullIf lists outer columns that make the result null when null: the
	// bound variables of a pattern predicate, as (null)-->() is null.
	NullIf []int
}

func (e *ListComp) Type() vector.Type      { return vector.Any }
func (e *Quantifier) Type() vector.Type    { return vector.Bool }
func (e *Reduce) Type() vector.Type        { return vector.Any }
func (e *MapProjection) Type() vector.Type { return vector.Any }
func (e *PatternSubquery) Type() vector.Type {
	if e.Count {
		return vector.Int64
	}
	if e.Proj < 0 {
		return vector.Bool
	}
	return vector.Any
}

func (e *ListComp) String() string {
	s := "[" + e.Var + " IN " + e.List.String()
	if e.Pred != nil {
		s += " WHERE " + e.Pred.String()
	}
	if e.Proj != nil {
		s += " | " + e.Proj.String()
	}
	return s + "]"
}

func (e *Quantifier) String() string {
	return e.Kind + "(" + e.Var + " IN " + e.List.String() + " WHERE " + e.Pred.String() + ")"
}

func (e *Reduce) String() string {
	return "reduce(" + e.Acc + " = " + e.Init.String() + ", " + e.Var + " IN " + e.List.String() + " | " + e.Expr.String() + ")"
}

func (e *MapProjection) String() string {
	parts := make([]string, len(e.Items))
	for i, it := range e.Items {
		if it.All {
			parts[i] = ".*"
		} else {
			parts[i] = it.Key + ": " + it.Val.String()
		}
	}
	return e.X.String() + "{" + strings.Join(parts, ", ") + "}"
}

func (e *PatternSubquery) String() string { return e.Text }

// Walk calls fn for e and each of its sub-expressions, inner scopes
// included. It returns false when it met an expression type it does not
// know, whose parts it therefore could not visit.
func Walk(e Expr, fn func(Expr)) bool {
	if e == nil {
		return true
	}
	fn(e)
	all := func(es ...Expr) bool {
		ok := true
		for _, x := range es {
			ok = Walk(x, fn) && ok
		}
		return ok
	}
	switch x := e.(type) {
	case *ColRef, *Const, *Param, *aggRef, *keyRef:
		return true
	case *Property:
		return all(x.Of)
	case *Binary:
		return all(x.L, x.R)
	case *Not:
		return all(x.X)
	case *Neg:
		return all(x.X)
	case *IsNull:
		return all(x.X)
	case *HasLabels:
		return all(x.X)
	case *Call:
		return all(x.Args...)
	case *List:
		return all(x.Elems...)
	case *Map:
		return all(x.Vals...)
	case *ListComp:
		return all(x.List, x.Pred, x.Proj)
	case *Quantifier:
		return all(x.List, x.Pred)
	case *Reduce:
		return all(x.Init, x.List, x.Expr)
	case *MapProjection:
		ok := all(x.X)
		for _, it := range x.Items {
			ok = all(it.Val) && ok
		}
		return ok
	case *PatternSubquery:
		// The sub-plan reads the outer columns through its argument.
		return false
	}
	return false
}
