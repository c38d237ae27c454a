package gql

import (
	"strconv"
	"strings"
)

// sessionStatement parses a session statement when the text starts with
// one, and returns nil otherwise without consuming anything.
//
// SHOW starts no query clause, so SHOW is always a session statement. SET
// is a Cypher clause as well, but a Cypher SET needs a variable bound by
// an earlier clause: "SET name = value" as the first clause of a statement
// can only be a session statement when its value is a literal (a number,
// a string, true or false). SET followed by name.key, name:Label,
// name +=, or name = <a map, parameter or expression> is left to the query
// parser, which reports it as usual.
func (p *parser) sessionStatement() *Session {
	switch {
	case p.isKeyword("SAVEPOINT"), p.isKeyword("ROLLBACK"), p.isKeyword("RELEASE"):
		return p.savepointStatement()
	case p.isKeyword("CHECKPOINT"):
		s := &Session{Kind: SessionCheckpoint, Pos: p.tok.pos}
		p.advance()
		return s
	case p.isKeyword("SHOW"):
		s := &Session{Pos: p.tok.pos}
		p.advance()
		switch {
		case p.isKeyword("ALL"):
			s.Kind = SessionShowAll
			p.advance()
		case p.isKeyword("FUNCTIONS"):
			s.Kind = SessionShowFunctions
			p.advance()
		case p.isKeyword("PROCEDURES"):
			s.Kind = SessionShowProcedures
			p.advance()
		default:
			s.Kind = SessionShow
			s.NamePos = p.tok.pos
			s.Name = p.ident("a parameter name, ALL, FUNCTIONS or PROCEDURES")
		}
		return s
	case p.isKeyword("SET"):
		// Peek two tokens ahead on a copy of the lexer.
		l := *p.lex
		name, err := l.next()
		if err != nil || name.kind != tIdent {
			return nil
		}
		eq, err := l.next()
		if err != nil || eq.kind != tPunct || eq.text != "=" {
			return nil
		}
		v, err := l.next()
		if err != nil || !sessionLiteral(v) {
			return nil
		}
		s := &Session{Kind: SessionSet, Pos: p.tok.pos}
		p.advance()
		s.NamePos = p.tok.pos
		s.Name = p.ident("a parameter name")
		p.expectPunct("=")
		s.ValuePos = p.tok.pos
		s.Value = p.sessionValue()
		return s
	}
	return nil
}

// sessionLiteral reports whether t starts a literal SET value.
func sessionLiteral(t token) bool {
	switch t.kind {
	case tInt, tFloat, tString:
		return true
	case tPunct:
		return t.text == "-"
	case tIdent:
		return !t.quoted && (strings.EqualFold(t.text, "TRUE") || strings.EqualFold(t.text, "FALSE"))
	}
	return false
}

// sessionValue reads the literal of SET: a number (optionally negative),
// a string, true or false. Units such as '64MB' are strings; the engine
// interprets them per parameter.
func (p *parser) sessionValue() any {
	neg := false
	if p.isPunct("-") {
		neg = true
		p.advance()
	}
	t := p.tok
	switch {
	case t.kind == tInt:
		n := p.intLiteral(t)
		p.advance()
		if neg {
			n = -n
		}
		return n
	case t.kind == tFloat:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			p.fail("invalid number %s", t.text)
		}
		p.advance()
		if neg {
			f = -f
		}
		return f
	case neg:
		p.failUnexpected("a number after -")
	case t.kind == tString:
		p.advance()
		return t.str
	case p.isKeyword("TRUE"):
		p.advance()
		return true
	case p.isKeyword("FALSE"):
		p.advance()
		return false
	}
	p.failUnexpected("a value: a number, a string or true/false")
	return nil
}

// savepointStatement parses SAVEPOINT name, ROLLBACK TO [SAVEPOINT] name
// and RELEASE [SAVEPOINT] name. None of these words starts a query
// clause, so they are savepoint statements wherever a statement starts.
func (p *parser) savepointStatement() *Session {
	s := &Session{Pos: p.tok.pos}
	switch {
	case p.isKeyword("SAVEPOINT"):
		s.Kind = SessionSavepoint
		p.advance()
	case p.isKeyword("ROLLBACK"):
		s.Kind = SessionRollbackTo
		p.advance()
		p.expectKeyword("TO")
		if p.isKeyword("SAVEPOINT") {
			p.advance()
		}
	default:
		s.Kind = SessionRelease
		p.advance()
		if p.isKeyword("SAVEPOINT") {
			p.advance()
		}
	}
	s.NamePos = p.tok.pos
	s.Name = p.ident("a savepoint name")
	return s
}
