package gql

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// Limits on the shape of a statement. Every later stage (binder,
// optimizer, printer, executor) walks the trees the parser builds by
// recursion, and some keep per-variable state per operator; these bounds
// keep every walk far from the goroutine stack's limit and planning
// linear in practice, whatever the text (docs/limits.md).
const (
	// MaxDepth bounds the height of an expression or pattern tree:
	// nesting (parentheses, lists, maps, CASE, NOT, subqueries) and
	// operator chains alike, since `a + b + c` is a left-deep tree in
	// which each operator is a level. A walk of this depth uses well
	// under 10 MB of stack.
	MaxDepth = 1000
	// MaxClauses bounds the clauses of a statement, all UNION arms and
	// subqueries together: each clause adds operators, and operators
	// carry the columns in scope.
	MaxClauses = 1000
	// MaxPatternElements bounds the node and relationship patterns of
	// the reading patterns (MATCH, OPTIONAL MATCH, MERGE, pattern
	// expressions, EXISTS) of a statement: each element binds a column
	// that every later operator of the pattern carries. CREATE patterns
	// are bounded by the text's size only.
	MaxPatternElements = 1000
)

// parser is a recursive-descent parser over a one-token lookahead.
type parser struct {
	lex   *lexer
	src   string
	tok   token
	depth int
	// deepest is the largest depth reached.
	deepest int
	// clauses and elements count what MaxClauses and MaxPatternElements
	// bound; creating is set while a CREATE pattern is read.
	clauses, elements int
	creating          bool
	// lastEnd is the offset just past the last consumed token: the end of
	// an expression's source text.
	lastEnd int
	// tokens counts tokens read, to poll for cancellation now and then.
	tokens int
	// cancelled, when set, reports whether the statement's context ended.
	cancelled func() error
	// barEnds is set while the part of a comprehension that a "|" ends is
	// read (its list or WHERE); every bracketed form inside clears it
	// again (see atom). There a label test takes a "|" as "or" only when
	// the comprehension has another one after it, at offset lastBar (the
	// last "|" before its closing bracket; noBarYet until looked up).
	// open is the offset of the comprehension's opening bracket, and bars
	// remembers the last bar of every bracket a look-ahead passed, so
	// that nested comprehensions are not scanned again (which would make
	// parsing quadratic).
	barEnds bool
	lastBar int
	open    int
	bars    map[int]int
	// labelAnd lets a node pattern join its labels with & as well as :
	// (GQL's label conjunction); set for ParsePattern only.
	labelAnd bool
	// composed maps each WITH that NEXT made of a RETURN to the NEXT's
	// position (parse_statements.go).
	composed map[Clause]Pos
}

const noBarYet = -2

// Parse parses one statement.
func Parse(text string) (st *Statement, err error) { return ParseCancel(text, nil) }

// ParseCancel parses one statement, calling cancelled every few thousand
// tokens and giving up with its error when it returns one (the
// statement's deadline passed).
func ParseCancel(text string, cancelled func() error) (st *Statement, err error) {
	p := &parser{lex: newLexer(text), src: text, cancelled: cancelled}
	defer func() {
		if caught(recover(), &err) {
			st = nil
		}
	}()
	p.advance()
	st = &Statement{}
	st.Use = p.use()
	if p.isKeyword("EXPLAIN") {
		st.Explain = true
		p.advance()
	} else if p.isKeyword("PROFILE") {
		st.Profile = true
		p.advance()
	}
	switch {
	case st.Use != nil && !st.Explain && !st.Profile && (p.tok.kind == tEOF || p.isPunct(";")):
		// USE name alone selects the session's graph.
		st.Graph = &Graph{Kind: GraphUse, Pos: st.Use.Pos, Name: st.Use.Name, NamePos: st.Use.Pos}
		st.Use = nil
	default:
		p.unsupportedStatement()
		st.Graph = p.graphStatement()
		switch {
		case st.Graph != nil && st.Use != nil:
			panic(errAt(st.Graph.Pos, "%s manages graphs and runs on no graph: it cannot follow USE", st.Graph.String()))
		case st.Graph != nil && (st.Explain || st.Profile):
			panic(errAt(st.Graph.Pos, "EXPLAIN and PROFILE apply to queries, not to %s", st.Graph.String()))
		}
	}
	if st.Graph == nil {
		p.statementBody(st)
	}
	for p.isPunct(";") {
		p.advance()
	}
	if p.tok.kind != tEOF {
		p.unsupportedClause()
		p.failUnexpected("end of query")
	}
	st.depth = p.deepest
	return st, nil
}

// statementBody parses what follows the prefixes: a schema, COPY,
// session statement or a query.
func (p *parser) statementBody(st *Statement) {
	p.unsupportedStatement()
	if st.Schema = p.schemaStatement(); st.Schema != nil {
		return
	}
	if st.Copy = p.copyStatement(); st.Copy != nil {
		return
	}
	if st.Session = p.sessionStatement(); st.Session != nil {
		return
	}
	st.Query = p.query()
}

// ParsePattern parses text as one path pattern and nothing else, as
// MATCH reads one: (a:L {k: 'v'})-[r:T]->(b). Its node patterns may
// also join labels with & (GQL's label conjunction: (:A&B) is (:A:B)).
// The change feed's patterns are read with it (engine/changes).
func ParsePattern(text string) (part *PatternPart, err error) {
	p := &parser{lex: newLexer(text), src: text, labelAnd: true}
	defer func() {
		if caught(recover(), &err) {
			part = nil
		}
	}()
	p.advance()
	part = p.path(p.tok.pos)
	if p.tok.kind != tEOF {
		p.failUnexpected("the end of the pattern")
	}
	return part, nil
}

// ParseExpr parses text as one expression and nothing else, as WHERE
// reads one. Row-level security policies' predicates are read with it
// (engine/access/rls.go).
func ParseExpr(text string) (e Expr, err error) {
	p := &parser{lex: newLexer(text), src: text}
	defer func() {
		if caught(recover(), &err) {
			e = nil
		}
	}()
	p.advance()
	e = p.expr()
	if p.tok.kind != tEOF {
		p.failUnexpected("the end of the expression")
	}
	return e, nil
}

// caught turns what a parse panicked with into *err: true when it was a
// parse failure (a syntax error, or the cancellation's error), false when
// nothing panicked. Anything else is a bug and panics on.
func caught(r any, err *error) bool {
	switch e := r.(type) {
	case nil:
		return false
	case *errs.Error:
		*err = e
	case cancelError:
		*err = e.err
	default:
		panic(r)
	}
	return true
}

// cancelError carries the cancellation's error out of the parser.
type cancelError struct{ err error }

// fail aborts parsing with an error at the current token.
func (p *parser) fail(format string, args ...any) {
	panic(errAt(p.tok.pos, format, args...))
}

func (p *parser) failUnexpected(want string) {
	e := errAt(p.tok.pos, "expected %s but found %s", want, p.tok.describe())
	if p.tok.kind == tIdent && !p.tok.quoted {
		e.Suggestion = suggestKeyword(p.tok.text)
	}
	panic(e)
}

// cancelEvery is how many tokens the parser reads between polls of the
// statement's context: a 1 MiB text has at most a few hundred thousand.
const cancelEvery = 1 << 12

func (p *parser) advance() {
	p.lastEnd = p.tok.end
	t, err := p.lex.next()
	if err != nil {
		panic(err)
	}
	p.tok = t
	if p.tokens++; p.tokens%cancelEvery == 0 && p.cancelled != nil {
		if err := p.cancelled(); err != nil {
			panic(cancelError{err})
		}
	}
}

// enter descends one level of the tree being built; leave climbs back.
func (p *parser) enter() {
	p.depth++
	p.deepest = max(p.deepest, p.depth)
	if p.depth > MaxDepth {
		p.fail("expression or pattern nests deeper than %d levels", MaxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// link enters one level for an operator chained onto the tree built so
// far (the new node is the parent of everything before it); the loop
// that chains leaves all its levels at once with leaveN. h is the height
// of the chain's first operand (mark, height): it ends up below every
// link, so ((1+1+1)+1+1) is as deep as its five links and its
// parentheses, though the inner links were left before the outer came.
func (p *parser) link(h int) {
	p.enter()
	if p.depth+h > MaxDepth {
		p.fail("expression or pattern nests deeper than %d levels", MaxDepth)
	}
	p.deepest = max(p.deepest, p.depth+h)
}

// mark starts measuring the height of what is parsed next, a chain's
// first operand; height ends it. outer is the deepest level reached
// before, which height restores.
func (p *parser) mark() (outer int) {
	outer, p.deepest = p.deepest, p.depth
	return outer
}

// height is the levels below the current depth that the parse since
// mark reached.
func (p *parser) height(outer int) int {
	h := p.deepest - p.depth
	p.deepest = max(outer, p.deepest)
	return h
}

func (p *parser) leaveN(n int) { p.depth -= n }

// clause counts a clause against MaxClauses.
func (p *parser) clause1() {
	if p.clauses++; p.clauses > MaxClauses {
		p.fail("the statement has more than %d clauses", MaxClauses)
	}
}

// element counts a node or relationship pattern of a reading pattern
// against MaxPatternElements.
func (p *parser) element() {
	if p.creating {
		return
	}
	if p.elements++; p.elements > MaxPatternElements {
		p.fail("the statement's patterns are longer than %d node and relationship patterns", MaxPatternElements)
	}
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tPunct && p.tok.text == s }

func (p *parser) isKeyword(k string) bool {
	return p.tok.kind == tIdent && !p.tok.quoted && strings.EqualFold(p.tok.text, k)
}

func (p *parser) expectPunct(s string) Pos {
	if !p.isPunct(s) {
		p.failUnexpected(`"` + s + `"`)
	}
	pos := p.tok.pos
	p.advance()
	return pos
}

func (p *parser) expectKeyword(k string) Pos {
	if !p.isKeyword(k) {
		p.failUnexpected(k)
	}
	pos := p.tok.pos
	p.advance()
	return pos
}

// ident reads a name: any identifier, keywords included (Cypher allows
// them as names where a name is expected).
func (p *parser) ident(what string) string {
	if p.tok.kind != tIdent {
		p.failUnexpected(what)
	}
	s := p.tok.text
	p.advance()
	return s
}

// query parses single queries joined by UNION [ALL].
func (p *parser) query() *Query {
	q := &Query{Parts: []*SingleQuery{p.singleQuery()}}
	for p.isKeyword("UNION") {
		p.advance()
		all := false
		if p.isKeyword("ALL") {
			all = true
			p.advance()
		} else if p.isKeyword("DISTINCT") { // GQL's spelling of UNION
			p.advance()
		}
		q.UnionAll = append(q.UnionAll, all)
		q.Parts = append(q.Parts, p.singleQuery())
	}
	p.refuseNextInUnion(q)
	return q
}

func (p *parser) singleQuery() *SingleQuery {
	sq := &SingleQuery{}
	for {
		c := p.clause()
		if c == nil {
			break
		}
		p.clause1()
		sq.Clauses = append(sq.Clauses, c)
	}
	if len(sq.Clauses) == 0 {
		p.failUnexpected("a clause such as MATCH, CREATE or RETURN")
	}
	sq.Clauses = p.compose(sq.Clauses)
	return sq
}

// clause parses one clause, or returns nil when none starts here.
func (p *parser) clause() Clause {
	if p.tok.kind != tIdent || p.tok.quoted {
		return nil
	}
	pos := p.tok.pos
	switch strings.ToUpper(p.tok.text) {
	case "MATCH":
		p.advance()
		return p.matchRest(pos, false)
	case "OPTIONAL":
		p.advance()
		if p.isKeyword("CALL") {
			p.advance()
			return p.callSubquery(pos, true)
		}
		if b := p.optionalBlock(pos); b != nil {
			return b
		}
		p.expectKeyword("MATCH")
		return p.matchRest(pos, true)
	case "CREATE":
		p.advance()
		p.creating = true
		defer func() { p.creating = false }()
		return &Create{Pos: pos, Pattern: p.pattern()}
	case "MERGE":
		p.advance()
		m := &Merge{Pos: pos, Pattern: &Pattern{Parts: []*PatternPart{p.patternPart()}}}
		for p.isKeyword("ON") {
			p.advance()
			switch {
			case p.isKeyword("CREATE"):
				p.advance()
				p.expectKeyword("SET")
				m.OnCreate = append(m.OnCreate, p.setItems()...)
			case p.isKeyword("MATCH"):
				p.advance()
				p.expectKeyword("SET")
				m.OnMatch = append(m.OnMatch, p.setItems()...)
			default:
				p.failUnexpected("CREATE or MATCH after ON")
			}
		}
		return m
	case "SET":
		p.advance()
		return &Set{Pos: pos, Items: p.setItems()}
	case "REMOVE":
		p.advance()
		return &Remove{Pos: pos, Items: p.removeItems()}
	case "DELETE":
		p.advance()
		return &Delete{Pos: pos, Exprs: p.exprList()}
	case "DETACH":
		p.advance()
		p.expectKeyword("DELETE")
		return &Delete{Pos: pos, Detach: true, Exprs: p.exprList()}
	case "UNWIND":
		p.advance()
		e := p.expr()
		p.expectKeyword("AS")
		return &Unwind{Pos: pos, Expr: e, Var: p.ident("a variable name")}
	case "WITH":
		p.advance()
		w := &With{Pos: pos, Projection: p.projection(pos)}
		if p.isKeyword("WHERE") {
			p.advance()
			w.Where = p.expr()
		}
		return w
	case "RETURN":
		p.advance()
		return &Return{Pos: pos, Projection: p.projection(pos)}
	case "CALL":
		p.advance()
		return p.call(pos)
	}
	return p.gqlStatement(pos)
}

func (p *parser) matchRest(pos Pos, optional bool) Clause {
	m := &Match{Pos: pos, Optional: optional, Pattern: p.pattern()}
	m.Hints = p.hints()
	if p.isKeyword("WHERE") {
		p.advance()
		m.Where = p.expr()
	}
	return m
}

func (p *parser) exprList() []Expr {
	out := []Expr{p.expr()}
	for p.isPunct(",") {
		p.advance()
		out = append(out, p.expr())
	}
	return out
}

func (p *parser) setItems() []*SetItem {
	var items []*SetItem
	for {
		pos := p.tok.pos
		var target Expr
		if p.isPunct("(") { // SET (expr).key = value
			p.advance()
			target = p.expr()
			p.expectPunct(")")
			if !p.isPunct(".") {
				p.failUnexpected(`"."`)
			}
		} else {
			target = &Variable{Pos: pos, Name: p.ident("a variable")}
		}
		if p.isPunct(":") {
			items = append(items, &SetItem{Pos: pos, Target: target, Labels: p.labels()})
		} else {
			for p.isPunct(".") {
				p.advance()
				target = &PropertyAccess{Pos: pos, X: target, Key: p.ident("a property name")}
			}
			op := p.tok.text
			if !p.isPunct("=") && !p.isPunct("+=") {
				p.failUnexpected(`"=" or "+="`)
			}
			p.advance()
			items = append(items, &SetItem{Pos: pos, Target: target, Op: op, Value: p.expr()})
		}
		if !p.isPunct(",") {
			return items
		}
		p.advance()
	}
}

func (p *parser) removeItems() []*SetItem {
	var items []*SetItem
	for {
		pos := p.tok.pos
		var target Expr = &Variable{Pos: pos, Name: p.ident("a variable")}
		if p.isPunct(":") {
			items = append(items, &SetItem{Pos: pos, Target: target, Labels: p.labels()})
		} else {
			if !p.isPunct(".") {
				p.failUnexpected(`"." or ":"`)
			}
			for p.isPunct(".") {
				p.advance()
				target = &PropertyAccess{Pos: pos, X: target, Key: p.ident("a property name")}
			}
			items = append(items, &SetItem{Pos: pos, Target: target})
		}
		if !p.isPunct(",") {
			return items
		}
		p.advance()
	}
}

// labelTest reads the label expression of X:expr after X (parse_labels.go).
func (p *parser) labelTest(pos Pos, x Expr) Expr { return p.labelPredicate(pos, x) }

// labelBar reports whether the current token is a "|" that joins labels:
// anywhere but in a comprehension's list or WHERE, where it does so only
// when the comprehension's own bar comes after it ([x IN l WHERE x:A|B |
// x.name]; [x IN l WHERE x:A | x.name] projects x.name).
func (p *parser) labelBar() bool {
	if !p.isPunct("|") {
		return false
	}
	if !p.barEnds {
		return true
	}
	if p.lastBar == noBarYet {
		if last, ok := p.bars[p.open]; ok {
			p.lastBar = last
		} else {
			p.lastBar = p.findLastBar()
			p.bars[p.open] = p.lastBar
		}
	}
	return p.tok.pos.Offset < p.lastBar
}

// findLastBar scans ahead from the current token for the offset of the
// last "|" at this bracket level before the closing bracket (-1 if none),
// remembering the same for every bracket it passes.
func (p *parser) findLastBar() int {
	save, saveTok, saveEnd := *p.lex, p.tok, p.lastEnd
	defer func() { *p.lex, p.tok, p.lastEnd = save, saveTok, saveEnd }()
	if p.bars == nil {
		p.bars = map[int]int{}
	}
	type frame struct{ open, last int }
	stack := []frame{{open: -1, last: -1}}
	for p.tok.kind != tEOF {
		if p.tok.kind == tPunct {
			top := &stack[len(stack)-1]
			switch p.tok.text {
			case "(", "[", "{":
				stack = append(stack, frame{open: p.tok.pos.Offset, last: -1})
			case ")", "]", "}":
				if len(stack) == 1 {
					return top.last
				}
				p.bars[top.open] = top.last
				stack = stack[:len(stack)-1]
			case "|":
				top.last = p.tok.pos.Offset
			}
		}
		p.advance()
	}
	return stack[0].last
}

// barEnding reads an expression that a "|" may end (a comprehension's
// list or predicate); open is the offset of the comprehension's opening
// bracket.
func (p *parser) barEnding(open int) Expr {
	saveEnds, saveLast, saveOpen := p.barEnds, p.lastBar, p.open
	p.barEnds, p.lastBar, p.open = true, noBarYet, open
	e := p.expr()
	p.barEnds, p.lastBar, p.open = saveEnds, saveLast, saveOpen
	return e
}

// labels parses the labels of SET n:A:B and REMOVE n:A:B (parse_labels.go).
func (p *parser) labels() []string { return p.setLabels() }

func (p *parser) call(pos Pos) Clause {
	if p.isPunct("{") || p.isPunct("(") {
		return p.callSubquery(pos, false)
	}
	c := &Call{Pos: pos}
	name := []string{p.ident("a procedure name")}
	for p.isPunct(".") {
		p.advance()
		name = append(name, p.ident("a procedure name"))
	}
	c.Namespace, c.Name = name[:len(name)-1], name[len(name)-1]
	if p.isPunct("(") {
		c.HasArgs = true
		p.advance()
		if !p.isPunct(")") {
			c.Args = p.exprList()
		}
		p.expectPunct(")")
	}
	if p.isKeyword("YIELD") {
		p.advance()
		if p.isPunct("*") {
			p.advance()
			c.YieldStar = true
		} else {
			for {
				it := &YieldItem{Name: p.ident("a column name")}
				if p.isKeyword("AS") {
					p.advance()
					it.Alias = p.ident("an alias")
				}
				c.Yield = append(c.Yield, it)
				if !p.isPunct(",") {
					break
				}
				p.advance()
			}
		}
		if p.isKeyword("WHERE") {
			p.advance()
			c.Where = p.expr()
		}
	}
	return c
}

// projection parses the body of RETURN or WITH.
func (p *parser) projection(pos Pos) Projection {
	pr := Projection{Pos: pos}
	if p.isKeyword("DISTINCT") {
		pr.Distinct = true
		p.advance()
	}
	if p.isPunct("*") {
		pr.Star = true
		p.advance()
		if p.isPunct(",") {
			p.advance()
		} else {
			goto tail
		}
	}
	for {
		start := p.tok.pos.Offset
		e := p.expr()
		end := p.lastEnd
		it := &ReturnItem{Expr: e, Text: strings.TrimSpace(p.src[start:end])}
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
tail:
	pr.GroupBy = p.groupBy()
	if p.isKeyword("ORDER") {
		p.advance()
		p.expectKeyword("BY")
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
			pr.OrderBy = append(pr.OrderBy, si)
			if !p.isPunct(",") {
				break
			}
			p.advance()
		}
	}
	if p.isKeyword("SKIP") || p.isKeyword("OFFSET") {
		p.advance()
		pr.Skip = p.expr()
	}
	if p.isKeyword("LIMIT") {
		p.advance()
		pr.Limit = p.expr()
		// LIMIT n OFFSET m, as SQL writes it: the rows are still skipped
		// first, then limited.
		if p.isKeyword("SKIP") || p.isKeyword("OFFSET") {
			if pr.Skip != nil {
				p.fail("%s given twice: a projection skips rows once", strings.ToUpper(p.tok.text))
			}
			p.advance()
			pr.Skip = p.expr()
		}
	}
	return pr
}
