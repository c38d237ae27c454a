package gql

import (
	"slices"
	"strings"
)

// This file parses label expressions: GQL's |, &, !, % and parentheses
// after : or IS in node and relationship patterns, the predicates x:expr
// and x IS [NOT] LABELED expr, and Cypher's conjunction :A:B. IS and
// LABELED are recognised by their place, not reserved: a variable, label
// or property named IS or LABELED still parses as before.

// labelParser reads one label expression; bar reports whether the current
// token is a "|" joining labels (in an expression a comprehension's own
// bar may follow, see parser.labelBar; in a pattern the brackets delimit).
type labelParser struct {
	p    *parser
	what string // what a name is, for errors: "a label name", "a relationship type"
	bar  func() bool
}

const mixedColon = "a label expression cannot mix : between labels with |, &, ! or %: write :A&B (or :A:B) for all of the labels, :A|B for one of them"

// labelIS reports whether the current token is IS written for : in a
// pattern, that is the word IS followed by the start of a label
// expression, so that (IS), (IS:A) and (IS {k: 1}) still name a variable IS.
func (p *parser) labelIS() bool {
	if !p.isKeyword("IS") {
		return false
	}
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	p.advance()
	ok := p.tok.kind == tIdent || p.isPunct("!") || p.isPunct("%") || p.isPunct("(")
	*p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd
	return ok
}

// nodeLabels parses a node pattern's labels from its : or IS: a plain
// conjunction as names (the form every plan knows), anything else as an
// expression.
func (p *parser) nodeLabels() ([]string, *LabelExpr) {
	lp := &labelParser{p: p, what: "a label name", bar: func() bool { return p.isPunct("|") }}
	e := lp.spec(false)
	if names, ok := e.names(LabelAnd); ok {
		return names, nil
	}
	if p.labelAnd {
		panic(errAt(e.Pos, "a change pattern's labels are joined by : or & only"))
	}
	return nil, e
}

// relTypes parses a relationship pattern's types from its : or IS: a plain
// disjunction :R|S as names, anything else as an expression.
func (p *parser) relTypes() ([]string, *LabelExpr) {
	lp := &labelParser{p: p, what: "a relationship type", bar: func() bool { return p.isPunct("|") }}
	e := lp.spec(true)
	if names, ok := e.names(LabelOr); ok {
		return names, nil
	}
	if p.labelAnd {
		panic(errAt(e.Pos, "a change pattern's relationship types are joined by | only"))
	}
	return nil, e
}

// setLabels parses the labels SET n:A:B adds and REMOVE n:A:B removes:
// names, each after a colon. A label expression says which labels to
// match, not which to write, so one is refused where it starts.
func (p *parser) setLabels() []string {
	const refused = "SET and REMOVE take labels joined by : (n:A:B), not a label expression"
	var out []string
	for p.isPunct(":") {
		p.advance()
		if p.isPunct("!") || p.isPunct("%") || p.isPunct("(") {
			p.fail(refused)
		}
		out = append(out, p.ident("a label name"))
	}
	if p.isPunct("|") || p.isPunct("&") {
		p.fail(refused)
	}
	return out
}

// labelPredicate parses the label expression of x:expr after x.
func (p *parser) labelPredicate(pos Pos, x Expr) Expr {
	lp := &labelParser{p: p, what: "a label name", bar: p.labelBar}
	return labelTestOf(pos, x, lp.spec(false))
}

// isLabeled parses x IS [NOT] LABELED expr from LABELED on.
func (p *parser) isLabeled(pos Pos, x Expr, not bool) Expr {
	p.advance() // LABELED
	if p.tok.kind == tIdent && !p.tok.quoted && slices.Contains(keywords, strings.ToUpper(p.tok.text)) {
		// IS LABELED RETURN …: the expression is missing, not a label
		// named RETURN (which a quoted `RETURN` still names).
		p.failUnexpected("a label expression after IS LABELED")
	}
	lp := &labelParser{p: p, what: "a label name", bar: p.labelBar}
	t := labelTestOf(pos, x, lp.or())
	if not {
		return &Unary{Pos: pos, Op: OpNot, X: t}
	}
	return t
}

// labelTestOf keeps the forms LabelTest had before expressions (every
// label, one of them) as names.
func labelTestOf(pos Pos, x Expr, e *LabelExpr) *LabelTest {
	if names, ok := e.names(LabelAnd); ok {
		return &LabelTest{Pos: pos, X: x, Labels: names}
	}
	if names, ok := e.names(LabelOr); ok {
		return &LabelTest{Pos: pos, X: x, Labels: names, Any: true}
	}
	return &LabelTest{Pos: pos, X: x, Expr: e}
}

// spec parses : or IS and the expression after it, with Cypher's :A:B
// conjunction after a colon. As in Neo4j 5, the colon conjunction joins
// names only: :A:B|C is an error, not a guess at precedence. A
// relationship has one type, so :R:S is refused there.
func (lp *labelParser) spec(rel bool) *LabelExpr {
	p := lp.p
	pos := p.tok.pos
	colon := p.isPunct(":")
	p.advance() // : or IS
	e := lp.or()
	if !colon || !p.isPunct(":") {
		return e
	}
	and := &LabelExpr{Pos: pos, Kind: LabelAnd}
	add := func(x *LabelExpr, at Pos) {
		switch {
		case x.Kind == LabelName:
			and.Args = append(and.Args, x)
		case p.labelAnd && x.Kind == LabelAnd && isNames(x.Args):
			and.Args = append(and.Args, x.Args...)
		default:
			panic(errAt(at, "%s", mixedColon))
		}
	}
	for p.isPunct(":") {
		at := p.tok.pos
		if rel {
			p.fail("a relationship has one type: write :R|S for either type, not :R:S")
		}
		add(e, at)
		p.advance()
		if p.labelAnd {
			e = lp.or()
			continue
		}
		// After a colon of :A:B a name alone: the error points at the
		// first symbol that mixes the forms.
		if e = lp.unary(); e.Kind != LabelName {
			panic(errAt(e.Pos, "%s", mixedColon))
		}
		if p.isPunct("&") || lp.bar() {
			p.fail("%s", mixedColon)
		}
	}
	add(e, pos)
	return and
}

func isNames(xs []*LabelExpr) bool {
	for _, x := range xs {
		if x.Kind != LabelName {
			return false
		}
	}
	return true
}

// or parses a disjunction (|, lowest precedence); Cypher's :A|:B keeps
// its colon after the bar.
func (lp *labelParser) or() *LabelExpr {
	p := lp.p
	pos := p.tok.pos
	first := lp.and()
	if !lp.bar() {
		return first
	}
	e := &LabelExpr{Pos: pos, Kind: LabelOr, Args: []*LabelExpr{first}}
	for lp.bar() {
		p.advance()
		if p.isPunct(":") {
			p.advance()
		}
		e.Args = append(e.Args, lp.and())
	}
	return e
}

// and parses a conjunction (&).
func (lp *labelParser) and() *LabelExpr {
	p := lp.p
	pos := p.tok.pos
	first := lp.unary()
	if !p.isPunct("&") {
		return first
	}
	e := &LabelExpr{Pos: pos, Kind: LabelAnd, Args: []*LabelExpr{first}}
	for p.isPunct("&") {
		p.advance()
		e.Args = append(e.Args, lp.unary())
	}
	return e
}

// unary parses !x, %, (x) and a name. Negation and parentheses nest, and
// count against the parser's nesting limit.
func (lp *labelParser) unary() *LabelExpr {
	p := lp.p
	pos := p.tok.pos
	switch {
	case p.isPunct("!"):
		p.advance()
		p.enter()
		defer p.leave()
		return &LabelExpr{Pos: pos, Kind: LabelNot, Args: []*LabelExpr{lp.unary()}}
	case p.isPunct("%"):
		p.advance()
		return &LabelExpr{Pos: pos, Kind: LabelAny}
	case p.isPunct("("):
		p.advance()
		p.enter()
		defer p.leave()
		// Inside parentheses a bar cannot be a comprehension's.
		saveBar := lp.bar
		lp.bar = func() bool { return p.isPunct("|") }
		e := lp.or()
		lp.bar = saveBar
		p.expectPunct(")")
		return e
	}
	return &LabelExpr{Pos: pos, Kind: LabelName, Name: p.ident(lp.what)}
}
