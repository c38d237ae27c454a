package gql

// copyStatement parses COPY <name> FROM '<path>' when the text starts with
// COPY, and returns nil otherwise without consuming anything. No query
// clause starts with COPY, so the keyword is never ambiguous.
func (p *parser) copyStatement() *Copy {
	if !p.isKeyword("COPY") {
		return nil
	}
	c := &Copy{Pos: p.tok.pos}
	p.advance()
	c.NamePos = p.tok.pos
	c.Name = p.ident("a label or relationship type")
	p.expectKeyword("FROM")
	c.PathPos = p.tok.pos
	if p.tok.kind != tString {
		p.failUnexpected("a file path string")
	}
	c.Path = p.tok.str
	p.advance()
	return c
}
