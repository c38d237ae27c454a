package gql

import "strings"

// peekKeyword reports whether the token after the current one is the
// keyword k (one of ks), looking ahead on a copy of the lexer.
func (p *parser) peekKeyword(ks ...string) bool {
	l := *p.lex
	t, err := l.next()
	if err != nil || t.kind != tIdent || t.quoted {
		return false
	}
	for _, k := range ks {
		if strings.EqualFold(t.text, k) {
			return true
		}
	}
	return false
}

// schemaStatement parses a schema statement when the text starts with one
// and returns nil otherwise without consuming anything.
func (p *parser) schemaStatement() *Schema {
	pos := p.tok.pos
	switch {
	case p.isKeyword("CREATE") && p.peekKeyword("FULLTEXT"):
		p.advance()
		p.advance()
		p.expectKeyword("INDEX")
		s := &Schema{Pos: pos, Kind: SchemaCreateIndex, IndexType: "FULLTEXT"}
		p.createFullText(s)
		return s
	case p.isKeyword("CREATE") && p.peekKeyword("VECTOR"):
		p.advance()
		p.advance()
		p.expectKeyword("INDEX")
		s := &Schema{Pos: pos, Kind: SchemaCreateIndex, IndexType: "VECTOR"}
		p.createVector(s)
		return s
	case p.isKeyword("CREATE") && p.peekKeyword("INDEX", "BTREE", "HASH"):
		p.advance()
		s := &Schema{Pos: pos, Kind: SchemaCreateIndex}
		if p.isKeyword("BTREE") || p.isKeyword("HASH") {
			s.IndexType = strings.ToUpper(p.tok.text)
			p.advance()
		}
		p.expectKeyword("INDEX")
		p.createIndex(s)
		return s
	case p.isKeyword("CREATE") && p.peekKeyword("CONSTRAINT"):
		p.advance()
		p.advance()
		s := &Schema{Pos: pos, Kind: SchemaCreateConstraint}
		p.createConstraint(s)
		return s
	case p.isKeyword("DROP"):
		p.advance()
		s := &Schema{Pos: pos}
		switch {
		case p.isKeyword("INDEX"):
			s.Kind = SchemaDropIndex
		case p.isKeyword("CONSTRAINT"):
			s.Kind = SchemaDropConstraint
		default:
			p.failUnexpected("INDEX or CONSTRAINT after DROP")
		}
		p.advance()
		s.NamePos = p.tok.pos
		s.Name = p.ident("a name")
		p.ifExists(s)
		return s
	case p.isKeyword("SHOW") && p.peekKeyword("INDEXES", "INDEX", "CONSTRAINTS", "CONSTRAINT"):
		p.advance()
		s := &Schema{Pos: pos, Kind: SchemaShowIndexes}
		if strings.HasPrefix(strings.ToUpper(p.tok.text), "CONSTRAINT") {
			s.Kind = SchemaShowConstraints
		}
		p.advance()
		return s
	}
	return nil
}

// createIndex parses what follows CREATE [type] INDEX.
func (p *parser) createIndex(s *Schema) {
	p.ifNotExists(s)
	if !s.IfExists && !p.isKeyword("FOR") && !p.isKeyword("ON") {
		s.NamePos = p.tok.pos
		s.Name = p.ident("an index name, FOR or ON")
		p.ifNotExists(s)
	}
	if p.isKeyword("ON") {
		// The older form: ON :Label(p1, p2).
		p.advance()
		p.expectPunct(":")
		s.Label = p.ident("a label")
		p.expectPunct("(")
		for {
			s.Props = append(s.Props, p.ident("a property name"))
			if !p.isPunct(",") {
				break
			}
			p.advance()
		}
		p.expectPunct(")")
	} else {
		p.expectKeyword("FOR")
		v := p.schemaNode(s)
		p.expectKeyword("ON")
		p.expectPunct("(")
		for {
			s.Props = append(s.Props, p.schemaProp(v))
			if !p.isPunct(",") {
				break
			}
			p.advance()
		}
		p.expectPunct(")")
	}
	if p.isKeyword("OPTIONS") {
		for _, o := range p.options() {
			str, isStr := o.val.(string)
			if !strings.EqualFold(o.key, "type") || !isStr {
				panic(errAt(o.at, "OPTIONS takes {type: 'BTREE'} or {type: 'HASH'}"))
			}
			s.IndexType = strings.ToUpper(str)
		}
	}
	if p.isKeyword("TYPE") {
		p.advance()
		s.IndexType = strings.ToUpper(p.ident("an index type"))
	}
	if s.IndexType != "" && s.IndexType != "BTREE" && s.IndexType != "HASH" {
		p.fail("unknown index type %s: BTREE or HASH", s.IndexType)
	}
}

// schemaNode parses (v:Label) and returns v.
func (p *parser) schemaNode(s *Schema) string {
	p.expectPunct("(")
	v := p.ident("a variable")
	p.expectPunct(":")
	s.Label = p.ident("a label")
	p.expectPunct(")")
	return v
}

// schemaProp parses v.p for the node variable v and returns p.
func (p *parser) schemaProp(v string) string {
	pos := p.tok.pos
	if got := p.ident("the node variable"); got != v {
		panic(errAt(pos, "expected a property of %s, found %s", v, got))
	}
	p.expectPunct(".")
	return p.ident("a property name")
}

// createConstraint parses what follows CREATE CONSTRAINT.
func (p *parser) createConstraint(s *Schema) {
	p.ifNotExists(s)
	if !s.IfExists && !p.isKeyword("ON") && !p.isKeyword("FOR") {
		s.NamePos = p.tok.pos
		s.Name = p.ident("a constraint name, ON or FOR")
		p.ifNotExists(s)
	}
	p.constraintWord("ON", "FOR")
	v := p.schemaNode(s)
	p.constraintWord("ASSERT", "REQUIRE")
	if p.isKeyword("EXISTS") {
		p.advance()
		p.expectPunct("(")
		s.Props = []string{p.schemaProp(v)}
		p.expectPunct(")")
		return
	}
	s.Props = []string{p.schemaProp(v)}
	p.expectKeyword("IS")
	switch {
	case p.isKeyword("UNIQUE"):
		s.Unique = true
		p.advance()
	case p.isKeyword("NOT"):
		p.advance()
		p.expectKeyword("NULL")
	case p.isPunct("::") || p.isKeyword("TYPED"):
		p.propertyTypeConstraint()
	default:
		p.failUnexpected("UNIQUE or NOT NULL")
	}
}

// hints parses the planner hints after a MATCH pattern.
func (p *parser) hints() []*Hint {
	var hs []*Hint
	for {
		pos := p.tok.pos
		switch {
		case p.isKeyword("WITHOUT"):
			p.advance()
			p.expectKeyword("INDEX")
			hs = append(hs, &Hint{Pos: pos, Kind: HintNoIndex})
		case p.isKeyword("USING"):
			p.advance()
			switch {
			case p.isKeyword("INDEX"):
				p.advance()
				h := &Hint{Pos: pos, Kind: HintIndex, Var: p.ident("a variable")}
				p.expectPunct(":")
				h.Label = p.ident("a label")
				p.expectPunct("(")
				for {
					h.Props = append(h.Props, p.ident("a property name"))
					if !p.isPunct(",") {
						break
					}
					p.advance()
				}
				p.expectPunct(")")
				hs = append(hs, h)
			case p.isKeyword("JOIN"):
				p.advance()
				p.expectKeyword("ON")
				h := &Hint{Pos: pos, Kind: HintJoin, Var: p.ident("a variable")}
				p.expectPunct(".")
				h.Props = []string{p.ident("a property name")}
				p.expectPunct("=")
				h.RightVar = p.ident("a variable")
				p.expectPunct(".")
				h.RightProp = p.ident("a property name")
				hs = append(hs, h)
			default:
				p.failUnexpected("INDEX or JOIN after USING")
			}
		default:
			return hs
		}
	}
}

// option is one entry of a schema statement's OPTIONS map: its key, the
// value of its literal (nil when the value is not a literal) and where
// the value is.
type option struct {
	key string
	val any
	at  Pos
}

// options reads OPTIONS and its map (the caller saw the keyword).
func (p *parser) options() []option {
	p.advance()
	m := p.mapLiteral()
	out := make([]option, len(m.Keys))
	for i, k := range m.Keys {
		out[i] = option{key: k, at: m.Values[i].Position()}
		if lit, ok := m.Values[i].(*Literal); ok {
			out[i].val = lit.Value
		}
	}
	return out
}
