package plan

import (
	"fmt"
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
	sb.WriteString(describe(op))
	sb.WriteByte('\n')
	for _, c := range op.Children() {
		formatOp(sb, c, depth+1)
	}
}

// describe is one line for an operator: its name and arguments.
func describe(op Operator) string {
	switch o := op.(type) {
	case *Unit:
		return "Unit"
	case *NodeScan:
		return fmt.Sprintf("NodeScan %s%s", colName(o.Cols[0]), labelText(o.Labels))
	case *Expand:
		from := o.Input.Columns()[o.From].Name
		rel := colName(o.Cols[len(o.Input.Columns())])
		to := "into " + o.Input.Columns()[max(o.Into, 0)].Name
		if o.Into < 0 {
			to = colName(o.Cols[len(o.Input.Columns())+1]) + labelText(o.ToLabels)
		}
		types := ""
		if len(o.Types) > 0 {
			types = ":" + strings.Join(o.Types, "|")
		}
		left, right := "-", "->"
		switch o.Dir {
		case In:
			left, right = "<-", "-"
		case Both:
			right = "-"
		}
		s := fmt.Sprintf("Expand (%s)%s[%s%s]%s(%s)", from, left, rel, types, right, to)
		if len(o.Distinct) > 0 {
			var names []string
			for _, d := range o.Distinct {
				names = append(names, colName(o.Cols[d]))
			}
			s += " distinct from " + strings.Join(names, ", ")
		}
		return s
	case *CountExpand:
		return o.describe()
	case *Filter:
		return "Filter " + o.Pred.String()
	case *Project:
		return "Project " + exprList(o.Exprs, o.Cols)
	case *Aggregate:
		var aggs []string
		for _, a := range o.Aggs {
			aggs = append(aggs, string(a.Func)+"("+argText(a)+")")
		}
		return fmt.Sprintf("Aggregate keys [%s] aggs [%s]", exprList(o.Keys, o.Cols), strings.Join(aggs, ", "))
	case *Distinct:
		return "Distinct"
	case *Sort:
		var keys []string
		for _, k := range o.Keys {
			key := colName(o.Input.Columns()[k.Col])
			if o.Input.Columns()[k.Col].Hidden {
				key = o.Input.Columns()[k.Col].Name
			}
			if k.Desc {
				key += " DESC"
			}
			keys = append(keys, key)
		}
		s := "Sort " + strings.Join(keys, ", ")
		if o.Limit != nil {
			s += " top " + o.Limit.String()
			if o.Skip != nil {
				s += " after " + o.Skip.String()
			}
		}
		return s
	case *Skip:
		return "Skip " + o.Count.String()
	case *Limit:
		return "Limit " + o.Count.String()
	case *CrossProduct:
		return "CrossProduct"
	case *IndexSeek:
		return "IndexSeek " + o.Detail()
	case *HashJoin:
		return "HashJoin on " + o.LeftKey.String() + " = " + o.RightKey.String()
	case *IndexJoin:
		return fmt.Sprintf("IndexJoin %s:%s(%s) %s %s [%s]", o.Var, strings.Join(o.Labels, ":"),
			strings.Join(o.Props, ", "), o.Type, o.Index, o.Condition())
	case *Unwind:
		return fmt.Sprintf("Unwind %s AS %s", o.Expr, o.Cols[len(o.Cols)-1].Name)
	case *Argument:
		return "Argument"
	case *Optional:
		return "Optional"
	case *Eager:
		return "Eager"
	case *Create:
		var made []string
		for _, m := range o.Made {
			if m >= 0 {
				n := o.Nodes[m]
				made = append(made, "("+labelText(n.Labels)+propText(n.Keys, n.Vals)+")")
			} else {
				r := o.Rels[-m-1]
				made = append(made, fmt.Sprintf("[%s:%s%s]->%s", o.Cols[r.From].Name, r.Type, propText(r.Keys, r.Vals), o.Cols[r.To].Name))
			}
		}
		return "Create " + strings.Join(made, ", ")
	}
	if s, ok := describeWrite(op); ok {
		return s
	}
	if s, ok := describePath(op); ok {
		return s
	}
	return fmt.Sprintf("%T", op)
}

// colName shows anonymous columns as _.
func colName(c Column) string {
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
