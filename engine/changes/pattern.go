package changes

import (
	"slices"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// Change patterns select the changes a feed delivers. They are GQL
// pattern syntax, read by the query parser (gql.ParsePattern), one node
// or one relationship:
//
//	(n)                          every node
//	(:Person)                    nodes with label Person
//	(:Person:Admin)              … with both labels (also :Person&Admin)
//	(:Person {name: 'Ann'})      … whose name is 'Ann'
//	()-[:KNOWS]->()              relationships of type KNOWS
//	()-[r:KNOWS|LIKES]-()        … of either type (direction ignored)
//	(:A)-[:R {w: 1}]->(:B)       … from an A node to a B node, with w = 1
//	()-->()  ()<--()  ()--()     any relationship
//
// Variables are allowed and ignored. Property values are literals, as a
// query writes them: strings ('…' or "…"), integers, floats, true,
// false. A change matches
// when the entity matches before or after the commit (a node that loses
// label Person matches (:Person)). Endpoint patterns of a relationship
// take labels only: a change carries its endpoints' labels, not their
// properties.

// MaxPatternBytes bounds a pattern's text.
const MaxPatternBytes = 1024

// Pattern is a parsed change pattern (ParsePattern).
type Pattern struct {
	text string
	rel  bool
	// node is the node pattern, or a relationship's left endpoint; end
	// its right endpoint.
	node, end patNode
	types     []string
	// dir: +1 (left)-[]->(right), -1 (left)<-[]-(right), 0 either way.
	dir      int8
	relProps []patProp
}

type patNode struct {
	labels []string
	props  []patProp
}

type patProp struct {
	key string
	val vector.Value
}

// String is the pattern's text.
func (p *Pattern) String() string { return p.text }

// ParsePattern parses a change pattern. Errors are 42000 with the
// column (in characters, line 1) where the text goes wrong.
func ParsePattern(text string) (*Pattern, error) {
	if len(text) > MaxPatternBytes {
		return nil, errs.Syntax("a change pattern is limited to %d bytes, this one has %d", MaxPatternBytes, len(text))
	}
	if !utf8.ValidString(text) {
		return nil, errs.Syntax("a change pattern must be valid UTF-8")
	}
	part, err := gql.ParsePattern(text)
	if err != nil {
		return nil, err
	}
	p := &Pattern{text: text}
	if p.node, err = node(part.Nodes[0]); err != nil {
		return nil, err
	}
	switch len(part.Rels) {
	case 0:
		return p, nil
	case 1:
	default:
		return nil, fail(part.Rels[1].Pos, "a change pattern is one node or one relationship, not a longer path")
	}
	r := part.Rels[0]
	if r.VarLength != nil {
		return nil, fail(r.Pos, "a change pattern's relationship is one relationship: it takes no length or quantifier")
	}
	p.rel = true
	for _, t := range r.Types {
		if !slices.Contains(p.types, t) {
			p.types = append(p.types, t)
		}
	}
	switch r.Dir {
	case gql.DirRight:
		p.dir = 1
	case gql.DirLeft:
		p.dir = -1
	}
	if p.relProps, err = props(r.Props); err != nil {
		return nil, err
	}
	if p.end, err = node(part.Nodes[1]); err != nil {
		return nil, err
	}
	if len(p.node.props) > 0 || len(p.end.props) > 0 {
		return nil, errs.NotSupported("the endpoints of a relationship pattern take labels only, not properties: a change carries its endpoints' labels")
	}
	return p, nil
}

// fail is a syntax error at pos.
func fail(pos gql.Pos, format string, args ...any) *errs.Error {
	return errs.Syntax("invalid change pattern: "+format, args...).At(pos.Line, pos.Column)
}

// node reads a node pattern's labels (each once) and properties.
func node(n *gql.NodePattern) (patNode, error) {
	var out patNode
	for _, l := range n.Labels {
		if !slices.Contains(out.labels, l) {
			out.labels = append(out.labels, l)
		}
	}
	var err error
	out.props, err = props(n.Props)
	return out, err
}

// props reads a pattern's property map: literal values only.
func props(e gql.Expr) ([]patProp, error) {
	switch m := e.(type) {
	case nil:
		return nil, nil
	case *gql.MapLit:
		out := []patProp{}
		for i, k := range m.Keys {
			v, err := literal(m.Values[i])
			if err != nil {
				return nil, err
			}
			out = append(out, patProp{key: k, val: v})
		}
		return out, nil
	}
	return nil, fail(e.Position(), "expected a map of property values, not a parameter: a change pattern has no parameters")
}

// literal is the value of a property's literal: a string, a number
// (signed), true or false.
func literal(e gql.Expr) (vector.Value, error) {
	neg := false
	if u, ok := e.(*gql.Unary); ok && (u.Op == gql.OpNeg || u.Op == gql.OpPlus) {
		neg, e = u.Op == gql.OpNeg, u.X
		if l, ok := e.(*gql.Literal); !ok || !isNumber(l.Value) {
			return nil, fail(u.Pos, "a sign applies to a number")
		}
	}
	l, ok := e.(*gql.Literal)
	if !ok {
		return nil, fail(e.Position(), "expected a value (a string, a number, true or false), not an expression")
	}
	switch v := l.Value.(type) {
	case nil:
		return nil, fail(l.Pos, "null matches nothing: leave the property out of the pattern")
	case int64:
		if neg {
			return -v, nil
		}
		return v, nil
	case float64:
		if neg {
			return -v, nil
		}
		return v, nil
	case string, bool:
		return v, nil
	}
	return nil, fail(l.Pos, "expected a value (a string, a number, true or false)")
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}
