package gql

import "strings"

// This file parses the subqueries of Cypher 5 and GQL: the CALL { … }
// clause with its scope clause and IN TRANSACTIONS, and the COUNT,
// COLLECT and EXISTS expressions over a whole query. Every word here is
// recognised by its place (after CALL, before "{"), not reserved: a
// variable or property named count, collect or transactions still reads
// as before.

// callSubquery parses [(scope)] { query } [IN TRANSACTIONS …] after CALL
// (or OPTIONAL CALL), at the "(" or "{".
func (p *parser) callSubquery(pos Pos, optional bool) Clause {
	c := &CallSubquery{Pos: pos, Optional: optional}
	if p.isPunct("(") {
		c.HasScope = true
		p.advance()
		switch {
		case p.isPunct("*"):
			c.ScopeAll = true
			p.advance()
		case !p.isPunct(")"):
			for {
				vpos := p.tok.pos
				c.Scope = append(c.Scope, &Variable{Pos: vpos, Name: p.ident("a variable to import")})
				if !p.isPunct(",") {
					break
				}
				p.advance()
			}
		}
		p.expectPunct(")")
	}
	c.Query = p.subqueryBody()
	if p.isKeyword("IN") {
		c.TxPos = p.tok.pos
		p.advance()
		p.inTransactions(c)
	}
	return c
}

// inTransactions parses [[n] CONCURRENT] TRANSACTIONS [OF n ROWS]
// [ON ERROR …] [REPORT STATUS AS v] after CALL { … } IN. Binding
// answers the options Quiver does not run with a 0A000 naming them.
func (p *parser) inTransactions(c *CallSubquery) {
	if !p.isKeyword("TRANSACTIONS") {
		if !p.isKeyword("CONCURRENT") {
			c.Concurrency = p.expr()
		}
		p.expectKeyword("CONCURRENT")
		c.Concurrent = true
	}
	p.expectKeyword("TRANSACTIONS")
	c.InTransactions = true
	if p.isKeyword("OF") {
		p.advance()
		c.BatchRows = p.expr()
		if !p.isKeyword("ROWS") && !p.isKeyword("ROW") {
			p.failUnexpected("ROWS")
		}
		p.advance()
	}
	if p.isKeyword("ON") {
		p.advance()
		p.expectKeyword("ERROR")
		switch w := strings.ToUpper(p.tok.text); {
		case p.tok.kind == tIdent && !p.tok.quoted && (w == "CONTINUE" || w == "BREAK" || w == "FAIL" || w == "RETRY"):
			c.OnError = w
			p.advance()
		default:
			p.failUnexpected("CONTINUE, BREAK, FAIL or RETRY after ON ERROR")
		}
	}
	if p.isKeyword("REPORT") {
		p.advance()
		p.expectKeyword("STATUS")
		p.expectKeyword("AS")
		pos := p.tok.pos
		c.ReportStatus = &Variable{Pos: pos, Name: p.ident("a variable")}
	}
}

// subqueryBody parses { query } into its query: clauses, UNION included.
func (p *parser) subqueryBody() *Query {
	p.expectPunct("{")
	p.enter()
	defer p.leave()
	q := p.query()
	p.expectPunct("}")
	return q
}

// subqueryExpr parses COUNT { … } or COLLECT { … }, at the keyword: a
// whole query, or a pattern with an optional WHERE read as its MATCH.
func (p *parser) subqueryExpr(kind string) Expr {
	e := &Subquery{Pos: p.tok.pos, Kind: kind}
	p.advance()
	if p.isPunct("{") && !p.peekClause() {
		p.advance()
		p.enter()
		defer p.leave()
		m := &Match{Pos: p.tok.pos, Pattern: p.pattern()}
		if p.isKeyword("WHERE") {
			p.advance()
			m.Where = p.expr()
		}
		p.expectPunct("}")
		e.Query = &Query{Parts: []*SingleQuery{{Clauses: []Clause{m}}}}
		return e
	}
	e.Query = p.subqueryBody()
	return e
}

// peekClause reports whether a clause starts after the current token.
func (p *parser) peekClause() bool {
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	p.advance()
	return p.tok.kind == tIdent && !p.tok.quoted
}

// formatCallSubquery prints a CALL { … } clause.
func formatCallSubquery(sb *strings.Builder, c *CallSubquery) {
	if c.Optional {
		sb.WriteString("OPTIONAL ")
	}
	sb.WriteString("CALL ")
	if c.HasScope {
		sb.WriteByte('(')
		if c.ScopeAll {
			sb.WriteByte('*')
		}
		for i, v := range c.Scope {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(quoteName(v.Name))
		}
		sb.WriteString(") ")
	}
	sb.WriteString("{ ")
	formatQuery(sb, c.Query)
	sb.WriteString(" }")
	if !c.InTransactions {
		return
	}
	sb.WriteString(" IN ")
	if c.Concurrency != nil {
		formatExpr(sb, c.Concurrency)
		sb.WriteByte(' ')
	}
	if c.Concurrent {
		sb.WriteString("CONCURRENT ")
	}
	sb.WriteString("TRANSACTIONS")
	if c.BatchRows != nil {
		sb.WriteString(" OF ")
		formatExpr(sb, c.BatchRows)
		sb.WriteString(" ROWS")
	}
	if c.OnError != "" {
		sb.WriteString(" ON ERROR " + c.OnError)
	}
	if c.ReportStatus != nil {
		sb.WriteString(" REPORT STATUS AS " + quoteName(c.ReportStatus.Name))
	}
}

// formatSubquery prints COUNT, COLLECT or EXISTS over a query.
func formatSubquery(sb *strings.Builder, e *Subquery) {
	sb.WriteString(e.Kind + " { ")
	formatQuery(sb, e.Query)
	sb.WriteString(" }")
}
