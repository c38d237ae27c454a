package gql

import (
	"strconv"
	"strings"
)

// Expressions print fully parenthesised: every compound expression in a
// pair of its own, so the text parses back to the same tree; a chain of
// prefix operators, or of operators of one level, shares one pair.

func formatExprs(sb *strings.Builder, es []Expr) {
	for i, e := range es {
		if i > 0 {
			sb.WriteString(", ")
		}
		formatExpr(sb, e)
	}
}

// formatUnaryChain prints a prefix operator and its operand, and the
// operand's own prefix operator without parentheses.
func formatUnaryChain(sb *strings.Builder, x *Unary) {
	if x.Op == OpNot {
		sb.WriteString("NOT ")
	} else {
		sb.WriteString(x.Op.String())
	}
	switch in := x.X.(type) {
	case *Unary:
		if x.Op != OpNot {
			sb.WriteByte(' ') // "- -x", not "--x"
		}
		formatUnaryChain(sb, in)
	case *Literal:
		if x.Op == OpNeg && in.Value != nil {
			// A minus before a bare number would fold into the literal
			// on reparse; the parentheses keep the tree as it is.
			sb.WriteByte('(')
			formatExpr(sb, in)
			sb.WriteByte(')')
			return
		}
		formatExpr(sb, in)
	default:
		formatExpr(sb, in)
	}
}

// formatChain prints a left-deep chain of operators of one precedence
// level, a + b - c (its tree ((a + b) - c)), in one pair of parentheses,
// which the parser reads back as the same tree. A pair each would nest
// the chain's first operand under all of them, as the text it was
// parsed from did not: `+ + … +1 + 1 + … + 1`, within the depth limit,
// printed as ((((+ + … +1) + 1) …) + 1), past it.
func formatChain(sb *strings.Builder, x *Binary) {
	if l, ok := x.L.(*Binary); ok && chainLevel(l.Op) != 0 && chainLevel(l.Op) == chainLevel(x.Op) {
		formatChain(sb, l)
	} else {
		formatExpr(sb, x.L)
	}
	sb.WriteString(" " + x.Op.String() + " ")
	formatExpr(sb, x.R)
}

// chainLevel is the precedence level of an operator the parser chains
// left to right (parse_expr.go), 0 for the others.
func chainLevel(op Op) int {
	switch op {
	case OpOr:
		return 1
	case OpXor:
		return 2
	case OpAnd:
		return 3
	case OpAdd, OpSub:
		return 4
	case OpMul, OpDiv, OpMod:
		return 5
	case OpPow:
		return 6
	}
	return 0
}

// formatExpr prints e with every compound expression in parentheses. The
// expressions of several parts print in a function of their own each,
// below, in the order of the cases.
func formatExpr(sb *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *Literal:
		sb.WriteString(formatLiteral(x.Value))
	case *Param:
		sb.WriteString("$" + quoteName(x.Name))
	case *Variable:
		sb.WriteString(quoteName(x.Name))
	case *PropertyAccess:
		formatExpr(sb, x.X)
		sb.WriteString("." + quoteName(x.Key))
	case *LabelTest:
		formatLabelTest(sb, x)
	case *IsNull:
		sb.WriteByte('(')
		formatExpr(sb, x.X)
		if x.Not {
			sb.WriteString(" IS NOT NULL)")
		} else {
			sb.WriteString(" IS NULL)")
		}
	case *Unary:
		// A chain of prefix operators shares one pair of parentheses:
		// (NOT NOT x), (- -x). A pair each would double the depth of
		// the text, and a statement at the depth limit would no longer
		// parse in its canonical form.
		sb.WriteByte('(')
		formatUnaryChain(sb, x)
		sb.WriteByte(')')
	case *Binary:
		sb.WriteByte('(')
		formatChain(sb, x)
		sb.WriteByte(')')
	case *Comparison:
		formatComparison(sb, x)
	case *FuncCall:
		formatFuncCall(sb, x)
	case *ListLit:
		sb.WriteByte('[')
		formatExprs(sb, x.Elems)
		sb.WriteByte(']')
	case *MapLit:
		formatMapLit(sb, x)
	case *Index:
		formatExpr(sb, x.X)
		sb.WriteByte('[')
		formatExpr(sb, x.I)
		sb.WriteByte(']')
	case *Slice:
		formatSlice(sb, x)
	case *Case:
		formatCase(sb, x)
	case *ListComprehension:
		formatListComprehension(sb, x)
	case *Quantifier:
		sb.WriteString(x.Kind + "(" + quoteName(x.Var) + " IN ")
		formatExpr(sb, x.List)
		sb.WriteString(" WHERE ")
		formatExpr(sb, x.Pred)
		sb.WriteByte(')')
	case *Reduce:
		formatReduce(sb, x)
	case *MapProjection:
		formatMapProjection(sb, x)
	case *PatternExpr:
		formatPart(sb, x.Part)
	case *Exists:
		formatExists(sb, x)
	case *Subquery:
		formatSubquery(sb, x)
	case *PatternComprehension:
		formatPatternComprehension(sb, x)
	case *TypePredicate, *Cast:
		formatTypes(sb, x)
	}
}

// formatLabelTest prints x in parentheses, with the property accesses,
// indexes and label tests it applies to inside the same pair:
// (n:A.a:B), not ((n:A).a:B). A pair each would nest the first operand
// of that postfix chain under all of them, as formatChain's would.
func formatLabelTest(sb *strings.Builder, x *LabelTest) {
	sb.WriteByte('(')
	formatLabelTestBare(sb, x)
	sb.WriteByte(')')
}

// formatPostfixBare prints e without parentheses of its own when it is a
// postfix operator inside a label test's pair.
func formatPostfixBare(sb *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *LabelTest:
		formatLabelTestBare(sb, x)
	case *PropertyAccess:
		formatPostfixBare(sb, x.X)
		sb.WriteString("." + quoteName(x.Key))
	case *Index:
		formatPostfixBare(sb, x.X)
		sb.WriteByte('[')
		formatExpr(sb, x.I)
		sb.WriteByte(']')
	default:
		formatExpr(sb, e)
	}
}

func formatLabelTestBare(sb *strings.Builder, x *LabelTest) {
	formatPostfixBare(sb, x.X)
	if x.Expr != nil {
		sb.WriteString(":" + x.Expr.String())
	}
	for i, l := range x.Labels {
		if x.Any && i > 0 {
			sb.WriteByte('|')
		} else {
			sb.WriteByte(':')
		}
		sb.WriteString(quoteName(l))
	}
}

func formatComparison(sb *strings.Builder, x *Comparison) {
	sb.WriteByte('(')
	for i, o := range x.Operands {
		if i > 0 {
			sb.WriteString(" " + x.Ops[i-1].String() + " ")
		}
		formatExpr(sb, o)
	}
	sb.WriteByte(')')
}

func formatFuncCall(sb *strings.Builder, x *FuncCall) {
	for _, ns := range x.Namespace {
		sb.WriteString(quoteName(ns) + ".")
	}
	sb.WriteString(quoteName(x.Name) + "(")
	if x.Distinct {
		sb.WriteString("DISTINCT ")
	}
	if x.Star {
		sb.WriteByte('*')
	}
	formatExprs(sb, x.Args)
	sb.WriteByte(')')
}

func formatMapLit(sb *strings.Builder, x *MapLit) {
	sb.WriteByte('{')
	for i, k := range x.Keys {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(quoteName(k) + ": ")
		formatExpr(sb, x.Values[i])
	}
	sb.WriteByte('}')
}

func formatSlice(sb *strings.Builder, x *Slice) {
	formatExpr(sb, x.X)
	sb.WriteByte('[')
	if x.From != nil {
		formatExpr(sb, x.From)
	}
	sb.WriteString("..")
	if x.To != nil {
		formatExpr(sb, x.To)
	}
	sb.WriteByte(']')
}

func formatCase(sb *strings.Builder, x *Case) {
	sb.WriteString("CASE")
	if x.Subject != nil {
		sb.WriteByte(' ')
		formatExpr(sb, x.Subject)
	}
	for i := range x.Whens {
		sb.WriteString(" WHEN ")
		formatExpr(sb, x.Whens[i])
		sb.WriteString(" THEN ")
		formatExpr(sb, x.Thens[i])
	}
	if x.Else != nil {
		sb.WriteString(" ELSE ")
		formatExpr(sb, x.Else)
	}
	sb.WriteString(" END")
}

func formatListComprehension(sb *strings.Builder, x *ListComprehension) {
	sb.WriteString("[" + quoteName(x.Var) + " IN ")
	formatExpr(sb, x.List)
	if x.Pred != nil {
		sb.WriteString(" WHERE ")
		formatExpr(sb, x.Pred)
	}
	if x.Proj != nil {
		sb.WriteString(" | ")
		formatExpr(sb, x.Proj)
	}
	sb.WriteByte(']')
}

func formatReduce(sb *strings.Builder, x *Reduce) {
	sb.WriteString("reduce(" + quoteName(x.Acc) + " = ")
	formatExpr(sb, x.Init)
	sb.WriteString(", " + quoteName(x.Var) + " IN ")
	formatExpr(sb, x.List)
	sb.WriteString(" | ")
	formatExpr(sb, x.Expr)
	sb.WriteByte(')')
}

func formatMapProjection(sb *strings.Builder, x *MapProjection) {
	sb.WriteString(quoteName(x.X.Name) + "{")
	for i, it := range x.Items {
		if i > 0 {
			sb.WriteString(", ")
		}
		switch it.Kind {
		case MapProjProperty:
			sb.WriteString("." + quoteName(it.Key))
		case MapProjAll:
			sb.WriteString(".*")
		case MapProjVariable:
			formatExpr(sb, it.Value)
		default:
			sb.WriteString(quoteName(it.Key) + ": ")
			formatExpr(sb, it.Value)
		}
	}
	sb.WriteByte('}')
}

// formatExists prints the short form of EXISTS: a pattern and a WHERE.
func formatExists(sb *strings.Builder, x *Exists) {
	sb.WriteString("EXISTS { MATCH ")
	formatPattern(sb, x.Pattern)
	formatWhere(sb, x.Where)
	sb.WriteString(" }")
}

func formatPatternComprehension(sb *strings.Builder, x *PatternComprehension) {
	sb.WriteByte('[')
	formatPart(sb, x.Part)
	if x.Where != nil {
		sb.WriteString(" WHERE ")
		formatExpr(sb, x.Where)
	}
	sb.WriteString(" | ")
	formatExpr(sb, x.Proj)
	sb.WriteByte(']')
}

func formatLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	case string:
		return quoteString(x)
	}
	return "?"
}
