package changes

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Change patterns select the changes a feed delivers. They are GQL
// pattern syntax, one node or one relationship:
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
// Variables are allowed and ignored. Property values are literals:
// strings ('…' or "…"), integers, floats, true, false. A change matches
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
	ps := &patScanner{src: []rune(text)}
	p := &Pattern{text: text}
	var err error
	if p.node, err = ps.node(); err != nil {
		return nil, err
	}
	ps.space()
	if ps.done() {
		return p, nil
	}
	p.rel = true
	if err = ps.relationship(p); err != nil {
		return nil, err
	}
	if p.end, err = ps.node(); err != nil {
		return nil, err
	}
	if len(p.node.props) > 0 || len(p.end.props) > 0 {
		return nil, errs.NotSupported("the endpoints of a relationship pattern take labels only, not properties: a change carries its endpoints' labels")
	}
	ps.space()
	if !ps.done() {
		return nil, ps.fail("unexpected %q after the pattern: a change pattern is one node or one relationship", string(ps.src[ps.i]))
	}
	return p, nil
}

type patScanner struct {
	src []rune
	i   int
}

func (s *patScanner) done() bool { return s.i >= len(s.src) }

func (s *patScanner) space() {
	for s.i < len(s.src) && unicode.IsSpace(s.src[s.i]) {
		s.i++
	}
}

func (s *patScanner) fail(format string, args ...any) *errs.Error {
	return errs.Syntax("invalid change pattern: "+format, args...).At(1, s.i+1)
}

// eat skips spaces and consumes lit if it comes next.
func (s *patScanner) eat(lit string) bool {
	s.space()
	r := []rune(lit)
	if s.i+len(r) <= len(s.src) && string(s.src[s.i:s.i+len(r)]) == lit {
		s.i += len(r)
		return true
	}
	return false
}

func (s *patScanner) expect(lit, what string) error {
	if s.eat(lit) {
		return nil
	}
	if s.done() {
		return s.fail("expected %q %s, found the end of the pattern", lit, what)
	}
	return s.fail("expected %q %s, found %q", lit, what, string(s.src[s.i]))
}

// name reads an identifier or a `quoted` name; "" when none comes next.
func (s *patScanner) name() (string, error) {
	s.space()
	if s.done() {
		return "", nil
	}
	if s.src[s.i] == '`' {
		start := s.i
		var b strings.Builder
		for s.i++; ; s.i++ {
			if s.i >= len(s.src) {
				s.i = start
				return "", s.fail("unterminated `quoted name`")
			}
			if s.src[s.i] == '`' {
				if s.i+1 < len(s.src) && s.src[s.i+1] == '`' {
					b.WriteRune('`')
					s.i++
					continue
				}
				s.i++
				if b.Len() == 0 {
					s.i = start
					return "", s.fail("a quoted name must not be empty")
				}
				return b.String(), nil
			}
			b.WriteRune(s.src[s.i])
		}
	}
	start := s.i
	for s.i < len(s.src) && (s.src[s.i] == '_' || unicode.IsLetter(s.src[s.i]) || (s.i > start && unicode.IsDigit(s.src[s.i]))) {
		s.i++
	}
	return string(s.src[start:s.i]), nil
}

// label reads the name after ':' (or '|', '&').
func (s *patScanner) label(what string) (string, error) {
	n, err := s.name()
	if err != nil {
		return "", err
	}
	if n == "" {
		if s.done() {
			return "", s.fail("expected a %s name, found the end of the pattern", what)
		}
		return "", s.fail("expected a %s name, found %q", what, string(s.src[s.i]))
	}
	return n, nil
}

func (s *patScanner) node() (patNode, error) {
	var n patNode
	if err := s.expect("(", "to open a node pattern"); err != nil {
		return n, err
	}
	if _, err := s.name(); err != nil { // the variable, ignored
		return n, err
	}
	if s.eat(":") {
		for {
			l, err := s.label("label")
			if err != nil {
				return n, err
			}
			if !slices.Contains(n.labels, l) {
				n.labels = append(n.labels, l)
			}
			if !s.eat(":") && !s.eat("&") {
				break
			}
		}
	}
	var err error
	if n.props, err = s.props(); err != nil {
		return n, err
	}
	return n, s.expect(")", "to close the node pattern")
}

func (s *patScanner) relationship(p *Pattern) error {
	s.space()
	start := s.i
	left := s.eat("<")
	if err := s.expect("-", "between the two node patterns of a relationship"); err != nil {
		return err
	}
	if s.eat("[") {
		if _, err := s.name(); err != nil { // the variable, ignored
			return err
		}
		if s.eat(":") {
			for {
				t, err := s.label("relationship type")
				if err != nil {
					return err
				}
				if !slices.Contains(p.types, t) {
					p.types = append(p.types, t)
				}
				if !s.eat("|") {
					break
				}
				s.eat(":") // -[:A|:B]- is accepted too
			}
		}
		var err error
		if p.relProps, err = s.props(); err != nil {
			return err
		}
		if err := s.expect("]", "to close the relationship pattern"); err != nil {
			return err
		}
	}
	if err := s.expect("-", "after the relationship pattern"); err != nil {
		return err
	}
	right := s.eat(">")
	switch {
	case left && right:
		s.i = start
		return s.fail("a relationship pattern points one way: <-[]- or -[]->, not both")
	case right:
		p.dir = 1
	case left:
		p.dir = -1
	}
	return nil
}

func (s *patScanner) props() ([]patProp, error) {
	if !s.eat("{") {
		return nil, nil
	}
	var out []patProp
	if s.eat("}") {
		return out, nil
	}
	for {
		k, err := s.label("property")
		if err != nil {
			return nil, err
		}
		if err := s.expect(":", "after the property name"); err != nil {
			return nil, err
		}
		v, err := s.literal()
		if err != nil {
			return nil, err
		}
		out = append(out, patProp{key: k, val: v})
		if s.eat("}") {
			return out, nil
		}
		if err := s.expect(",", "or '}' after a property value"); err != nil {
			return nil, err
		}
	}
}

func (s *patScanner) literal() (vector.Value, error) {
	s.space()
	if s.done() {
		return nil, s.fail("expected a value, found the end of the pattern")
	}
	start := s.i
	switch c := s.src[s.i]; {
	case c == '\'' || c == '"':
		var b strings.Builder
		for s.i++; s.i < len(s.src); s.i++ {
			r := s.src[s.i]
			if r == '\\' && s.i+1 < len(s.src) {
				s.i++
				switch e := s.src[s.i]; e {
				case 'n':
					b.WriteRune('\n')
				case 't':
					b.WriteRune('\t')
				default:
					b.WriteRune(e)
				}
				continue
			}
			if r == c {
				s.i++
				return b.String(), nil
			}
			b.WriteRune(r)
		}
		s.i = start
		return nil, s.fail("unterminated string")
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		s.i++
		for s.i < len(s.src) && strings.ContainsRune("0123456789.eE+-_xXabcdefABCDEF", s.src[s.i]) {
			s.i++
		}
		lit := string(s.src[start:s.i])
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return i, nil
		}
		if f, err := strconv.ParseFloat(lit, 64); err == nil && !math.IsInf(f, 0) && !strings.ContainsAny(lit, "xX_") {
			return f, nil
		}
		s.i = start
		return nil, s.fail("%q is not a number", lit)
	}
	w, _ := s.name()
	switch strings.ToLower(w) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		s.i = start
		return nil, s.fail("null matches nothing: leave the property out of the pattern")
	}
	s.i = start
	return nil, s.fail("expected a value (a string, a number, true or false), found %q", string(s.src[s.i]))
}
