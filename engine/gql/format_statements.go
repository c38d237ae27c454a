package gql

import "strings"

// formatStatement prints FILTER, LET, FOR and OPTIONAL { } in the form
// that parses back to them.
func formatStatement(sb *strings.Builder, c Clause) {
	switch c := c.(type) {
	case *Filter:
		sb.WriteString("FILTER ")
		formatExpr(sb, c.Where)
	case *Let:
		sb.WriteString("LET ")
		for i, it := range c.Items {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(quoteName(it.Name) + " = ")
			formatExpr(sb, it.Expr)
		}
	case *For:
		sb.WriteString("FOR " + quoteName(c.Var) + " IN ")
		formatExpr(sb, c.Expr)
		if c.Index != "" {
			kind := " WITH OFFSET "
			if c.Ordinality {
				kind = " WITH ORDINALITY "
			}
			sb.WriteString(kind + quoteSoft(c.Index))
		}
	case *OptionalBlock:
		sb.WriteString("OPTIONAL {")
		for _, in := range c.Clauses {
			sb.WriteByte(' ')
			formatClause(sb, in)
		}
		sb.WriteString(" }")
	}
}

// quoteSoft backquotes a name that is a clause word as well (FOR's
// position variable must not read as the next clause).
func quoteSoft(s string) string {
	if clauseWords[strings.ToUpper(s)] {
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	return quoteName(s)
}

// formatGroupBy prints a projection's GROUP BY keys.
func formatGroupBy(sb *strings.Builder, keys []*GroupKey) {
	for i, k := range keys {
		if i == 0 {
			sb.WriteString(" GROUP BY ")
		} else {
			sb.WriteString(", ")
		}
		formatExpr(sb, k.Expr)
	}
}
