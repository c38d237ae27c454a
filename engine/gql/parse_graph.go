package gql

import "strings"

// graphStatement parses a graph management statement when the text starts
// with one, and returns nil otherwise without consuming anything:
//
//	CREATE GRAPH [IF NOT EXISTS] name [OPTIONS {max_memory: '1GB', max_disk: '10GB'}]
//	DROP GRAPH [IF EXISTS] name
//	SHOW GRAPHS
//	USE name                      (alone: the session's graph from then on)
//
// CREATE GRAPH is told from CREATE graph = (a)-->(b), a path named graph,
// by the name that must follow GRAPH. USE name followed by a statement is
// not a graph statement: ParseCancel reads it as that statement's Use.
func (p *parser) graphStatement() *Graph {
	pos := p.tok.pos
	switch {
	case p.isKeyword("CREATE") && p.peekKeyword("GRAPH") && p.peekNth(2, func(t token) bool { return t.kind == tIdent }):
		p.advance()
		p.advance()
		g := &Graph{Kind: GraphCreate, Pos: pos}
		if p.isKeyword("IF") {
			p.advance()
			p.expectKeyword("NOT")
			p.expectKeyword("EXISTS")
			g.IfNotExists = true
		}
		g.NamePos = p.tok.pos
		g.Name = p.ident("a graph name")
		if p.isKeyword("OPTIONS") {
			p.graphOptions(g)
		}
		return g
	case p.isKeyword("DROP") && p.peekKeyword("GRAPH"):
		p.advance()
		p.advance()
		g := &Graph{Kind: GraphDrop, Pos: pos}
		if p.isKeyword("IF") && p.peekKeyword("EXISTS") {
			p.advance()
			p.advance()
			g.IfExists = true
		}
		g.NamePos = p.tok.pos
		g.Name = p.ident("a graph name")
		return g
	case p.isKeyword("SHOW") && p.peekKeyword("GRAPHS"):
		p.advance()
		p.advance()
		return &Graph{Kind: GraphShow, Pos: pos}
	}
	return nil
}

// use parses a leading USE name: the graph the statement runs on. It
// returns nil, consuming nothing, when the text does not start with USE
// followed by a name.
func (p *parser) use() *Use {
	if !p.isKeyword("USE") || !p.peekNth(1, func(t token) bool { return t.kind == tIdent }) {
		return nil
	}
	p.advance()
	u := &Use{Pos: p.tok.pos}
	u.Name = p.ident("a graph name")
	return u
}

// graphOptions reads CREATE GRAPH's OPTIONS map.
func (p *parser) graphOptions(g *Graph) {
	for _, o := range p.options() {
		switch strings.ToLower(o.key) {
		case "max_memory", "maxmemory":
			g.MaxMemory, g.MaxMemoryPos = graphSize(o), o.at
		case "max_disk", "maxdisk":
			g.MaxDisk, g.MaxDiskPos = graphSize(o), o.at
		default:
			panic(errAt(o.at, "CREATE GRAPH OPTIONS: unknown option %s (max_memory, max_disk)", o.key))
		}
	}
}

// graphSize is a size option's literal: bytes as an integer, or a string
// with a unit ('512MB').
func graphSize(o option) any {
	switch o.val.(type) {
	case int64, string:
		return o.val
	}
	panic(errAt(o.at, "CREATE GRAPH OPTIONS: %s is a size: an integer of bytes or a string such as '2GB'", o.key))
}

// peekNth reports whether the n-th token after the current one satisfies
// ok, looking ahead on a copy of the lexer.
func (p *parser) peekNth(n int, ok func(token) bool) bool {
	l := *p.lex
	var t token
	for i := 0; i < n; i++ {
		var err error
		if t, err = l.next(); err != nil {
			return false
		}
	}
	return ok(t)
}

// NamesGraph reports whether text may be a graph statement or start with
// USE: its first word is USE, or its first two are CREATE GRAPH, DROP
// GRAPH or SHOW GRAPHS. It reads at most two tokens, so that a statement
// that cannot name a graph is routed without a parse.
func NamesGraph(text string) bool {
	l := newLexer(text)
	var words [2]string
	for i := range words {
		t, err := l.next()
		if err != nil || t.kind != tIdent || t.quoted {
			break
		}
		words[i] = strings.ToUpper(t.text)
	}
	switch words[0] {
	case "USE":
		return true
	case "CREATE", "DROP":
		return words[1] == "GRAPH"
	case "SHOW":
		return words[1] == "GRAPHS"
	}
	return false
}
