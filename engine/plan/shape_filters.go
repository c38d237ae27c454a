package plan

import (
	"math"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// The shapes of the filter strategies (range-filter, code-filter,
// in-set-lookup): pure functions of plan expressions, which the physical
// pass (engine/plan/physical) reads to choose a strategy and the executor
// reads to run it. A bound the shape accepts may be a parameter, whose
// value only the executor sees: it checks the value's type and falls back
// to the general path when it is not the one the strategy needs.

// RangeTerm is one conjunct of a range filter: property Key of the node
// or relationship in column Col compared by Op with Bound, the property
// on the left. Bound is an INTEGER Const or a Param.
type RangeTerm struct {
	Col   int
	Key   string
	Op    BinOp // OpEq, OpLt, OpLe, OpGt or OpGe
	Bound Expr
}

// AppendRangeTerms appends to dst the range terms of pred, a conjunction
// of comparisons (=, <, <=, >, >=) of a property of a column with an
// integer literal or a parameter (`k.since > 2015 AND b.age < $max`), in
// the order of the conjuncts; false when some conjunct is not one.
// Comparisons never fail, so narrowing term by term cannot skip an error
// the general path would raise. The physical pass, which runs for every
// statement, passes a buffer of its stack.
func AppendRangeTerms(dst []RangeTerm, pred Expr) ([]RangeTerm, bool) {
	b, ok := pred.(*Binary)
	if !ok {
		return dst, false
	}
	if b.Op == OpAnd {
		if dst, ok = AppendRangeTerms(dst, b.L); !ok {
			return dst, false
		}
		return AppendRangeTerms(dst, b.R)
	}
	if !b.Op.IsComparison() || b.Op == OpNe {
		return dst, false
	}
	op, prop, bound := b.Op, b.L, b.R
	if _, isProp := prop.(*Property); !isProp {
		op, prop, bound = flip(op), b.R, b.L
	}
	col, key, ok := columnProperty(prop)
	if !ok || !boundOf(bound, vector.Int64) {
		return dst, false
	}
	return append(dst, RangeTerm{Col: col, Key: key, Op: op, Bound: bound}), true
}

// Range is the closed interval [lo, hi] of the values that pass the term
// when its bound is x; lo > hi when none does.
func (t RangeTerm) Range(x int64) (lo, hi int64) {
	lo, hi = math.MinInt64, math.MaxInt64
	switch t.Op {
	case OpEq:
		return x, x
	case OpLt:
		if x == math.MinInt64 {
			return 1, 0
		}
		hi = x - 1
	case OpLe:
		hi = x
	case OpGt:
		if x == math.MaxInt64 {
			return 1, 0
		}
		lo = x + 1
	case OpGe:
		lo = x
	}
	return lo, hi
}

// CodeEquality is the shape of a code filter: pred is one equality of a
// node's property with a string literal or a parameter (`m.language =
// 'ar'`, either side first). It returns the node's column, the key and
// the other side, an Expr that is a STRING Const or a Param.
func CodeEquality(pred Expr) (col int, key string, want Expr, ok bool) {
	b, isBin := pred.(*Binary)
	if !isBin || b.Op != OpEq {
		return 0, "", nil, false
	}
	prop, want := b.L, b.R
	if _, isProp := prop.(*Property); !isProp {
		prop, want = b.R, b.L
	}
	p, isProp := prop.(*Property)
	if !isProp {
		return 0, "", nil, false
	}
	ref, isRef := p.Of.(*ColRef)
	if !isRef || ref.T != vector.Node || !boundOf(want, vector.String) {
		return 0, "", nil, false
	}
	return ref.Idx, p.Key, want, true
}

// IsInSetLookup reports whether e is an IN whose list is known before the
// rows: a literal list of integers alone or of strings alone, or a
// parameter (its value may be any list; the expression compiler checks
// it and takes the general path for one it cannot look up).
func IsInSetLookup(e Expr) (*Call, bool) {
	c, ok := e.(*Call)
	if !ok || c.Name != functions.OpIn || len(c.Args) != 2 {
		return nil, false
	}
	switch l := c.Args[1].(type) {
	case *Param:
		return c, l.T == vector.Any
	case *Const:
		list, isList := l.Val.([]vector.Value)
		return c, isList && SetLookupType(list) != vector.Null
	}
	return nil, false
}

// SetLookupType is the type of list's values when a set can look them up:
// INTEGER or STRING when every value has that type, and vector.Null for a
// list that is empty or holds nulls, other types or both.
func SetLookupType(list []vector.Value) vector.Type {
	t := vector.Null
	for _, v := range list {
		vt := vector.TypeOf(v)
		if vt != vector.Int64 && vt != vector.String || t != vector.Null && t != vt {
			return vector.Null
		}
		t = vt
	}
	return t
}

// columnProperty returns the column and key of a property of a column
// (`n.age`).
func columnProperty(e Expr) (col int, key string, ok bool) {
	p, ok := e.(*Property)
	if !ok {
		return 0, "", false
	}
	ref, ok := p.Of.(*ColRef)
	if !ok {
		return 0, "", false
	}
	return ref.Idx, p.Key, true
}

// boundOf reports whether e is a bound of type t known before the rows: a
// literal of that type, or a parameter typed t or of a type the binder
// did not know (its value is checked where it is read).
func boundOf(e Expr, t vector.Type) bool {
	switch e := e.(type) {
	case *Const:
		return vector.TypeOf(e.Val) == t
	case *Param:
		return e.T == t || e.T == vector.Any
	}
	return false
}

// CountOfFilteredScan returns the parts of an Aggregate of count(*)
// alone, without keys, over a Filter over a node scan (the shape
// count-range and count-codes answer from the columns); ok is false for
// any other operator.
func CountOfFilteredScan(op Operator) (a *Aggregate, f *Filter, scan *NodeScan, ok bool) {
	if a, ok = op.(*Aggregate); !ok || len(a.Keys) != 0 || len(a.Aggs) != 1 || !a.Aggs[0].IsCountStar() {
		return nil, nil, nil, false
	}
	if f, ok = a.Input.(*Filter); !ok {
		return nil, nil, nil, false
	}
	if scan, ok = f.Input.(*NodeScan); !ok {
		return nil, nil, nil, false
	}
	return a, f, scan, true
}

// IsCountStar reports whether a is count(*).
func (a AggCall) IsCountStar() bool {
	return a.Func == functions.AggCount && a.Arg == nil && !a.Distinct
}

// CodeTerm is a test of a node's string property that a code match
// (exec/filter_match.go) evaluates once per dictionary code: Op is OpEq
// (`=`, either side first), functions.OpStartsWith, OpEndsWith or
// OpContains with Want a STRING Const or a Param, or functions.OpIn with
// Want a Const list of strings alone.
type CodeTerm struct {
	Col  int
	Key  string
	Op   string
	Want Expr
}

// CodeOpEq is CodeTerm.Op for an equality.
const CodeOpEq = "="

// CodeMatch is the shape of a code match: pred, or one conjunct of its
// top-level AND (the first that fits), is a CodeTerm, and pred is not a
// lone equality, which a code filter takes (CodeEquality). rest is the
// AND of pred's other conjuncts in their order, nil when there are none:
// on the rows the term keeps, pred holds exactly when rest does.
func CodeMatch(pred Expr) (t CodeTerm, rest Expr, ok bool) {
	if _, _, _, eq := CodeEquality(pred); eq {
		return CodeTerm{}, nil, false
	}
	var conj []Expr
	var flatten func(e Expr)
	flatten = func(e Expr) {
		if b, isAnd := e.(*Binary); isAnd && b.Op == OpAnd {
			flatten(b.L)
			flatten(b.R)
			return
		}
		conj = append(conj, e)
	}
	flatten(pred)
	for i, e := range conj {
		if t, ok = codeTerm(e); ok {
			for j, o := range conj {
				switch {
				case j == i:
				case rest == nil:
					rest = o
				default:
					rest = &Binary{Op: OpAnd, L: rest, R: o}
				}
			}
			return t, rest, true
		}
	}
	return CodeTerm{}, nil, false
}

// codeTerm reports whether e alone is a CodeTerm.
func codeTerm(e Expr) (CodeTerm, bool) {
	if col, key, want, ok := CodeEquality(e); ok {
		return CodeTerm{Col: col, Key: key, Op: CodeOpEq, Want: want}, true
	}
	c, isCall := e.(*Call)
	if !isCall || len(c.Args) != 2 {
		return CodeTerm{}, false
	}
	p, isProp := c.Args[0].(*Property)
	if !isProp {
		return CodeTerm{}, false
	}
	ref, isRef := p.Of.(*ColRef)
	if !isRef || ref.T != vector.Node {
		return CodeTerm{}, false
	}
	switch c.Name {
	case functions.OpStartsWith, functions.OpEndsWith, functions.OpContains:
		if !boundOf(c.Args[1], vector.String) {
			return CodeTerm{}, false
		}
	case functions.OpIn:
		l, isConst := c.Args[1].(*Const)
		if !isConst {
			return CodeTerm{}, false
		}
		if list, isList := l.Val.([]vector.Value); !isList || SetLookupType(list) != vector.String {
			return CodeTerm{}, false
		}
	default:
		return CodeTerm{}, false
	}
	return CodeTerm{Col: ref.Idx, Key: p.Key, Op: c.Name, Want: c.Args[1]}, true
}
