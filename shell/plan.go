package shell

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Plans as trees: EXPLAIN's operators with their estimates, and
// PROFILE's with what each did.
//
//	Sort b.name (est. 0.5 rows, cost 0.5)
//	└─ Project b.name (est. 0.5 rows, cost 0.5)
//	   └─ NodeScan a:Person (est. 2.0 rows, cost 2.0)

// writePlan writes an EXPLAIN message's plan; prof, when set, gives each
// operator in the plan's pre-order what PROFILE measured.
func writePlan(w io.Writer, msg map[string]any, prof []map[string]any) {
	root, _ := msg["plan"].(map[string]any)
	if root == nil {
		return
	}
	i := 0
	var walk func(n map[string]any, prefix, branch string)
	walk = func(n map[string]any, prefix, branch string) {
		op, _ := n["operator"].(string)
		line := prefix + branch + op
		if d, _ := n["details"].(string); d != "" {
			line += " " + d
		}
		if idx, _ := n["index_used"].(string); idx != "" {
			line += " [index " + idx + "]"
		}
		if prof != nil {
			if i < len(prof) {
				line += " (" + profileNote(prof[i]) + ")"
			}
			i++
		} else {
			line += fmt.Sprintf(" (est. %s rows, cost %s)", number(n["estimated_rows"]), number(n["estimated_cost"]))
		}
		fmt.Fprintln(w, line)
		kids, _ := n["children"].([]any)
		next := prefix
		switch branch {
		case "├─ ":
			next += "│  "
		case "└─ ":
			next += "   "
		}
		for k, c := range kids {
			cm, _ := c.(map[string]any)
			if cm == nil {
				continue
			}
			b := "├─ "
			if k == len(kids)-1 {
				b = "└─ "
			}
			walk(cm, next, b)
		}
	}
	walk(root, "", "")
	if prof == nil {
		line := fmt.Sprintf("estimated total cost %s, estimated rows %s", number(msg["estimated_total_cost"]), number(msg["estimated_rows"]))
		if rules, _ := msg["rules"].([]any); len(rules) > 0 {
			names := make([]string, 0, len(rules))
			for _, r := range rules {
				if s, ok := r.(string); ok {
					names = append(names, s)
				}
			}
			line += "; rules applied: " + strings.Join(names, ", ")
		}
		fmt.Fprintln(w, line)
	}
}

// writeProfile writes a PROFILE message as the plan's tree when its
// operators are the plan's in pre-order (they are, from this server),
// as a list otherwise.
func writeProfile(w io.Writer, plan map[string]any, msg map[string]any) {
	ops, _ := msg["operators"].([]any)
	prof := make([]map[string]any, 0, len(ops))
	for _, o := range ops {
		if m, ok := o.(map[string]any); ok {
			prof = append(prof, m)
		}
	}
	if root, _ := plan["plan"].(map[string]any); root != nil && sameOperators(root, prof) {
		writePlan(w, plan, prof)
	} else {
		for _, p := range prof {
			name, _ := p["name"].(string)
			fmt.Fprintf(w, "%s (%s)\n", name, profileNote(p))
		}
	}
	fmt.Fprintf(w, "total %s ms\n", number(msg["total_time_ms"]))
}

func profileNote(p map[string]any) string {
	rows, hits := number(p["rows_processed"]), number(p["db_hits"])
	s := fmt.Sprintf("%s %s, %s ms, %s %s", rows, pluralOf(rows, "row", "rows"), number(p["time_ms"]), hits, pluralOf(hits, "db hit", "db hits"))
	if idx, _ := p["index"].(string); idx != "" {
		s += ", index " + idx
	}
	// The strategies EXPLAIN named that a guard turned down as it ran.
	fbs, _ := p["fallbacks"].([]any)
	for _, f := range fbs {
		if f, ok := f.(string); ok {
			s += "; fell back: " + f
		}
	}
	return s
}

// sameOperators reports whether prof names the plan's operators in
// pre-order.
func sameOperators(root map[string]any, prof []map[string]any) bool {
	var names []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		op, _ := n["operator"].(string)
		names = append(names, op)
		kids, _ := n["children"].([]any)
		for _, c := range kids {
			if cm, ok := c.(map[string]any); ok {
				walk(cm)
			}
		}
	}
	walk(root)
	if len(names) != len(prof) {
		return false
	}
	for i, p := range prof {
		if p["name"] != names[i] {
			return false
		}
	}
	return true
}

// number writes a JSON number with the digits it needs (2, 0.5).
func number(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "?"
	}
	return fmt.Sprint(v)
}

func pluralOf(n, one, many string) string {
	if n == "1" {
		return one
	}
	return many
}
