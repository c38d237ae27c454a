package gql

import "strings"

// createFullText parses what follows CREATE FULLTEXT INDEX:
//
//	[name] [IF NOT EXISTS] FOR (n:Label) ON EACH [n.p1, n.p2 …] [OPTIONS {analyzer: 'english'}]
//	[name] [IF NOT EXISTS] FOR ()-[r:TYPE]-() ON EACH [r.p1 …] [OPTIONS …]
//
// The analyzer's name is checked by the index (engine/index/fulltext),
// which knows which analyzers exist.
func (p *parser) createFullText(s *Schema) {
	p.ifNotExists(s)
	if !s.IfExists && !p.isKeyword("FOR") {
		s.NamePos = p.tok.pos
		s.Name = p.ident("an index name or FOR")
		p.ifNotExists(s)
	}
	p.expectKeyword("FOR")
	var v string
	p.expectPunct("(")
	if p.isPunct(")") {
		// ()-[r:TYPE]-(), either direction written or none.
		p.advance()
		p.relDash()
		p.expectPunct("[")
		v = p.ident("a variable")
		p.expectPunct(":")
		s.Label = p.ident("a relationship type")
		p.expectPunct("]")
		p.relDash()
		p.expectPunct("(")
		p.expectPunct(")")
		s.Rel = true
	} else {
		v = p.ident("a variable")
		p.expectPunct(":")
		s.Label = p.ident("a label")
		p.expectPunct(")")
	}
	p.expectKeyword("ON")
	p.expectKeyword("EACH")
	p.expectPunct("[")
	for {
		s.Props = append(s.Props, p.schemaProp(v))
		if !p.isPunct(",") {
			break
		}
		p.advance()
	}
	p.expectPunct("]")
	if p.isKeyword("OPTIONS") {
		p.advance()
		m := p.mapLiteral()
		for i, k := range m.Keys {
			lit, ok := m.Values[i].(*Literal)
			str, isStr := "", false
			if ok {
				str, isStr = lit.Value.(string)
			}
			if !strings.EqualFold(k, "analyzer") || !isStr {
				panic(errAt(m.Values[i].Position(), "FULLTEXT OPTIONS take {analyzer: 'name'}"))
			}
			s.Analyzer = strings.ToLower(str)
		}
	}
}

// relDash reads the dash of a relationship pattern: -, -> or <-, as one
// token or several.
func (p *parser) relDash() {
	if p.isPunct("->") || p.isPunct("<-") {
		p.advance()
		return
	}
	if p.isPunct("<") {
		p.advance()
	}
	if !p.isPunct("-") {
		p.failUnexpected("-")
	}
	p.advance()
	if p.isPunct(">") {
		p.advance()
	}
}
