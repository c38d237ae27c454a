package plan

import (
	"strings"
)

// Format prints an operator tree, one operator per line, children
// indented: the plan's shape, compact, for tests and error messages
// (EXPLAIN renders the tree of explain.go).
func Format(op Operator) string {
	var sb strings.Builder
	formatOp(&sb, op, 0)
	return strings.TrimRight(sb.String(), "\n")
}

func formatOp(sb *strings.Builder, op Operator, depth int) {
	sb.WriteString(strings.Repeat("  ", depth))
	sb.WriteString(op.Describe().line())
	sb.WriteString(strategyText(op))
	sb.WriteByte('\n')
	for _, c := range op.Children() {
		formatOp(sb, c, depth+1)
	}
}

// strategyText names the strategies chosen for op, " [far-set,
// parallel]", or is empty.
func strategyText(op Operator) string {
	s := StrategiesOf(op)
	if len(s) == 0 {
		return ""
	}
	return " [" + strings.Join(s, ", ") + "]"
}

// colName is a column's name as plans print it: "_" for a hidden one.
func colName(c Column) string { return c.PrintedName() }

// PrintedName is the column's name as plans print it: "_" for a hidden
// column.
func (c Column) PrintedName() string {
	if c.Hidden {
		return "_"
	}
	return c.Name
}

func labelText(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return ":" + strings.Join(labels, ":")
}

func propText(keys []string, vals []Expr) string {
	if len(keys) == 0 {
		return ""
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		if k == "" { // a map spread at runtime: CREATE (n $props)
			return " " + vals[i].String()
		}
		parts[i] = k + ": " + vals[i].String()
	}
	return " {" + strings.Join(parts, ", ") + "}"
}

// exprList shows expressions with the names of the columns they make.
func exprList(es []Expr, cols []Column) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
		if i < len(cols) && cols[i].Name != e.String() {
			parts[i] += " AS " + cols[i].Name
		}
	}
	return strings.Join(parts, ", ")
}
