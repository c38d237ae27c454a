package tck

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseLiteral parses one value of the TCK's table syntax: null, true,
// false, integers, floats (1.0, .5, 1e-9, NaN, Inf), 'strings' with
// backslash escapes, [lists], {maps}, nodes (:A:B {k: v}), relationships
// [:T {k: v}] and paths <(:A)-[:T]->(:B)<-[:U]-()>. Integers are int64,
// floats float64, lists []any, maps map[string]any, entities litNode,
// litRel and litPath.
func parseLiteral(s string) (any, error) {
	p := &litParser{s: s}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the value in %q", p.s[p.i:], s)
	}
	return v, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *litParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *litParser) errf(format string, args ...any) error {
	return fmt.Errorf("literal %q at %d: %s", p.s, p.i, fmt.Sprintf(format, args...))
}

func (p *litParser) expect(c byte) error {
	if p.peek() != c {
		return p.errf("expected %q", c)
	}
	p.i++
	return nil
}

// eat consumes s when the input continues with it.
func (p *litParser) eat(s string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], s) {
		p.i += len(s)
		return true
	}
	return false
}

func (p *litParser) value() (any, error) {
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		return p.str()
	case c == '[':
		// [:T ...] or [r:T ...] is a relationship, anything else a list.
		save := p.i
		p.i++
		p.word()
		isRel := p.peek() == ':'
		p.i = save
		if isRel {
			return p.rel()
		}
		return p.list()
	case c == '{':
		return p.mapLit()
	case c == '(':
		return p.node()
	case c == '<':
		return p.path()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	}
	w := p.word()
	switch w {
	case "null":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "NaN":
		return math.NaN(), nil
	case "Inf", "Infinity":
		return math.Inf(1), nil
	}
	return nil, p.errf("unknown value %q", w)
}

// word reads an identifier (or a `quoted` one).
func (p *litParser) word() string {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '`' {
		end := strings.IndexByte(p.s[p.i+1:], '`')
		if end >= 0 {
			w := p.s[p.i+1 : p.i+1+end]
			p.i += end + 2
			return w
		}
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80 {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *litParser) number() (any, error) {
	p.space()
	start := p.i
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		p.i++
	}
	if strings.HasPrefix(p.s[p.i:], "Inf") {
		p.word()
		if p.s[start] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	isFloat := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c >= '0' && c <= '9', c == '_':
		case c == '.' || c == 'e' || c == 'E':
			isFloat = true
			if (c == 'e' || c == 'E') && p.i+1 < len(p.s) && (p.s[p.i+1] == '-' || p.s[p.i+1] == '+') {
				p.i++
			}
		case c == 'x' || c == 'o' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
		default:
			goto done
		}
		p.i++
	}
done:
	text := p.s[start:p.i]
	if isFloat && !strings.Contains(text, "0x") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, p.errf("bad float %q", text)
		}
		return f, nil
	}
	n, err := strconv.ParseInt(text, 0, 64)
	if err != nil {
		return nil, p.errf("bad integer %q", text)
	}
	return n, nil
}

func (p *litParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var sb strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return sb.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'u':
				if p.i+4 < len(p.s) {
					if r, err := strconv.ParseUint(p.s[p.i+1:p.i+5], 16, 32); err == nil {
						sb.WriteRune(rune(r))
						p.i += 4
						break
					}
				}
				sb.WriteByte(e)
			default:
				sb.WriteByte(e)
			}
		default:
			sb.WriteByte(c)
		}
		p.i++
	}
	return nil, p.errf("unterminated string")
}

func (p *litParser) list() (any, error) {
	p.i++ // [
	out := []any{}
	if p.peek() == ']' {
		p.i++
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if p.peek() == ',' {
			p.i++
			continue
		}
		return out, p.expect(']')
	}
}

func (p *litParser) mapLit() (map[string]any, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	out := map[string]any{}
	if p.peek() == '}' {
		p.i++
		return out, nil
	}
	for {
		k := p.word()
		if k == "" {
			return nil, p.errf("expected a map key")
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[k] = v
		if p.peek() == ',' {
			p.i++
			continue
		}
		return out, p.expect('}')
	}
}

func (p *litParser) node() (litNode, error) {
	n := litNode{props: map[string]any{}}
	if err := p.expect('('); err != nil {
		return n, err
	}
	p.word() // an optional variable name
	for p.peek() == ':' {
		p.i++
		n.labels = append(n.labels, p.word())
	}
	if p.peek() == '{' {
		m, err := p.mapLit()
		if err != nil {
			return n, err
		}
		n.props = m
	}
	return n, p.expect(')')
}

func (p *litParser) rel() (litRel, error) {
	r := litRel{props: map[string]any{}}
	if err := p.expect('['); err != nil {
		return r, err
	}
	p.word()
	if err := p.expect(':'); err != nil {
		return r, err
	}
	r.typ = p.word()
	if p.peek() == '{' {
		m, err := p.mapLit()
		if err != nil {
			return r, err
		}
		r.props = m
	}
	return r, p.expect(']')
}

func (p *litParser) path() (litPath, error) {
	var path litPath
	p.i++ // <
	n, err := p.node()
	if err != nil {
		return path, err
	}
	path.nodes = append(path.nodes, n)
	for {
		var back bool
		switch {
		case p.eat("<-"):
			back = true
		case p.eat("-"):
		default:
			return path, p.expect('>')
		}
		r, err := p.rel()
		if err != nil {
			return path, err
		}
		if back {
			if !p.eat("-") {
				return path, p.errf("expected -")
			}
		} else if !p.eat("->") {
			return path, p.errf("expected ->")
		}
		n, err := p.node()
		if err != nil {
			return path, err
		}
		path.nodes = append(path.nodes, n)
		path.rels = append(path.rels, r)
		path.back = append(path.back, back)
	}
}
