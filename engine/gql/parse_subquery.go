package gql

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// This file parses the expressions that contain patterns or clauses
// (pattern predicates, pattern comprehensions, EXISTS subqueries) and the
// other forms with a syntax of their own: reduce and map projections.

// peekPunct reports whether the token after the current one is punct s.
func (p *parser) peekPunct(s string) bool {
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	p.advance()
	return p.isPunct(s)
}

// patternAhead reports whether a pattern with at least one relationship
// starts at the current "(": a node pattern followed by -[, --, <-[ or <--.
// A parenthesised expression such as (a) - (b) is not one.
func (p *parser) patternAhead() (ok bool) {
	if !p.isPunct("(") {
		return false
	}
	save, saveTok, saveEnd, depth, elements := *p.lex, p.tok, p.lastEnd, p.depth, p.elements
	defer func() {
		if r := recover(); r != nil {
			if _, isSyntax := r.(*errs.Error); !isSyntax {
				panic(r)
			}
			ok = false
		}
		*p.lex, p.tok, p.lastEnd, p.depth, p.elements = save, saveTok, saveEnd, depth, elements
	}()
	p.nodePattern()
	if p.groupAhead() { // (a)((x)-[r]->(y)){m,n}…: a quantified group
		return true
	}
	if p.isPunct("<") {
		p.advance()
	}
	if !p.isPunct("-") {
		return false
	}
	p.advance()
	return p.isPunct("[") || p.isPunct("-")
}

// namedPatternAhead reports whether v = (…)-… starts here: a named path
// in a pattern comprehension rather than a comparison.
func (p *parser) namedPatternAhead() bool {
	if p.tok.kind != tIdent {
		return false
	}
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	p.advance()
	if !p.isPunct("=") {
		return false
	}
	p.advance()
	return p.patternAhead()
}

// existsSubquery parses EXISTS { [MATCH] pattern [WHERE pred] } and
// EXISTS { query }.
func (p *parser) existsSubquery() Expr {
	e := &Exists{Pos: p.tok.pos}
	p.advance()
	p.expectPunct("{")
	p.enter()
	defer p.leave()
	if p.isPunct("(") || p.tok.kind != tIdent {
		e.Pattern = p.pattern()
		if p.isKeyword("WHERE") {
			p.advance()
			e.Where = p.expr()
		}
	} else {
		q := p.query()
		p.expectPunct("}")
		if m, ok := q.Parts[0].Clauses[0].(*Match); ok && len(q.Parts) == 1 && len(q.Parts[0].Clauses) == 1 && !m.Optional {
			e.Pattern, e.Where = m.Pattern, m.Where
			return e
		}
		// A whole query: the subquery machinery of COUNT and COLLECT.
		return &Subquery{Pos: e.Pos, Kind: SubqueryExists, Query: q}
	}
	p.expectPunct("}")
	return e
}

// patternComprehension parses [[v =] pattern [WHERE pred] | proj] after "[".
func (p *parser) patternComprehension(pos Pos) Expr {
	p.enter()
	defer p.leave()
	pc := &PatternComprehension{Pos: pos, Part: p.patternPart()}
	if p.isKeyword("WHERE") {
		p.advance()
		pc.Where = p.barEnding(pos.Offset)
	}
	p.expectPunct("|")
	pc.Proj = p.expr()
	p.expectPunct("]")
	return pc
}

// reduceRest parses Acc = Init, Var IN List | Expr) after "reduce(", its
// bracket at offset open.
func (p *parser) reduceRest(pos Pos, open int) Expr {
	p.enter()
	defer p.leave()
	r := &Reduce{Pos: pos, Acc: p.ident("an accumulator variable")}
	p.expectPunct("=")
	r.Init = p.expr()
	p.expectPunct(",")
	r.Var = p.ident("a variable")
	p.expectKeyword("IN")
	r.List = p.barEnding(open)
	p.expectPunct("|")
	r.Expr = p.expr()
	p.expectPunct(")")
	return r
}

// mapProjection parses {.key, key: expr, .*, var} after a variable.
func (p *parser) mapProjection(x *Variable) Expr {
	m := &MapProjection{Pos: x.Pos, X: x}
	p.expectPunct("{")
	p.enter()
	defer p.leave()
	for !p.isPunct("}") {
		switch {
		case p.isPunct("."):
			p.advance()
			if p.isPunct("*") {
				p.advance()
				m.Items = append(m.Items, MapProjItem{Kind: MapProjAll})
				break
			}
			m.Items = append(m.Items, MapProjItem{Kind: MapProjProperty, Key: p.ident("a property name")})
		default:
			vpos := p.tok.pos
			name := p.ident("a map projection item")
			if p.isPunct(":") {
				p.advance()
				m.Items = append(m.Items, MapProjItem{Kind: MapProjLiteral, Key: name, Value: p.expr()})
			} else {
				m.Items = append(m.Items, MapProjItem{Kind: MapProjVariable, Key: name, Value: &Variable{Pos: vpos, Name: name}})
			}
		}
		if !p.isPunct(",") {
			break
		}
		p.advance()
	}
	p.expectPunct("}")
	return m
}

// ExprString renders an expression in canonical form (for plans and
// messages).
func ExprString(e Expr) string {
	var sb strings.Builder
	formatExpr(&sb, e)
	return sb.String()
}
