package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Expr is a bound expression: every variable has become a reference to an
// input column. Type is the static type when known at plan time, or
// vector.Any when it is decided per batch (a property's type depends on the
// stored values).
type Expr interface {
	Type() vector.Type
	String() string
}

// ColRef reads input column Idx.
type ColRef struct {
	Idx  int
	Name string
	T    vector.Type
	Kind string
	Elem vector.Type // a LIST column's element type (ElemOf)
}

// Const is a literal value.
type Const struct {
	Val vector.Value
	T   vector.Type
}

// Param is a query parameter. Its value is known when the statement is
// bound, so its type is too.
type Param struct {
	Name string
	T    vector.Type
	Kind string
}

// Property reads property Key of a node, relationship or map. The key is
// kept by name: a key that does not exist when the plan is made may be
// created by a write clause of the same statement.
type Property struct {
	Of  Expr
	Key string
}

// BinOp is an arithmetic, comparison or boolean operator.
type BinOp uint8

// Binary operators.
const (
	OpAdd BinOp = iota
	OpSub
	OpMul
	OpDiv
	OpMod
	OpPow
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd
	OpOr
	OpXor
)

var binOpText = [...]string{"+", "-", "*", "/", "%", "^", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "XOR"}

func (o BinOp) String() string { return binOpText[o] }

// IsComparison reports whether o compares its operands.
func (o BinOp) IsComparison() bool { return o >= OpEq && o <= OpGe }

// IsLogical reports whether o is AND, OR or XOR.
func (o BinOp) IsLogical() bool { return o >= OpAnd }

// Binary applies Op to L and R.
type Binary struct {
	Op   BinOp
	L, R Expr
	// T is the type the binder worked out as it built the node from its
	// operands'. Null (no Binary has it) makes Type work it out from
	// L's and R's. A chain a thousand levels deep asks the type of every
	// level (binder, compiler), and each answer walked the whole chain
	// below it: quadratic in the depth.
	T vector.Type
}

// Not is boolean negation with three-valued logic.
type Not struct{ X Expr }

// Neg is arithmetic negation.
type Neg struct{ X Expr }

// IsNull tests X for null (IS NOT NULL when Negate).
type IsNull struct {
	X      Expr
	Negate bool
}

// HasLabels tests whether node X carries every label in Labels (a label
// that does not exist in the catalog yet makes the test false), or with
// Any one of them. A relationship's one label is its type.
type HasLabels struct {
	X      Expr
	Labels []string
	Any    bool
	// Expr is any other label expression (then Labels is empty).
	Expr *LabelExpr
}

// List builds a list from its elements per row.
type List struct{ Elems []Expr }

// Map builds a map from its entries per row.
type Map struct {
	Keys []string
	Vals []Expr
}

// Call is a scalar function call by lower-case name.
type Call struct {
	Name string
	Args []Expr
	T    vector.Type
	Kind string
	// Strategy is the physical strategy the physical pass chose for the
	// call (RuleInSetLookup for an IN over a list known before the rows),
	// which the expression compiler follows; empty for the general
	// evaluation.
	Strategy string
}

func (e *ColRef) Type() vector.Type    { return e.T }
func (e *Const) Type() vector.Type     { return e.T }
func (e *Param) Type() vector.Type     { return e.T }
func (e *Property) Type() vector.Type  { return vector.Any }
func (e *Not) Type() vector.Type       { return vector.Bool }
func (e *IsNull) Type() vector.Type    { return vector.Bool }
func (e *HasLabels) Type() vector.Type { return vector.Bool }
func (e *Call) Type() vector.Type      { return e.T }
func (e *List) Type() vector.Type      { return vector.Any }
func (e *Map) Type() vector.Type       { return vector.Any }
func (e *Neg) Type() vector.Type       { return e.X.Type() }

// Type of a binary expression: booleans for comparisons and logic; for
// arithmetic the numeric type when both sides are known, else Any.
func (e *Binary) Type() vector.Type {
	if e.T != vector.Null {
		return e.T
	}
	if e.Op.IsComparison() || e.Op.IsLogical() {
		return vector.Bool
	}
	l, r := e.L.Type(), e.R.Type()
	switch {
	case e.Op == OpPow:
		return vector.Float64
	case l == vector.Int64 && r == vector.Int64:
		return vector.Int64
	case (l == vector.Int64 || l == vector.Float64) && (r == vector.Int64 || r == vector.Float64):
		return vector.Float64
	case e.Op == OpAdd && l == vector.String && r == vector.String:
		return vector.String
	}
	return vector.Any
}

func (e *ColRef) String() string { return e.Name }
func (e *Const) String() string  { return FormatValue(e.Val) }
func (e *Param) String() string  { return "$" + e.Name }
func (e *Property) String() string {
	return e.Of.String() + "." + e.Key
}
func (e *Binary) String() string {
	return "(" + e.L.String() + " " + e.Op.String() + " " + e.R.String() + ")"
}
func (e *Not) String() string { return "(NOT " + e.X.String() + ")" }
func (e *Neg) String() string { return "(-" + e.X.String() + ")" }
func (e *IsNull) String() string {
	if e.Negate {
		return "(" + e.X.String() + " IS NOT NULL)"
	}
	return "(" + e.X.String() + " IS NULL)"
}
func (e *HasLabels) String() string {
	if e.Expr != nil {
		return e.X.String() + ":" + e.Expr.String()
	}
	if e.Any {
		return e.X.String() + ":" + strings.Join(e.Labels, "|")
	}
	return e.X.String() + ":" + strings.Join(e.Labels, ":")
}
func (e *List) String() string {
	parts := make([]string, len(e.Elems))
	for i, x := range e.Elems {
		parts[i] = x.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
func (e *Map) String() string {
	parts := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		parts[i] = k + ": " + e.Vals[i].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
func (e *Call) String() string {
	if s, ok := typeCallString(e); ok {
		return s
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = a.String()
	}
	return e.Name + "(" + strings.Join(args, ", ") + ")"
}

// FormatValue renders a constant the way EXPLAIN shows it.
func FormatValue(v vector.Value) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	case []vector.Value:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = FormatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]vector.Value:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + FormatValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprint(x)
	}
}

// KindOf names the values of a generic expression when the plan knows
// them (LIST, MAP), or returns "".
func KindOf(e Expr) string {
	switch x := e.(type) {
	case *ColRef:
		return x.Kind
	case *Param:
		return x.Kind
	case *Const:
		return valueKind(x.Val)
	case *List:
		return "LIST"
	case *Map:
		return "MAP"
	case *Call:
		return x.Kind
	case *ListComp:
		return "LIST"
	case *MapProjection:
		return "MAP"
	case *PatternSubquery:
		if x.Proj >= 0 {
			return "LIST"
		}
	}
	return ""
}

// valueKind names the kind of a generic value.
func valueKind(v vector.Value) string {
	switch v.(type) {
	case []vector.Value:
		return "LIST"
	case map[string]vector.Value:
		return "MAP"
	}
	return temporal.TypeName(v)
}
