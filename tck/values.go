package tck

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// Values are compared in one canonical text form. Both sides render into
// it: the expected cells of a result table (parsed from the TCK literal
// syntax by parseLiteral) and the engine's result values (resolved through
// engine.Entities). The form keeps integers and floats apart (1 and 1.0
// differ), spells floats one way (1e-9, 0.000000001 and .000000001 agree),
// orders map keys and node labels, and optionally sorts list elements.

// litNode, litRel and litPath are the entities of an expected value: the
// TCK identifies them by labels or type and properties, not by id.
type litNode struct {
	labels []string
	props  map[string]any
}

type litRel struct {
	typ   string
	props map[string]any
}

// litPath alternates nodes and relationships; back[i] is set when rels[i]
// points from nodes[i+1] to nodes[i].
type litPath struct {
	nodes []litNode
	rels  []litRel
	back  []bool
}

// canon renders values in canonical form. ents resolves the engine's node
// and relationship ids; sortLists sorts list elements (the TCK's
// "ignoring element order for lists").
type canon struct {
	ents      engine.Entities
	sortLists bool
	buf       []string
}

func (c *canon) value(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return canonFloat(v)
	case string:
		return strconv.Quote(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = c.value(x)
		}
		if c.sortLists {
			slices.Sort(parts)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return c.props(v)
	case litNode:
		return canonNode(v.labels, c.props(v.props))
	case litRel:
		return canonRel(v.typ, c.props(v.props))
	case litPath:
		var sb strings.Builder
		sb.WriteString("<")
		sb.WriteString(c.value(v.nodes[0]))
		for i, r := range v.rels {
			writeStep(&sb, c.value(r), v.back[i])
			sb.WriteString(c.value(v.nodes[i+1]))
		}
		sb.WriteString(">")
		return sb.String()
	case vector.NodeRef:
		return c.node(uint64(v))
	case vector.RelRef:
		return c.rel(uint64(v))
	case vector.Path:
		return c.path(v)
	case fmt.Stringer:
		// Temporal values: the TCK writes them as quoted ISO strings.
		return strconv.Quote(v.String())
	}
	return fmt.Sprintf("<unknown %T %v>", v, v)
}

func writeStep(sb *strings.Builder, rel string, back bool) {
	if back {
		sb.WriteString("<-" + rel + "-")
	} else {
		sb.WriteString("-" + rel + "->")
	}
}

func (c *canon) props(m map[string]any) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + c.value(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func canonNode(labels []string, props string) string {
	ls := slices.Clone(labels)
	slices.Sort(ls)
	s := "("
	for _, l := range ls {
		s += ":" + l
	}
	if props != "" {
		if len(ls) > 0 {
			s += " "
		}
		s += props
	}
	return s + ")"
}

func canonRel(typ, props string) string {
	s := "[:" + typ
	if props != "" {
		s += " " + props
	}
	return s + "]"
}

func (c *canon) node(id uint64) string {
	if c.ents == nil {
		return fmt.Sprintf("(#%d)", id)
	}
	c.buf = c.ents.NodeLabels(c.buf[:0], id)
	labels := slices.Clone(c.buf)
	props := map[string]any{}
	c.ents.NodeProperties(id, func(k string, v vector.Value) { props[k] = v })
	return canonNode(labels, c.props(props))
}

func (c *canon) rel(id uint64) string {
	if c.ents == nil {
		return fmt.Sprintf("[#%d]", id)
	}
	typ, _, _ := c.ents.Relationship(id)
	props := map[string]any{}
	c.ents.RelationshipProperties(id, func(k string, v vector.Value) { props[k] = v })
	return canonRel(typ, c.props(props))
}

func (c *canon) path(p vector.Path) string {
	if len(p.Nodes) == 0 {
		return "<>"
	}
	var sb strings.Builder
	sb.WriteString("<")
	sb.WriteString(c.node(p.Nodes[0]))
	for i, r := range p.Rels {
		back := false
		if c.ents != nil {
			_, start, _ := c.ents.Relationship(r)
			back = start != p.Nodes[i]
		}
		writeStep(&sb, c.rel(r), back)
		sb.WriteString(c.node(p.Nodes[i+1]))
	}
	sb.WriteString(">")
	return sb.String()
}

// canonFloat spells a float one way: shortest round-trip digits, always
// with a '.' or an exponent so that it never reads as an integer; -0.0 is
// 0.0 (the TCK does not tell them apart).
func canonFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
