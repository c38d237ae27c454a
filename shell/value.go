package shell

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Values as a person reads them in a table: strings bare at the top and
// quoted inside lists and maps, nodes as (:Label {key: value}),
// relationships as [:TYPE {key: value}], paths as their nodes joined by
// their relationships with the direction each was traversed in. A map's
// keys, a node's and a relationship's properties are in key order.

// display renders a top-level value of a column of type typ.
func display(v any, typ string) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	writeValue(&b, v, typ != "MAP")
	return b.String()
}

// writeValue renders v; entities says whether a map shaped like a node,
// relationship or path is one (a MAP column's value is a map).
func writeValue(b *strings.Builder, v any, entities bool) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(formatFloat(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e, true)
		}
		b.WriteByte(']')
	case map[string]any:
		switch {
		case entities && isNode(x):
			writeNode(b, x)
		case entities && isRelationship(x):
			b.WriteByte('[')
			writeRelationship(b, x)
			b.WriteByte(']')
		case entities && isPath(x):
			writePath(b, x)
		default:
			writeMap(b, x)
		}
	default:
		fmt.Fprint(b, x)
	}
}

// formatFloat writes a float so that it reads as one: 2.0, not 2.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// hasKeys reports whether m has exactly these keys.
func hasKeys(m map[string]any, keys ...string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func isNode(m map[string]any) bool { return hasKeys(m, "id", "labels", "properties") }
func isRelationship(m map[string]any) bool {
	return hasKeys(m, "id", "type", "start", "end", "properties")
}
func isPath(m map[string]any) bool { return hasKeys(m, "nodes", "relationships") }

func writeNode(b *strings.Builder, n map[string]any) {
	b.WriteByte('(')
	labels, _ := n["labels"].([]any)
	for _, l := range labels {
		b.WriteByte(':')
		b.WriteString(name(toStr(l)))
	}
	if props, _ := n["properties"].(map[string]any); len(props) > 0 {
		if len(labels) > 0 {
			b.WriteByte(' ')
		}
		writeMap(b, props)
	}
	b.WriteByte(')')
}

func writeRelationship(b *strings.Builder, r map[string]any) {
	b.WriteByte(':')
	b.WriteString(name(toStr(r["type"])))
	if props, _ := r["properties"].(map[string]any); len(props) > 0 {
		b.WriteByte(' ')
		writeMap(b, props)
	}
}

// writePath writes (a)-[:R]->(b)<-[:S]-(c): each relationship points the
// way it goes between its neighbours in the path.
func writePath(b *strings.Builder, p map[string]any) {
	nodes, _ := p["nodes"].([]any)
	rels, _ := p["relationships"].([]any)
	for i, n := range nodes {
		if i > 0 && i-1 < len(rels) {
			r, _ := rels[i-1].(map[string]any)
			prev, _ := nodes[i-1].(map[string]any)
			forward := r == nil || prev == nil || equalID(r["start"], prev["id"])
			if forward {
				b.WriteString("-[")
			} else {
				b.WriteString("<-[")
			}
			if r != nil {
				writeRelationship(b, r)
			}
			if forward {
				b.WriteString("]->")
			} else {
				b.WriteString("]-")
			}
		}
		if m, ok := n.(map[string]any); ok {
			writeNode(b, m)
		} else {
			writeValue(b, n, true)
		}
	}
}

func equalID(a, b any) bool {
	x, ok1 := a.(int64)
	y, ok2 := b.(int64)
	if ok1 && ok2 {
		return x == y
	}
	fx, ok1 := a.(float64) // over HTTP numbers in nested maps may be floats
	fy, ok2 := b.(float64)
	return ok1 && ok2 && fx == fy
}

func toStr(v any) string {
	s, _ := v.(string)
	return s
}

// writeMap writes {key: value, …} in key order.
func writeMap(b *strings.Builder, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name(k))
		b.WriteString(": ")
		writeValue(b, m[k], true)
	}
	b.WriteByte('}')
}

// name writes a label, type or key bare when it is an identifier, in
// backticks otherwise.
func name(s string) string {
	if s == "" {
		return "``"
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	return s
}
