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
		for _, o := range p.options() {
			str, isStr := o.val.(string)
			if !strings.EqualFold(o.key, "analyzer") || !isStr {
				panic(errAt(o.at, "FULLTEXT OPTIONS take {analyzer: 'name'}"))
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
