package gql

import (
	"strconv"
	"strings"
)

// String prints the statement in a canonical, fully parenthesised form that
// parses back to the same tree. Tests use it to make precedence and
// structure visible.
func (s *Statement) String() string {
	var sb strings.Builder
	if s.Explain {
		sb.WriteString("EXPLAIN ")
	}
	if s.Profile {
		sb.WriteString("PROFILE ")
	}
	if s.Schema != nil {
		sb.WriteString(s.Schema.String())
		return sb.String()
	}
	if s.Session != nil {
		sb.WriteString(s.Session.String())
		return sb.String()
	}
	if s.Copy != nil {
		sb.WriteString(s.Copy.String())
		return sb.String()
	}
	for i, part := range s.Query.Parts {
		if i > 0 {
			sb.WriteString(" UNION ")
			if s.Query.UnionAll[i-1] {
				sb.WriteString("ALL ")
			}
		}
		for j, c := range part.Clauses {
			if j > 0 {
				sb.WriteByte(' ')
			}
			formatClause(&sb, c)
		}
	}
	return sb.String()
}

func formatClause(sb *strings.Builder, c Clause) {
	switch c := c.(type) {
	case *Match:
		if c.Optional {
			sb.WriteString("OPTIONAL ")
		}
		sb.WriteString("MATCH ")
		formatPattern(sb, c.Pattern)
		formatHints(sb, c.Hints)
		formatWhere(sb, c.Where)
	case *Create:
		sb.WriteString("CREATE ")
		formatPattern(sb, c.Pattern)
	case *Merge:
		sb.WriteString("MERGE ")
		formatPattern(sb, c.Pattern)
		if len(c.OnCreate) > 0 {
			sb.WriteString(" ON CREATE SET ")
			formatSetItems(sb, c.OnCreate)
		}
		if len(c.OnMatch) > 0 {
			sb.WriteString(" ON MATCH SET ")
			formatSetItems(sb, c.OnMatch)
		}
	case *Set:
		sb.WriteString("SET ")
		formatSetItems(sb, c.Items)
	case *Remove:
		sb.WriteString("REMOVE ")
		formatSetItems(sb, c.Items)
	case *Delete:
		if c.Detach {
			sb.WriteString("DETACH ")
		}
		sb.WriteString("DELETE ")
		formatExprs(sb, c.Exprs)
	case *Unwind:
		sb.WriteString("UNWIND ")
		formatExpr(sb, c.Expr)
		sb.WriteString(" AS " + quoteName(c.Var))
	case *Call:
		sb.WriteString("CALL ")
		for _, ns := range c.Namespace {
			sb.WriteString(quoteName(ns) + ".")
		}
		sb.WriteString(quoteName(c.Name))
		if c.HasArgs {
			sb.WriteByte('(')
			formatExprs(sb, c.Args)
			sb.WriteByte(')')
		}
		if c.YieldStar {
			sb.WriteString(" YIELD *")
		}
		for i, y := range c.Yield {
			if i == 0 {
				sb.WriteString(" YIELD ")
			} else {
				sb.WriteString(", ")
			}
			sb.WriteString(quoteName(y.Name))
			if y.Alias != "" {
				sb.WriteString(" AS " + quoteName(y.Alias))
			}
		}
		formatWhere(sb, c.Where)
	case *With:
		sb.WriteString("WITH ")
		formatProjection(sb, &c.Projection)
		formatWhere(sb, c.Where)
	case *Return:
		sb.WriteString("RETURN ")
		formatProjection(sb, &c.Projection)
	}
}

func formatWhere(sb *strings.Builder, e Expr) {
	if e != nil {
		sb.WriteString(" WHERE ")
		formatExpr(sb, e)
	}
}

func formatSetItems(sb *strings.Builder, items []*SetItem) {
	for i, it := range items {
		if i > 0 {
			sb.WriteString(", ")
		}
		formatExpr(sb, it.Target)
		for _, l := range it.Labels {
			sb.WriteString(":" + quoteName(l))
		}
		if it.Value != nil {
			sb.WriteString(" " + it.Op + " ")
			formatExpr(sb, it.Value)
		}
	}
}

func formatProjection(sb *strings.Builder, p *Projection) {
	if p.Distinct {
		sb.WriteString("DISTINCT ")
	}
	if p.Star {
		sb.WriteByte('*')
		if len(p.Items) > 0 {
			sb.WriteString(", ")
		}
	}
	for i, it := range p.Items {
		if i > 0 {
			sb.WriteString(", ")
		}
		formatExpr(sb, it.Expr)
		if it.Alias != "" {
			sb.WriteString(" AS " + quoteName(it.Alias))
		}
	}
	for i, o := range p.OrderBy {
		if i == 0 {
			sb.WriteString(" ORDER BY ")
		} else {
			sb.WriteString(", ")
		}
		formatExpr(sb, o.Expr)
		if o.Desc {
			sb.WriteString(" DESC")
		}
	}
	if p.Skip != nil {
		sb.WriteString(" SKIP ")
		formatExpr(sb, p.Skip)
	}
	if p.Limit != nil {
		sb.WriteString(" LIMIT ")
		formatExpr(sb, p.Limit)
	}
}

func formatPattern(sb *strings.Builder, p *Pattern) {
	for i, part := range p.Parts {
		if i > 0 {
			sb.WriteString(", ")
		}
		formatPart(sb, part)
	}
}

func formatPart(sb *strings.Builder, part *PatternPart) {
	if part.Var != "" {
		sb.WriteString(quoteName(part.Var) + " = ")
	}
	switch part.Shortest {
	case ShortestOne:
		sb.WriteString("shortestPath(")
	case ShortestAll:
		sb.WriteString("allShortestPaths(")
	}
	formatNode(sb, part.Nodes[0])
	for i, r := range part.Rels {
		formatRel(sb, r)
		formatNode(sb, part.Nodes[i+1])
	}
	if part.Shortest != ShortestNone {
		sb.WriteByte(')')
	}
}

func formatNode(sb *strings.Builder, n *NodePattern) {
	sb.WriteByte('(')
	sb.WriteString(quoteName(n.Var))
	for _, l := range n.Labels {
		sb.WriteString(":" + quoteName(l))
	}
	if n.Props != nil {
		sb.WriteByte(' ')
		formatExpr(sb, n.Props)
	}
	sb.WriteByte(')')
}

func formatRel(sb *strings.Builder, r *RelPattern) {
	if r.Dir == DirLeft {
		sb.WriteByte('<')
	}
	sb.WriteString("-[")
	sb.WriteString(quoteName(r.Var))
	for i, t := range r.Types {
		if i == 0 {
			sb.WriteByte(':')
		} else {
			sb.WriteByte('|')
		}
		sb.WriteString(quoteName(t))
	}
	if r.VarLength != nil {
		sb.WriteByte('*')
		if r.VarLength.Min != nil {
			sb.WriteString(strconv.FormatInt(*r.VarLength.Min, 10))
		}
		if r.VarLength.Min == nil || r.VarLength.Max == nil || *r.VarLength.Min != *r.VarLength.Max {
			sb.WriteString("..")
			if r.VarLength.Max != nil {
				sb.WriteString(strconv.FormatInt(*r.VarLength.Max, 10))
			}
		}
	}
	if r.Props != nil {
		sb.WriteByte(' ')
		formatExpr(sb, r.Props)
	}
	sb.WriteString("]-")
	if r.Dir == DirRight {
		sb.WriteByte('>')
	}
}

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

// formatExpr prints e with every compound expression in parentheses.
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
		sb.WriteByte('(')
		formatExpr(sb, x.X)
		for i, l := range x.Labels {
			if x.Any && i > 0 {
				sb.WriteByte('|')
			} else {
				sb.WriteByte(':')
			}
			sb.WriteString(quoteName(l))
		}
		sb.WriteByte(')')
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
		formatExpr(sb, x.L)
		sb.WriteString(" " + x.Op.String() + " ")
		formatExpr(sb, x.R)
		sb.WriteByte(')')
	case *Comparison:
		sb.WriteByte('(')
		for i, o := range x.Operands {
			if i > 0 {
				sb.WriteString(" " + x.Ops[i-1].String() + " ")
			}
			formatExpr(sb, o)
		}
		sb.WriteByte(')')
	case *FuncCall:
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
	case *ListLit:
		sb.WriteByte('[')
		formatExprs(sb, x.Elems)
		sb.WriteByte(']')
	case *MapLit:
		sb.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(quoteName(k) + ": ")
			formatExpr(sb, x.Values[i])
		}
		sb.WriteByte('}')
	case *Index:
		formatExpr(sb, x.X)
		sb.WriteByte('[')
		formatExpr(sb, x.I)
		sb.WriteByte(']')
	case *Slice:
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
	case *Case:
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
	case *ListComprehension:
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
	case *Quantifier:
		sb.WriteString(x.Kind + "(" + quoteName(x.Var) + " IN ")
		formatExpr(sb, x.List)
		sb.WriteString(" WHERE ")
		formatExpr(sb, x.Pred)
		sb.WriteByte(')')
	case *Reduce:
		sb.WriteString("reduce(" + quoteName(x.Acc) + " = ")
		formatExpr(sb, x.Init)
		sb.WriteString(", " + quoteName(x.Var) + " IN ")
		formatExpr(sb, x.List)
		sb.WriteString(" | ")
		formatExpr(sb, x.Expr)
		sb.WriteByte(')')
	case *MapProjection:
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
	case *PatternExpr:
		formatPart(sb, x.Part)
	case *Exists:
		if x.Query != nil {
			sb.WriteString("EXISTS {")
			for _, c := range x.Query.Clauses {
				sb.WriteByte(' ')
				formatClause(sb, c)
			}
			sb.WriteString(" }")
			break
		}
		sb.WriteString("EXISTS { MATCH ")
		formatPattern(sb, x.Pattern)
		formatWhere(sb, x.Where)
		sb.WriteString(" }")
	case *PatternComprehension:
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

// quoteString writes a string literal using only escapes the lexer reads.
func quoteString(s string) string {
	var sb strings.Builder
	sb.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\', '\'':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				sb.WriteString(`\u00`)
				sb.WriteByte("0123456789abcdef"[r>>4])
				sb.WriteByte("0123456789abcdef"[r&0xf])
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}

// quoteName backquotes a name that is not a plain identifier.
func quoteName(s string) string {
	if s == "" {
		return ""
	}
	plain := true
	for i, r := range s {
		if r != '_' && !isLetter(r) && (i == 0 || !isDigit(r)) {
			plain = false
		}
	}
	if plain && !reserved[strings.ToUpper(s)] {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// reserved are words that must be quoted to serve as names.
var reserved = map[string]bool{"TRUE": true, "FALSE": true, "NULL": true, "AND": true, "OR": true, "XOR": true,
	"NOT": true, "IN": true, "IS": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true,
	"AS": true, "WHERE": true, "STARTS": true, "ENDS": true, "CONTAINS": true, "DISTINCT": true,
	"MATCH": true, "OPTIONAL": true, "RETURN": true, "WITH": true, "CREATE": true, "MERGE": true, "DELETE": true,
	"DETACH": true, "SET": true, "REMOVE": true, "UNWIND": true, "ORDER": true, "SKIP": true, "LIMIT": true,
	"UNION": true, "CALL": true, "YIELD": true}
