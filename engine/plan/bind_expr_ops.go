package plan

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// unary binds NOT, negation (folded into an integer literal) and unary
// plus.
func (b *binder) unary(e *gql.Unary, mode aggMode, aggs *aggCollector) (Expr, error) {
	x, err := b.exprWith(e.X, mode, aggs)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case gql.OpNot:
		if t, bad := notBoolean(x); bad {
			return nil, semanticAt(e.X.Position(), "NOT expects a BOOLEAN, got %s", t)
		}
		return &Not{X: x}, nil
	case gql.OpNeg:
		if c, ok := x.(*Const); ok {
			if i, isInt := c.Val.(int64); isInt {
				return &Const{Val: -i, T: vector.Int64}, nil
			}
		}
		return &Neg{X: x}, nil
	}
	return x, nil // unary plus
}

// binary binds a binary operator: a string or list operator as its
// operator function, arithmetic and logic as a Binary, refusing operand
// types known never to work.
func (b *binder) binary(e *gql.Binary, mode aggMode, aggs *aggCollector) (Expr, error) {
	l, err := b.exprWith(e.L, mode, aggs)
	if err != nil {
		return nil, err
	}
	r, err := b.exprWith(e.R, mode, aggs)
	if err != nil {
		return nil, err
	}
	if fn, ok := opCalls[e.Op]; ok {
		t := vector.Bool
		return &Call{Name: fn, Args: []Expr{l, r}, T: t}, nil
	}
	op, ok := binOps[e.Op]
	if !ok {
		return nil, notSupported(e.Pos, "operator %s is not supported yet", e.Op)
	}
	if !op.IsLogical() && !op.IsComparison() && !arithmeticTypesMatch(op, l.Type(), r.Type()) {
		return nil, semanticAt(e.Pos, "%s cannot be applied to %s and %s", op, l.Type(), r.Type())
	}
	if op.IsLogical() {
		for i, x := range []Expr{l, r} {
			if t, bad := notBoolean(x); bad {
				at := e.L.Position()
				if i == 1 {
					at = e.R.Position()
				}
				return nil, semanticAt(at, "%s expects BOOLEAN operands, got %s", op, t)
			}
		}
	}
	bin := &Binary{Op: op, L: l, R: r}
	bin.T = bin.Type()
	return bin, nil
}

// comparison binds a chain of comparisons: a < b <= c means a < b AND
// b <= c.
func (b *binder) comparison(e *gql.Comparison, mode aggMode, aggs *aggCollector) (Expr, error) {
	var out Expr
	prev, err := b.exprWith(e.Operands[0], mode, aggs)
	if err != nil {
		return nil, err
	}
	for i, opText := range e.Ops {
		next, err := b.exprWith(e.Operands[i+1], mode, aggs)
		if err != nil {
			return nil, err
		}
		cmp := &Binary{Op: binOps[opText], L: prev, R: next}
		if out == nil {
			out = cmp
		} else {
			out = &Binary{Op: OpAnd, L: out, R: cmp}
		}
		prev = next
	}
	return out, nil
}

// notBoolean reports an operand of a boolean operator whose type is known
// when the query is compiled and is not BOOLEAN (openCypher's
// InvalidArgumentType): a literal, a list or map, a typed column.
func notBoolean(e Expr) (string, bool) {
	switch e.Type() {
	case vector.Int64, vector.Float64, vector.String, vector.Node, vector.Rel:
		return e.Type().String(), true
	}
	switch e.(type) {
	case *List, *Map, *ListComp, *MapProjection:
		return KindOf(e), true
	case *Const:
		if k := KindOf(e); k != "" {
			return k, true
		}
	}
	return "", false
}

// arithmeticTypesMatch reports whether an arithmetic operator may apply to
// operands of static types l and r. Only combinations of known scalar
// types that can never work are refused (openCypher's compile-time
// InvalidArgumentType); unknown types are checked when the query runs.
func arithmeticTypesMatch(op BinOp, l, r vector.Type) bool {
	scalar := func(t vector.Type) bool {
		switch t {
		case vector.Int64, vector.Float64, vector.String, vector.Bool, vector.Node, vector.Rel:
			return true
		}
		return false
	}
	if !scalar(l) || !scalar(r) {
		return true
	}
	num := func(t vector.Type) bool { return t == vector.Int64 || t == vector.Float64 }
	if op == OpAdd {
		// Numbers add; strings concatenate with strings and numbers.
		return (num(l) || l == vector.String) && (num(r) || r == vector.String)
	}
	return num(l) && num(r)
}

// opCalls are operators evaluated by operator functions.
var opCalls = map[gql.Op]string{
	gql.OpStartsWith: functions.OpStartsWith, gql.OpEndsWith: functions.OpEndsWith, gql.OpContains: functions.OpContains,
	gql.OpRegex: functions.OpRegex, gql.OpIn: functions.OpIn,
}

// binOps maps the parser's operator tokens to plan operators.
var binOps = map[gql.Op]BinOp{
	gql.OpAdd: OpAdd, gql.OpSub: OpSub, gql.OpMul: OpMul, gql.OpDiv: OpDiv, gql.OpMod: OpMod, gql.OpPow: OpPow,
	gql.OpEq: OpEq, gql.OpNe: OpNe, gql.OpLt: OpLt, gql.OpLe: OpLe, gql.OpGt: OpGt, gql.OpGe: OpGe,
	gql.OpAnd: OpAnd, gql.OpOr: OpOr, gql.OpXor: OpXor,
}
