package gql

import (
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// pattern parses comma-separated pattern parts.
func (p *parser) pattern() *Pattern {
	pat := &Pattern{Parts: []*PatternPart{p.patternPart()}}
	for p.isPunct(",") {
		p.advance()
		pat.Parts = append(pat.Parts, p.patternPart())
	}
	return pat
}

// patternPart parses [v =] [shortestPath(] path [)].
func (p *parser) patternPart() *PatternPart {
	pos := p.tok.pos
	p.matchMode()
	mode, modePos := p.pathMode() // MATCH TRAIL p = …
	name := ""
	if p.tok.kind == tIdent {
		save := *p.lex
		saveTok := p.tok
		n := p.tok.text
		p.advance()
		if p.isPunct("=") {
			p.advance()
			name = n
		} else {
			*p.lex, p.tok = save, saveTok
		}
	}
	if search, kind := p.pathSearch(mode, modePos); search != nil || kind != ShortestNone {
		part := p.path(pos)
		part.Var, part.Shortest, part.Search = name, kind, search
		return part
	}
	shortest := ShortestNone
	if p.isKeyword("shortestPath") || p.isKeyword("allShortestPaths") {
		shortest = ShortestOne
		if p.isKeyword("allShortestPaths") {
			shortest = ShortestAll
		}
		p.advance()
		p.expectPunct("(")
		part := p.path(pos)
		p.expectPunct(")")
		part.Var, part.Shortest, part.Legacy = name, shortest, true
		return part
	}
	part := p.path(pos)
	part.Var = name
	return part
}

// path parses (a)-[r]->(b)...
func (p *parser) path(pos Pos) *PatternPart {
	part := &PatternPart{Pos: pos}
	if p.groupAhead() { // an implicit node before a leading quantified group
		part.Nodes = []*NodePattern{{Pos: p.tok.pos}}
	} else {
		part.Nodes = []*NodePattern{p.nodePattern()}
	}
	for p.isPunct("-") || p.isPunct("<") || p.groupAhead() {
		if p.groupAhead() {
			p.quantifiedGroup(part)
			continue
		}
		part.Rels = append(part.Rels, p.relPattern())
		part.Nodes = append(part.Nodes, p.nodePattern())
	}
	p.pathEnd()
	return part
}

func (p *parser) nodePattern() *NodePattern {
	n := &NodePattern{Pos: p.tok.pos}
	p.expectPunct("(")
	p.element()
	if p.tok.kind == tIdent && !p.labelIS() {
		n.Var = p.ident("a variable")
	}
	if p.isPunct(":") || p.labelIS() {
		n.Labels, n.LabelExpr = p.nodeLabels()
	}
	n.Props = p.patternProps()
	p.expectPunct(")")
	return n
}

// patternProps parses an optional {map} or $param.
func (p *parser) patternProps() Expr {
	switch {
	case p.isPunct("{"):
		return p.mapLiteral()
	case p.tok.kind == tParam:
		e := &Param{Pos: p.tok.pos, Name: p.tok.text}
		p.advance()
		return e
	}
	return nil
}

// relPattern parses -[...]->, <-[...]-, -[...]-, -->, <--, --.
func (p *parser) relPattern() *RelPattern {
	r := &RelPattern{Pos: p.tok.pos}
	p.element()
	left := false
	if p.isPunct("<") {
		left = true
		p.advance()
	}
	p.expectPunct("-")
	if p.isPunct("[") {
		p.advance()
		if p.tok.kind == tIdent && !p.labelIS() {
			r.Var = p.ident("a variable")
		}
		if p.isPunct(":") || p.labelIS() {
			r.Types, r.TypeExpr = p.relTypes()
		}
		if p.isPunct("*") {
			r.VarLength = p.rangeSpec()
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
			r.Dir = DirBoth // <--> is Cypher for either direction
		}
	case left:
		r.Dir = DirLeft
	}
	if p.isPunct("*") || p.isPunct("+") || p.isPunct("{") {
		if r.VarLength != nil {
			p.fail("a relationship cannot have both a * range and a quantifier")
		}
		r.VarLength = p.quantifier()
	}
	return r
}

// searchPrefix parses the GQL path search prefixes ANY SHORTEST and ALL
// SHORTEST, returning ShortestNone (and consuming nothing) when absent.
func (p *parser) searchPrefix() int {
	if !p.isKeyword("ANY") && !p.isKeyword("ALL") {
		return ShortestNone
	}
	kind := ShortestOne
	if p.isKeyword("ALL") {
		kind = ShortestAll
	}
	save, saveTok := *p.lex, p.tok
	p.advance()
	if !p.isKeyword("SHORTEST") {
		*p.lex, p.tok = save, saveTok
		return ShortestNone
	}
	p.advance()
	return kind
}

// quantifier parses a GQL quantifier after an edge pattern: * (0 or more),
// + (1 or more), {m,n}, {m,}, {,n} or {n}.
func (p *parser) quantifier() *Range {
	zero, one := int64(0), int64(1)
	switch {
	case p.isPunct("*"):
		p.advance()
		return &Range{Min: &zero}
	case p.isPunct("+"):
		p.advance()
		return &Range{Min: &one}
	}
	p.advance() // {
	num := func() *int64 {
		if p.tok.kind != tInt {
			return nil
		}
		v, err := strconv.ParseInt(p.tok.text, 10, 64)
		if err != nil {
			p.fail("invalid quantifier bound %s", p.tok.text)
		}
		p.advance()
		return &v
	}
	rg := &Range{Min: num()}
	if p.isPunct(",") {
		p.advance()
		rg.Max = num()
	} else {
		if rg.Min == nil {
			p.failUnexpected("a quantifier bound")
		}
		rg.Max = rg.Min
	}
	p.expectPunct("}")
	if rg.Min == nil {
		rg.Min = &zero
	}
	if rg.Max != nil && *rg.Min > *rg.Max {
		p.fail("quantifier minimum %d is greater than its maximum %d", *rg.Min, *rg.Max)
	}
	return rg
}

// rangeSpec parses *, *n, *n.., *..m, *n..m.
func (p *parser) rangeSpec() *Range {
	p.advance() // *
	rg := &Range{}
	num := func() *int64 {
		if p.tok.kind != tInt {
			return nil
		}
		v, err := strconv.ParseInt(p.tok.text, 10, 64)
		if err != nil || v < 0 {
			p.fail("invalid range bound %s", p.tok.text)
		}
		p.advance()
		return &v
	}
	rg.Min = num()
	if p.isPunct("..") {
		p.advance()
		rg.Max = num()
	} else if rg.Min != nil {
		rg.Max = rg.Min // *3 means exactly 3
	}
	// An empty range (*2..1) is no error: as in openCypher, it matches
	// nothing.
	return rg
}

// keywords lists clause and operator keywords for suggestions.
var keywords = []string{"MATCH", "OPTIONAL", "WHERE", "RETURN", "WITH", "CREATE", "MERGE", "DELETE", "DETACH",
	"SET", "REMOVE", "UNWIND", "ORDER", "LIMIT", "SKIP", "OFFSET", "DISTINCT", "UNION", "CALL", "YIELD", "EXPLAIN", "PROFILE"}

// suggestKeyword returns the keyword nearest to word (edit distance 1 or 2
// for words of at least 4 letters), or "".
func suggestKeyword(word string) string {
	w := strings.ToUpper(word)
	best, bestD := "", 3
	for _, k := range keywords {
		if d := errs.EditDistance(w, k); d < bestD && d > 0 && len(w) >= 4 {
			best, bestD = k, d
		}
	}
	return best
}
