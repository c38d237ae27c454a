package gql

import "strconv"

// Quantified path patterns, path modes and selectors. Every word here is a
// soft keyword: WALK, TRAIL, ACYCLIC, SIMPLE, ANY, ALL, SHORTEST, GROUP(S)
// and PATH(S) are read as such only where a path pattern's prefix may
// stand, and a word followed by = still names a path (MATCH walk = …).

// pathMode parses WALK | TRAIL | ACYCLIC | SIMPLE [PATH | PATHS], or
// nothing, returning ModeDefault, and where the mode was written.
func (p *parser) pathMode() (int, Pos) {
	pos := p.tok.pos
	mode := ModeDefault
	switch {
	case p.isKeyword("WALK"):
		mode = ModeWalk
	case p.isKeyword("TRAIL"):
		mode = ModeTrail
	case p.isKeyword("ACYCLIC"):
		mode = ModeAcyclic
	case p.isKeyword("SIMPLE"):
		mode = ModeSimple
	default:
		return ModeDefault, pos
	}
	if p.nextIsPunct("=") {
		return ModeDefault, pos // a path variable named like the mode
	}
	p.advance()
	p.pathNoise()
	return mode, pos
}

// pathNoise skips the optional PATH or PATHS after a mode or selector,
// unless it is a path variable (PATH = …).
func (p *parser) pathNoise() {
	if (p.isKeyword("PATH") || p.isKeyword("PATHS")) && !p.nextIsPunct("=") {
		p.advance()
	}
}

// nextIsPunct reports whether the token after the current one is the
// punctuation s, consuming nothing.
func (p *parser) nextIsPunct(s string) bool {
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	p.advance()
	ok := p.isPunct(s)
	*p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd
	return ok
}

// pathSearch parses the prefix after a path variable: a selector (ANY
// SHORTEST, ALL SHORTEST, ANY [k], ALL, SHORTEST k [GROUP | GROUPS])
// and a path mode, given the mode written before the variable. It returns
// the search (nil when there is nothing beyond ANY / ALL SHORTEST) and the
// ShortestOne / ShortestAll marker of ANY / ALL SHORTEST.
func (p *parser) pathSearch(mode int, modePos Pos) (*PathSearch, int) {
	s := &PathSearch{Pos: p.tok.pos, Mode: mode, K: 1}
	if mode != ModeDefault {
		s.Pos = modePos
	}
	kind := p.searchPrefix()
	switch {
	case kind != ShortestNone:
		s.Select, s.Groups = SelectShortest, kind == ShortestAll
	case p.isKeyword("ANY"):
		p.advance()
		s.Select = SelectAny
		if p.tok.kind == tInt {
			s.K = p.pathCount("ANY")
		}
	case p.isKeyword("ALL"):
		p.advance()
		s.Select = SelectAll
	case p.isKeyword("SHORTEST"):
		p.advance()
		s.Select = SelectShortest
		if p.tok.kind != tInt {
			p.failUnexpected("the number of paths after SHORTEST")
		}
		s.K = p.pathCount("SHORTEST")
		if p.isKeyword("GROUP") || p.isKeyword("GROUPS") {
			p.advance()
			s.Groups = true
		}
	}
	if s.Select != SelectNone {
		p.pathNoise()
	}
	if !p.isPunct("(") {
		if m, pos := p.pathMode(); m != ModeDefault {
			if s.Mode != ModeDefault {
				p.fail("a path pattern takes one path mode")
			}
			s.Mode = m
			if s.Select == SelectNone {
				s.Pos = pos
			}
		}
	}
	if s.Mode == ModeDefault && (s.Select == SelectNone || kind != ShortestNone) {
		return nil, kind
	}
	return s, kind
}

// pathCount reads the k of ANY k or SHORTEST k: a positive integer.
func (p *parser) pathCount(what string) int64 {
	k, err := strconv.ParseInt(p.tok.text, 10, 64)
	if err != nil || k < 1 {
		p.fail("the number of paths of %s must be a positive integer, not %s", what, p.tok.text)
	}
	p.advance()
	return k
}

// groupAhead reports whether a quantified group starts here: "((".
func (p *parser) groupAhead() bool {
	return p.isPunct("(") && p.nextIsPunct("(")
}

// quantifiedGroup parses ((x)-[r]->(y) [WHERE c]) quantifier and the
// node pattern after it (an implicit one when none is written), adding
// them to part, whose last node is the group's left neighbour.
func (p *parser) quantifiedGroup(part *PatternPart) {
	pos := p.tok.pos
	p.enter()
	p.advance() // (
	if p.groupAhead() {
		p.fail("a quantified path pattern cannot hold another one")
	}
	inner := &PatternPart{Pos: p.tok.pos, Nodes: []*NodePattern{p.nodePattern()}}
	if !p.isPunct("-") && !p.isPunct("<") {
		p.failUnexpected("a relationship pattern in the quantified path pattern")
	}
	for p.isPunct("-") || p.isPunct("<") {
		inner.Rels = append(inner.Rels, p.relPattern())
		if p.groupAhead() {
			p.fail("a quantified path pattern cannot hold another one")
		}
		inner.Nodes = append(inner.Nodes, p.nodePattern())
	}
	g := &QuantGroup{Pos: pos, Path: inner}
	if p.isKeyword("WHERE") {
		p.advance()
		g.Where = p.expr()
	}
	p.expectPunct(")")
	p.leave()
	if !p.isPunct("*") && !p.isPunct("+") && !p.isPunct("{") {
		p.failUnexpected("a quantifier (*, +, {m,n}) after the parenthesized path pattern")
	}
	for _, r := range inner.Rels {
		if r.VarLength != nil {
			panic(errAt(r.Pos, "a relationship inside a quantified path pattern cannot have a quantifier of its own"))
		}
	}
	first := *inner.Rels[0]
	first.Pos, first.VarLength, first.Group = pos, p.quantifier(), g
	part.Rels = append(part.Rels, &first)
	if p.isPunct("(") && !p.groupAhead() {
		part.Nodes = append(part.Nodes, p.nodePattern())
	} else {
		part.Nodes = append(part.Nodes, &NodePattern{Pos: p.tok.pos})
	}
}

// pathEnd refuses what may follow a path but is not supported: a node
// pattern right after a node pattern, which GQL reads as the same node.
func (p *parser) pathEnd() {
	if !p.isPunct("(") {
		return
	}
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	p.advance()
	word := p.tok.kind == tIdent && !p.tok.quoted
	mode, _ := p.pathMode()
	subpath := mode == ModeDefault && word && p.nextIsPunct("=")
	*p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd
	switch {
	case mode != ModeDefault:
		p.fail("a path mode inside a parenthesized path pattern is not supported; write it before the path")
	case subpath:
		p.fail("a path variable inside a parenthesized path pattern (a subpath variable) is not supported")
	}
	p.fail("adjacent node patterns are supported only around a quantified path pattern")
}

// matchMode refuses GQL's match modes before a MATCH's patterns.
func (p *parser) matchMode() {
	if (p.isKeyword("REPEATABLE") || p.isKeyword("DIFFERENT")) && !p.nextIsPunct("=") {
		p.fail("match modes (REPEATABLE ELEMENTS, DIFFERENT EDGES) are not supported; write a path mode (WALK, TRAIL, ACYCLIC, SIMPLE) per path")
	}
}
