package gql

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// SELECT is GQL's SQL-like query (ISO/IEC 39075 §14.12):
//
//	SELECT [DISTINCT | ALL] * | item [AS name], …
//	  [FROM [CURRENT_GRAPH] MATCH … [MATCH …]]
//	  [WHERE p] [GROUP BY key, …] [HAVING p]
//	  [ORDER BY …] [OFFSET n] [LIMIT m]
//
// It says nothing the linear statements cannot, so it is read into them:
// the FROM's match statements, FILTER p for WHERE, and a RETURN with the
// items, GROUP BY, ORDER BY, OFFSET and LIMIT. HAVING needs the groups
// first: the items and the HAVING condition are projected by a grouping
// WITH (the condition under a name no query writes unquoted), filtered,
// and returned by name, so with HAVING an ORDER BY key must name an item.
// Only the current graph can be named: Quiver serves one graph a database.

// havingName is the column HAVING's condition is projected into.
const havingName = "#having"

// selectClause carries what SELECT was read into until compose puts its
// clauses in its place; it never leaves the parser.
type selectClause struct {
	Pos     Pos
	Clauses []Clause
}

func (c *selectClause) Position() Pos { return c.Pos }

// selectStatement parses SELECT's body after the keyword.
func (p *parser) selectStatement(pos Pos) Clause {
	pr := Projection{Pos: pos}
	if p.isKeyword("DISTINCT") {
		pr.Distinct = true
		p.advance()
	} else if p.isKeyword("ALL") {
		p.advance()
	}
	if p.isPunct("*") {
		pr.Star = true
		p.advance()
	} else {
		for {
			start := p.tok.pos.Offset
			e := p.expr()
			it := &ReturnItem{Expr: e, Text: strings.TrimSpace(p.src[start:p.lastEnd])}
			if p.isKeyword("AS") {
				p.advance()
				it.Alias = p.ident("an alias")
			}
			pr.Items = append(pr.Items, it)
			if !p.isPunct(",") {
				break
			}
			p.advance()
		}
	}
	sel := &selectClause{Pos: pos}
	if p.isKeyword("FROM") {
		p.advance()
		sel.Clauses = p.selectFrom()
	}
	if p.isKeyword("WHERE") {
		wpos := p.tok.pos
		p.advance()
		sel.Clauses = append(sel.Clauses, &Filter{Pos: wpos, Where: p.expr()})
	}
	pr.GroupBy = p.groupBy()
	var having Expr
	var havingPos Pos
	if p.isKeyword("HAVING") {
		havingPos = p.tok.pos
		p.advance()
		having = p.expr()
	}
	if p.isKeyword("ORDER") {
		p.advance()
		p.expectKeyword("BY")
		pr.OrderBy = p.sortItems()
	}
	if p.isKeyword("OFFSET") || p.isKeyword("SKIP") {
		p.advance()
		pr.Skip = p.expr()
	}
	if p.isKeyword("LIMIT") {
		p.advance()
		pr.Limit = p.expr()
	}
	if having == nil {
		sel.Clauses = append(sel.Clauses, &Return{Pos: pos, Projection: pr})
		return sel
	}
	if pr.Star {
		panic(errAt(havingPos, "SELECT * cannot have HAVING: name the items it selects"))
	}
	// WITH item AS name, …, condition AS #having GROUP BY …
	// FILTER #having RETURN [DISTINCT] name, … ORDER BY … OFFSET … LIMIT …
	group := Projection{Pos: pos, GroupBy: pr.GroupBy}
	final := Projection{Pos: pos, Distinct: pr.Distinct, OrderBy: pr.OrderBy, Skip: pr.Skip, Limit: pr.Limit}
	for _, it := range pr.Items {
		name := it.Alias
		if name == "" {
			if v, ok := it.Expr.(*Variable); ok {
				name = v.Name
			} else {
				name = it.Text
			}
		}
		group.Items = append(group.Items, &ReturnItem{Expr: it.Expr, Alias: name, Text: it.Text})
		final.Items = append(final.Items, &ReturnItem{Expr: &Variable{Pos: it.Expr.Position(), Name: name}, Alias: name, Text: name})
	}
	group.Items = append(group.Items, &ReturnItem{Expr: having, Alias: havingName, Text: havingName})
	sel.Clauses = append(sel.Clauses,
		&With{Pos: havingPos, Projection: group},
		&Filter{Pos: havingPos, Where: &Variable{Pos: havingPos, Name: havingName}},
		&Return{Pos: pos, Projection: final})
	return sel
}

// selectFrom parses FROM's match statements: MATCH or OPTIONAL MATCH
// (each with its WHERE) or OPTIONAL { }, one after another, after an
// optional name of the current graph. (GQL joins several by commas, each
// naming its graph; with one graph, writing them in a row says the same,
// and a comma there would continue the MATCH's pattern.)
func (p *parser) selectFrom() []Clause {
	if p.isKeyword("CURRENT_GRAPH") || p.isKeyword("CURRENT_PROPERTY_GRAPH") {
		p.advance()
	}
	switch {
	case p.isPunct("{"):
		panic(errs.NotSupported("SELECT … FROM { query } is not supported: write the query's statements before a RETURN").At(p.tok.pos.Line, p.tok.pos.Column))
	case p.tok.kind == tIdent && !p.isKeyword("MATCH") && !p.isKeyword("OPTIONAL") && p.matchAhead():
		panic(errs.NotSupported("SELECT … FROM names the current graph only (CURRENT_GRAPH, or no name): a database is one graph").At(p.tok.pos.Line, p.tok.pos.Column))
	case !p.isKeyword("MATCH") && !p.isKeyword("OPTIONAL"):
		p.failUnexpected("MATCH after FROM")
	}
	var out []Clause
	for p.isKeyword("MATCH") || p.isKeyword("OPTIONAL") {
		c := p.clause()
		p.clause1()
		out = append(out, c)
	}
	return out
}

// matchAhead reports whether MATCH follows the current token.
func (p *parser) matchAhead() bool {
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	p.advance()
	return p.isKeyword("MATCH")
}
