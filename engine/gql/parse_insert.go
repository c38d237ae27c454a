package gql

// INSERT is GQL's CREATE: the same graph changes and counters, written
// with GQL's label sets. A node's labels are :A:B, :A&B or IS A&B (IS
// with : between labels too); a relationship's one type is :T or IS T.
// Its pattern is parsed here rather than by the reading pattern's
// parser, whose label expressions mean "any of" and "not" too: an INSERT
// only ever sets labels, so a conjunction is all it can take.

// insert parses the paths of INSERT into a CREATE.
func (p *parser) insert(pos Pos) Clause {
	p.creating = true
	defer func() { p.creating = false }()
	pat := &Pattern{}
	for {
		part := &PatternPart{Pos: p.tok.pos, Nodes: []*NodePattern{p.insertNode()}}
		for p.isPunct("-") || p.isPunct("<") {
			part.Rels = append(part.Rels, p.insertRel())
			part.Nodes = append(part.Nodes, p.insertNode())
		}
		pat.Parts = append(pat.Parts, part)
		if !p.isPunct(",") {
			return &Create{Pos: pos, Pattern: pat}
		}
		p.advance()
	}
}

// isLabelSetAhead reports whether IS starts a label set here: IS
// followed by a name ((IS A), (n IS A)); (is) names a variable.
func (p *parser) isLabelSetAhead() bool {
	if !p.isKeyword("IS") {
		return false
	}
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	p.advance()
	return p.tok.kind == tIdent
}

// insertNode parses (v :A&B {props}).
func (p *parser) insertNode() *NodePattern {
	n := &NodePattern{Pos: p.tok.pos}
	p.expectPunct("(")
	if p.tok.kind == tIdent && !p.isLabelSetAhead() {
		n.Var = p.ident("a variable")
	}
	if p.isPunct(":") || p.isLabelSetAhead() {
		p.advance()
		n.Labels = append(n.Labels, p.ident("a label name"))
		for p.isPunct(":") || p.isPunct("&") {
			p.advance()
			n.Labels = append(n.Labels, p.ident("a label name"))
		}
		if p.isPunct("|") || p.isPunct("!") || p.isPunct("%") {
			p.fail("INSERT sets labels: write them joined by & or :, not %s", p.tok.text)
		}
	}
	n.Props = p.patternProps()
	p.expectPunct(")")
	return n
}

// insertRel parses -[v :T {props}]->, <-[…]- (the type is required when
// the pattern is planned, as CREATE's is).
func (p *parser) insertRel() *RelPattern {
	r := &RelPattern{Pos: p.tok.pos}
	left := false
	if p.isPunct("<") {
		left = true
		p.advance()
	}
	p.expectPunct("-")
	if p.isPunct("[") {
		p.advance()
		if p.tok.kind == tIdent && !p.isLabelSetAhead() {
			r.Var = p.ident("a variable")
		}
		if p.isPunct(":") || p.isLabelSetAhead() {
			p.advance()
			r.Types = append(r.Types, p.ident("a relationship type"))
			if p.isPunct("|") || p.isPunct("&") || p.isPunct(":") {
				p.fail("an inserted relationship has exactly one type")
			}
		}
		r.Props = p.patternProps()
		p.expectPunct("]")
	}
	p.expectPunct("-")
	switch {
	case p.isPunct(">"):
		p.advance()
		r.Dir = DirRight
		if left {
			r.Dir = DirBoth
		}
	case left:
		r.Dir = DirLeft
	}
	return r
}
