package gql

import (
	"strconv"
	"strings"
)

// expr parses an expression. Precedence, loosest first: OR, XOR, AND, NOT,
// comparison chains, string/list/null predicates, + -, * / %, ^, unary
// + -, postfix (property, index, slice, label test), atoms — as in the
// openCypher grammar.
func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	return p.orExpr()
}

// The loops below chain operators into left-deep trees: each link is a
// level of the tree (link), left again when the chain ends.

func (p *parser) orExpr() Expr {
	outer := p.mark()
	l := p.xorExpr()
	h := p.height(outer)
	n := 0
	for ; p.isKeyword("OR"); n++ {
		pos := p.tok.pos
		p.advance()
		p.link(h)
		l = &Binary{Pos: pos, Op: OpOr, L: l, R: p.xorExpr()}
	}
	p.leaveN(n)
	return l
}

func (p *parser) xorExpr() Expr {
	outer := p.mark()
	l := p.andExpr()
	h := p.height(outer)
	n := 0
	for ; p.isKeyword("XOR"); n++ {
		pos := p.tok.pos
		p.advance()
		p.link(h)
		l = &Binary{Pos: pos, Op: OpXor, L: l, R: p.andExpr()}
	}
	p.leaveN(n)
	return l
}

func (p *parser) andExpr() Expr {
	outer := p.mark()
	l := p.notExpr()
	h := p.height(outer)
	n := 0
	for ; p.isKeyword("AND"); n++ {
		pos := p.tok.pos
		p.advance()
		p.link(h)
		l = &Binary{Pos: pos, Op: OpAnd, L: l, R: p.notExpr()}
	}
	p.leaveN(n)
	return l
}

func (p *parser) notExpr() Expr {
	if p.isKeyword("NOT") {
		pos := p.tok.pos
		p.advance()
		p.enter()
		defer p.leave()
		return &Unary{Pos: pos, Op: OpNot, X: p.notExpr()}
	}
	return p.comparison()
}

var compareOps = map[string]Op{"=": OpEq, "<>": OpNe, "<": OpLt, "<=": OpLe, ">": OpGt, ">=": OpGe}

func (p *parser) comparison() Expr {
	outer := p.mark()
	first := p.predicate()
	h := p.height(outer)
	var c *Comparison
	for p.tok.kind == tPunct {
		op, ok := compareOps[p.tok.text]
		if !ok {
			break
		}
		if c == nil {
			c = &Comparison{Pos: first.Position(), Operands: []Expr{first}}
		}
		p.advance()
		p.link(h) // the binder makes a chain of n comparisons n-1 ANDs deep
		defer p.leave()
		c.Ops = append(c.Ops, op)
		c.Operands = append(c.Operands, p.predicate())
	}
	if c == nil {
		return first
	}
	return c
}

// predicate parses STARTS WITH, ENDS WITH, CONTAINS, =~, IN, IS [NOT] NULL.
func (p *parser) predicate() Expr {
	outer := p.mark()
	l := p.addSub()
	h := p.height(outer)
	n := 0
	defer func() { p.leaveN(n) }()
	for ; p.predicateAhead(); n++ {
		pos := p.tok.pos
		p.link(h)
		switch {
		case p.isKeyword("STARTS"):
			p.advance()
			p.expectKeyword("WITH")
			l = &Binary{Pos: pos, Op: OpStartsWith, L: l, R: p.addSub()}
		case p.isKeyword("ENDS"):
			p.advance()
			p.expectKeyword("WITH")
			l = &Binary{Pos: pos, Op: OpEndsWith, L: l, R: p.addSub()}
		case p.isKeyword("CONTAINS"):
			p.advance()
			l = &Binary{Pos: pos, Op: OpContains, L: l, R: p.addSub()}
		case p.isPunct("=~"):
			p.advance()
			l = &Binary{Pos: pos, Op: OpRegex, L: l, R: p.addSub()}
		case p.isKeyword("IN"):
			p.advance()
			l = &Binary{Pos: pos, Op: OpIn, L: l, R: p.addSub()}
		case p.isPunct("::"):
			l = p.colonsTyped(pos, l)
		case p.isKeyword("IS") && p.typedAfterIs():
			l = p.isTyped(pos, l)
		case p.isKeyword("IS"):
			p.advance()
			not := false
			if p.isKeyword("NOT") {
				not = true
				p.advance()
			}
			if p.isKeyword("LABELED") {
				l = p.isLabeled(pos, l, not)
				continue
			}
			p.expectKeyword("NULL")
			l = &IsNull{Pos: pos, X: l, Not: not}
		}
	}
	return l
}

// predicateAhead reports whether a predicate operator follows.
func (p *parser) predicateAhead() bool {
	return p.isKeyword("STARTS") || p.isKeyword("ENDS") || p.isKeyword("CONTAINS") || p.isPunct("=~") ||
		p.isKeyword("IN") || p.isKeyword("IS") || p.isPunct("::")
}

func (p *parser) addSub() Expr {
	outer := p.mark()
	l := p.mulDiv()
	h := p.height(outer)
	n := 0
	for ; p.isPunct("+") || p.isPunct("-"); n++ {
		pos, op := p.tok.pos, OpAdd
		if p.tok.text == "-" {
			op = OpSub
		}
		p.advance()
		p.link(h)
		l = &Binary{Pos: pos, Op: op, L: l, R: p.mulDiv()}
	}
	p.leaveN(n)
	return l
}

var mulOps = map[string]Op{"*": OpMul, "/": OpDiv, "%": OpMod}

func (p *parser) mulDiv() Expr {
	outer := p.mark()
	l := p.power()
	h := p.height(outer)
	n := 0
	for ; p.isPunct("*") || p.isPunct("/") || p.isPunct("%"); n++ {
		pos := p.tok.pos
		op := mulOps[p.tok.text]
		p.advance()
		p.link(h)
		l = &Binary{Pos: pos, Op: op, L: l, R: p.power()}
	}
	p.leaveN(n)
	return l
}

func (p *parser) power() Expr {
	outer := p.mark()
	l := p.unary()
	h := p.height(outer)
	n := 0
	for ; p.isPunct("^"); n++ {
		pos := p.tok.pos
		p.advance()
		p.link(h)
		l = &Binary{Pos: pos, Op: OpPow, L: l, R: p.unary()}
	}
	p.leaveN(n)
	return l
}

func (p *parser) unary() Expr {
	if p.isPunct("-") || p.isPunct("+") {
		pos, neg := p.tok.pos, p.tok.text == "-"
		p.advance()
		if neg && p.tok.kind == tInt {
			// Fold the sign into the literal so that the most negative
			// integer, whose magnitude does not fit, can be written
			// (-9223372036854775808, -0x8000000000000000, -0o1000000000000000000000).
			v := p.signedInt(p.tok, true)
			p.advance()
			return p.postfix(&Literal{Pos: pos, Value: v}, 0)
		}
		p.enter()
		defer p.leave()
		x := p.unary()
		if !neg {
			return &Unary{Pos: pos, Op: OpPlus, X: x}
		}
		return &Unary{Pos: pos, Op: OpNeg, X: x}
	}
	outer := p.mark()
	x := p.atom()
	return p.postfix(x, p.height(outer))
}

func isDecimal(s string) bool {
	return len(s) < 2 || (s[1] != 'x' && s[1] != 'X' && s[1] != 'o' && s[1] != 'O')
}

// postfix parses .key, [i], [a..b] and :Label after an atom of height h.
func (p *parser) postfix(x Expr, h int) Expr {
	n := 0
	defer func() { p.leaveN(n) }()
	for ; p.isPunct(".") || p.isPunct("[") || p.isPunct(":"); n++ {
		pos := p.tok.pos
		p.link(h)
		switch {
		case p.isPunct("."):
			p.advance()
			x = &PropertyAccess{Pos: pos, X: x, Key: p.ident("a property name")}
		case p.isPunct("["):
			p.advance()
			if p.isPunct("..") {
				p.advance()
				s := &Slice{Pos: pos, X: x}
				if !p.isPunct("]") {
					s.To = p.expr()
				}
				p.expectPunct("]")
				x = s
				continue
			}
			i := p.expr()
			if p.isPunct("..") {
				p.advance()
				s := &Slice{Pos: pos, X: x, From: i}
				if !p.isPunct("]") {
					s.To = p.expr()
				}
				p.expectPunct("]")
				x = s
				continue
			}
			p.expectPunct("]")
			x = &Index{Pos: pos, X: x, I: i}
		case p.isPunct(":"):
			x = p.labelTest(pos, x)
		}
	}
	return x
}

// atom parses literals, parameters, variables, calls and bracketed forms.
func (p *parser) atom() Expr {
	if p.barEnds { // a bracketed form inside a comprehension's predicate
		saveLast, saveOpen := p.lastBar, p.open
		p.barEnds = false
		defer func() { p.barEnds, p.lastBar, p.open = true, saveLast, saveOpen }()
	}
	t := p.tok
	switch t.kind {
	case tInt:
		p.advance()
		return &Literal{Pos: t.pos, Value: p.intLiteral(t)}
	case tFloat:
		p.advance()
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			panic(errAt(t.pos, "float literal %s is out of range", t.text))
		}
		return &Literal{Pos: t.pos, Value: f}
	case tString:
		p.advance()
		return &Literal{Pos: t.pos, Value: t.str}
	case tParam:
		p.advance()
		return &Param{Pos: t.pos, Name: t.text}
	case tPunct:
		switch t.text {
		case "(":
			if p.patternAhead() {
				part := p.path(t.pos)
				return &PatternExpr{Pos: t.pos, Part: part}
			}
			p.advance()
			e := p.expr()
			p.expectPunct(")")
			return e
		case "[":
			return p.listOrComprehension()
		case "{":
			return p.mapLiteral()
		}
	case tIdent:
		if !t.quoted {
			switch strings.ToUpper(t.text) {
			case "TRUE":
				p.advance()
				return &Literal{Pos: t.pos, Value: true}
			case "FALSE":
				p.advance()
				return &Literal{Pos: t.pos, Value: false}
			case "NULL":
				p.advance()
				return &Literal{Pos: t.pos, Value: nil}
			case "CASE":
				return p.caseExpr()
			case "EXISTS":
				if p.peekPunct("{") {
					return p.existsSubquery()
				}
			case SubqueryCount, SubqueryCollect:
				if p.peekPunct("{") {
					return p.subqueryExpr(strings.ToUpper(t.text))
				}
			}
			if clauseKeywords[strings.ToUpper(t.text)] {
				p.failUnexpected("an expression")
			}
		}
		return p.nameOrCall()
	}
	p.failUnexpected("an expression")
	return nil
}

// clauseKeywords cannot be variable names without backquotes: reading
// one where an expression should start means the expression is missing.
var clauseKeywords = map[string]bool{"MATCH": true, "OPTIONAL": true, "WHERE": true, "RETURN": true, "WITH": true,
	"CREATE": true, "MERGE": true, "DELETE": true, "DETACH": true, "SET": true, "REMOVE": true, "UNWIND": true,
	"ORDER": true, "SKIP": true, "LIMIT": true, "UNION": true, "CALL": true, "YIELD": true}

func (p *parser) intLiteral(t token) int64 { return p.signedInt(t, false) }

// signedInt reads an integer literal token in any base, negated when neg.
func (p *parser) signedInt(t token, neg bool) int64 {
	text, base, sign := t.text, 10, ""
	if neg {
		sign = "-"
	}
	if !isDecimal(text) {
		base = 16
		if text[1] == 'o' || text[1] == 'O' {
			base = 8
		}
		text = text[2:]
	}
	v, err := strconv.ParseInt(sign+text, base, 64)
	if err != nil {
		panic(errAt(t.pos, "integer literal %s%s is out of range", sign, t.text))
	}
	return v
}

// nameOrCall parses a variable, a function call (possibly namespaced) or
// a quantifier.
func (p *parser) nameOrCall() Expr {
	pos := p.tok.pos
	name := p.ident("a name")
	if p.isPunct("(") {
		return p.callRest(pos, nil, name)
	}
	if p.isPunct("{") {
		return p.mapProjection(&Variable{Pos: pos, Name: name})
	}
	if p.isPunct(".") {
		// ns.fn( … ) or a property access: look ahead for the call.
		save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
		var parts []string
		for p.isPunct(".") {
			p.advance()
			if p.tok.kind != tIdent {
				break
			}
			parts = append(parts, p.tok.text)
			p.advance()
		}
		if p.isPunct("(") && len(parts) > 0 {
			ns := append([]string{name}, parts[:len(parts)-1]...)
			return p.callRest(pos, ns, parts[len(parts)-1])
		}
		*p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd
	}
	return &Variable{Pos: pos, Name: name}
}

func (p *parser) callRest(pos Pos, ns []string, name string) Expr {
	open := p.expectPunct("(")
	lower := strings.ToLower(name)
	if ns == nil && (lower == "any" || lower == "all" || lower == "none" || lower == "single") && p.tok.kind == tIdent {
		save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
		v := p.tok.text
		p.advance()
		if p.isKeyword("IN") {
			p.advance()
			q := &Quantifier{Pos: pos, Kind: lower, Var: v, List: p.expr()}
			p.expectKeyword("WHERE")
			q.Pred = p.expr()
			p.expectPunct(")")
			return q
		}
		*p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd
	}
	if ns == nil && lower == "reduce" {
		return p.reduceRest(pos, open.Offset)
	}
	if ns == nil && lower == "cast" {
		return p.castRest(pos)
	}
	f := &FuncCall{Pos: pos, Namespace: ns, Name: name}
	if p.isPunct("*") {
		p.advance()
		f.Star = true
		p.expectPunct(")")
		return f
	}
	if p.isKeyword("DISTINCT") {
		p.advance()
		f.Distinct = true
	}
	if !p.isPunct(")") {
		f.Args = p.exprList()
	}
	p.expectPunct(")")
	return f
}

func (p *parser) listOrComprehension() Expr {
	pos := p.expectPunct("[")
	if p.patternAhead() || p.namedPatternAhead() {
		return p.patternComprehension(pos)
	}
	if p.tok.kind == tIdent {
		save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
		v := p.tok.text
		p.advance()
		if p.isKeyword("IN") {
			p.advance()
			lc := &ListComprehension{Pos: pos, Var: v, List: p.barEnding(pos.Offset)}
			if p.isKeyword("WHERE") {
				p.advance()
				lc.Pred = p.barEnding(pos.Offset)
			}
			if p.isPunct("|") {
				p.advance()
				lc.Proj = p.expr()
			}
			p.expectPunct("]")
			return lc
		}
		*p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd
	}
	l := &ListLit{Pos: pos}
	if !p.isPunct("]") {
		l.Elems = p.exprList()
	}
	p.expectPunct("]")
	return l
}

func (p *parser) mapLiteral() *MapLit {
	m := &MapLit{Pos: p.expectPunct("{")}
	p.enter()
	defer p.leave()
	for !p.isPunct("}") {
		m.Keys = append(m.Keys, p.ident("a map key"))
		p.expectPunct(":")
		m.Values = append(m.Values, p.expr())
		if !p.isPunct(",") {
			break
		}
		p.advance()
	}
	p.expectPunct("}")
	return m
}

func (p *parser) caseExpr() Expr {
	c := &Case{Pos: p.tok.pos}
	p.advance()
	if !p.isKeyword("WHEN") {
		c.Subject = p.expr()
	}
	for p.isKeyword("WHEN") {
		p.advance()
		c.Whens = append(c.Whens, p.expr())
		p.expectKeyword("THEN")
		c.Thens = append(c.Thens, p.expr())
	}
	if len(c.Whens) == 0 {
		p.failUnexpected("WHEN")
	}
	if p.isKeyword("ELSE") {
		p.advance()
		c.Else = p.expr()
	}
	p.expectKeyword("END")
	return c
}
