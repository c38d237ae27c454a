package gql

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// This file parses GQL's linear statements (ISO/IEC 39075 §14): FILTER,
// LET, FOR, NEXT, INSERT (parse_insert.go), OPTIONAL { }, RETURN … GROUP
// BY, ORDER BY and OFFSET/LIMIT standing alone, and SELECT
// (parse_select.go). Their words are soft keywords: they mean a statement
// only where a clause starts, and stay names (of variables, properties,
// labels) everywhere else, as they were before.

// gqlStatement parses the statement that starts at the current word, or
// returns nil when the word starts none of them.
func (p *parser) gqlStatement(pos Pos) Clause {
	switch strings.ToUpper(p.tok.text) {
	case "FILTER":
		p.advance()
		if p.isKeyword("WHERE") {
			p.advance()
		}
		return &Filter{Pos: pos, Where: p.expr()}
	case "LET":
		p.advance()
		return p.let(pos)
	case "FOR":
		p.advance()
		return p.forStatement(pos)
	case "NEXT":
		p.advance()
		return p.next(pos)
	case "INSERT":
		p.advance()
		return p.insert(pos)
	case "ORDER", "OFFSET", "SKIP", "LIMIT":
		return p.pageStatement(pos)
	case "SELECT":
		p.advance()
		return p.selectStatement(pos)
	}
	return nil
}

// pageStatement parses GQL's ORDER BY and page statement (§14.9):
// [ORDER BY keys] [OFFSET|SKIP n] [LIMIT m] standing alone, as WITH *
// with the same tail. (After RETURN and WITH the projection reads these
// itself; here they follow MATCH, FILTER, LET, FOR, UNWIND or a WITH's
// WHERE.)
func (p *parser) pageStatement(pos Pos) Clause {
	pr := Projection{Pos: pos, Star: true}
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
		if pr.Skip == nil && (p.isKeyword("OFFSET") || p.isKeyword("SKIP")) {
			p.advance()
			pr.Skip = p.expr()
		}
	}
	return &With{Pos: pos, Projection: pr}
}

// sortItems parses the keys of ORDER BY.
func (p *parser) sortItems() []*SortItem {
	var items []*SortItem
	for {
		start := p.tok.pos
		si := &SortItem{Pos: start, Expr: p.expr()}
		si.Text = strings.TrimSpace(p.src[start.Offset:p.lastEnd])
		switch {
		case p.isKeyword("DESC") || p.isKeyword("DESCENDING"):
			si.Desc = true
			p.advance()
		case p.isKeyword("ASC") || p.isKeyword("ASCENDING"):
			p.advance()
		}
		items = append(items, si)
		if !p.isPunct(",") {
			return items
		}
		p.advance()
	}
}

// let parses x = e [, y = e] after LET.
func (p *parser) let(pos Pos) *Let {
	l := &Let{Pos: pos}
	for {
		it := &LetItem{Pos: p.tok.pos}
		it.Name = p.ident("a variable name")
		p.expectPunct("=")
		it.Expr = p.expr()
		l.Items = append(l.Items, it)
		if !p.isPunct(",") {
			return l
		}
		p.advance()
	}
}

// forStatement parses x IN list [WITH ORDINALITY i | WITH OFFSET i]
// after FOR. A WITH after the list is FOR's own only when ORDINALITY or
// OFFSET and a name follow it that cannot go on a WITH clause (FOR x IN l
// WITH offset AS o RETURN … keeps its WITH clause).
func (p *parser) forStatement(pos Pos) *For {
	f := &For{Pos: pos, Var: p.ident("a variable name")}
	p.expectKeyword("IN")
	f.Expr = p.expr()
	if !p.isKeyword("WITH") || !p.ordinalityAhead() {
		return f
	}
	p.advance()
	f.Ordinality = p.isKeyword("ORDINALITY")
	p.advance()
	at := p.tok.pos
	f.Index = p.ident("a variable name")
	if f.Index == f.Var {
		panic(errAt(at, "FOR binds %s twice: its element and its position need two names", f.Var))
	}
	return f
}

// ordinalityAhead reports whether WITH ORDINALITY name or WITH OFFSET
// name starts at the current WITH.
func (p *parser) ordinalityAhead() bool {
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	p.advance()
	if !p.isKeyword("ORDINALITY") && !p.isKeyword("OFFSET") {
		return false
	}
	p.advance()
	if p.tok.kind != tIdent {
		return false
	}
	return p.tok.quoted || !clauseWords[strings.ToUpper(p.tok.text)]
}

// clauseWords are the words that may follow a WITH clause's last item:
// a name written there is a new clause, not FOR's position variable.
var clauseWords = map[string]bool{"AS": true, "MATCH": true, "OPTIONAL": true, "RETURN": true, "WITH": true,
	"UNWIND": true, "CREATE": true, "MERGE": true, "SET": true, "DELETE": true, "DETACH": true, "REMOVE": true,
	"CALL": true, "UNION": true, "ORDER": true, "SKIP": true, "LIMIT": true, "OFFSET": true, "WHERE": true,
	"FILTER": true, "LET": true, "FOR": true, "NEXT": true, "INSERT": true, "GROUP": true}

// nextClause marks NEXT [YIELD items] until compose folds it into the
// clauses around it; it never leaves the parser.
type nextClause struct {
	Pos   Pos
	Yield []*ReturnItem
}

func (c *nextClause) Position() Pos { return c.Pos }

// next parses [YIELD a [AS b], …] after NEXT.
func (p *parser) next(pos Pos) Clause {
	n := &nextClause{Pos: pos}
	if !p.isKeyword("YIELD") {
		return n
	}
	p.advance()
	for {
		vpos := p.tok.pos
		name := p.ident("a column name")
		it := &ReturnItem{Expr: &Variable{Pos: vpos, Name: name}, Text: name}
		if p.isKeyword("AS") {
			p.advance()
			it.Alias = p.ident("an alias")
		}
		n.Yield = append(n.Yield, it)
		if !p.isPunct(",") {
			return n
		}
		p.advance()
	}
}

// compose applies NEXT, GQL's linear composition: the RETURN before it
// becomes a WITH, so its columns are the working table of what follows
// (aggregates, DISTINCT, ORDER BY, OFFSET and LIMIT included); NEXT
// YIELD keeps the columns it names.
func (p *parser) compose(cs []Clause) []Clause {
	out := cs[:0:0]
	for i, c := range cs {
		if sel, ok := c.(*selectClause); ok {
			out = append(out, sel.Clauses...)
			continue
		}
		n, ok := c.(*nextClause)
		if !ok {
			out = append(out, c)
			continue
		}
		var ret *Return
		if len(out) > 0 {
			ret, _ = out[len(out)-1].(*Return)
		}
		if ret == nil {
			panic(errAt(n.Pos, "NEXT must follow a RETURN: the statement before it gives the next one its rows"))
		}
		if i == len(cs)-1 {
			panic(errAt(n.Pos, "NEXT must be followed by a statement"))
		}
		for _, it := range ret.Projection.Items {
			if _, isVar := it.Expr.(*Variable); !isVar && it.Alias == "" {
				panic(errAt(it.Expr.Position(), "%s must be aliased (use AS) to be a column after NEXT", it.Text))
			}
		}
		w := &With{Pos: ret.Pos, Projection: ret.Projection}
		out[len(out)-1] = w
		if p.composed == nil {
			p.composed = map[Clause]Pos{}
		}
		p.composed[w] = n.Pos
		if len(n.Yield) > 0 {
			out = append(out, &With{Pos: n.Pos, Projection: Projection{Pos: n.Pos, Items: n.Yield}})
		}
	}
	return out
}

// refuseNextInUnion refuses NEXT in a query of several UNION parts: NEXT
// composes whole queries (UNION binds tighter), which is not planned.
func (p *parser) refuseNextInUnion(q *Query) {
	if len(q.Parts) < 2 || len(p.composed) == 0 {
		return
	}
	for _, part := range q.Parts {
		for _, c := range part.Clauses {
			if pos, ok := p.composed[c]; ok {
				panic(errs.NotSupported("NEXT in a query with UNION is not supported: put the UNION in a CALL { } subquery").At(pos.Line, pos.Column))
			}
		}
	}
}

// optionalBlock parses { statements }, ( statements ) or MATCH { … }
// after OPTIONAL; nil (nothing consumed) when OPTIONAL MATCH pattern
// follows instead.
func (p *parser) optionalBlock(pos Pos) Clause {
	closer := ""
	switch {
	case p.isPunct("{"):
		closer = "}"
	case p.isPunct("("):
		closer = ")"
	case p.isKeyword("MATCH") && p.peekPunct("{"):
		p.advance()
		closer = "}"
	default:
		return nil
	}
	p.advance()
	p.enter()
	defer p.leave()
	b := &OptionalBlock{Pos: pos}
	for !p.isPunct(closer) {
		at := p.tok.pos
		c := p.clause()
		switch c.(type) {
		case nil:
			p.failUnexpected(`a MATCH, FILTER, LET or FOR statement or "` + closer + `"`)
		case *nextClause, *selectClause:
			panic(errAt(at, "OPTIONAL { } holds match statements, not NEXT or SELECT"))
		}
		p.clause1()
		b.Clauses = append(b.Clauses, c)
	}
	if len(b.Clauses) == 0 {
		p.failUnexpected("a MATCH statement")
	}
	p.advance()
	return b
}

// groupBy parses GROUP BY key, … after a projection's items.
func (p *parser) groupBy() []*GroupKey {
	if !p.isKeyword("GROUP") {
		return nil
	}
	p.advance()
	p.expectKeyword("BY")
	var keys []*GroupKey
	for {
		start := p.tok.pos
		k := &GroupKey{Pos: start, Expr: p.expr()}
		k.Text = strings.TrimSpace(p.src[start.Offset:p.lastEnd])
		keys = append(keys, k)
		if !p.isPunct(",") {
			return keys
		}
		p.advance()
	}
}
