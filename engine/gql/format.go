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
	if s.Use != nil {
		sb.WriteString("USE " + quoteName(s.Use.Name) + " ")
	}
	if s.Graph != nil {
		sb.WriteString(s.Graph.String())
		return sb.String()
	}
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
	formatQuery(&sb, s.Query)
	return sb.String()
}

// formatQuery prints a query's parts joined by their UNIONs.
func formatQuery(sb *strings.Builder, q *Query) {
	for i, part := range q.Parts {
		if i > 0 {
			sb.WriteString(" UNION ")
			if q.UnionAll[i-1] {
				sb.WriteString("ALL ")
			}
		}
		for j, c := range part.Clauses {
			if j > 0 {
				sb.WriteByte(' ')
			}
			formatClause(sb, c)
		}
	}
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
	case *CallSubquery:
		formatCallSubquery(sb, c)
	default:
		formatStatement(sb, c)
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
	formatGroupBy(sb, p.GroupBy)
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
	legacy := part.Legacy && part.Shortest != ShortestNone
	switch {
	case part.Search != nil:
		formatSearch(sb, part.Search)
	case legacy && part.Shortest == ShortestOne:
		sb.WriteString("shortestPath(")
	case legacy:
		sb.WriteString("allShortestPaths(")
	case part.Shortest == ShortestOne:
		sb.WriteString("ANY SHORTEST ")
	case part.Shortest == ShortestAll:
		sb.WriteString("ALL SHORTEST ")
	}
	formatNode(sb, part.Nodes[0])
	for i, r := range part.Rels {
		formatRel(sb, r)
		formatNode(sb, part.Nodes[i+1])
	}
	if legacy {
		sb.WriteByte(')')
	}
}

func formatNode(sb *strings.Builder, n *NodePattern) {
	sb.WriteByte('(')
	sb.WriteString(quoteName(n.Var))
	for _, l := range n.Labels {
		sb.WriteString(":" + quoteName(l))
	}
	if n.LabelExpr != nil {
		sb.WriteString(":" + n.LabelExpr.String())
	}
	if n.Props != nil {
		sb.WriteByte(' ')
		formatExpr(sb, n.Props)
	}
	sb.WriteByte(')')
}

func formatRel(sb *strings.Builder, r *RelPattern) {
	if r.Group != nil {
		formatGroup(sb, r)
		return
	}
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
	if r.TypeExpr != nil {
		sb.WriteString(":" + r.TypeExpr.String())
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
