package gql

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
)

// Type predicates, CAST and the names of value types. Every word here is
// a soft keyword: TYPED, CAST, INTEGER, LIST … stay usable as names of
// variables, properties and labels, since a type is read only after
// "::", TYPED or CAST( … AS.

// notSupportedAt is a 0A000 error at p: valid GQL that Quiver does not run.
func notSupportedAt(p Pos, format string, args ...any) *errs.Error {
	return errs.NotSupported(format, args...).At(p.Line, p.Column)
}

// typedAfterIs reports whether the IS at the current token starts a type
// predicate: IS [NOT] :: or IS [NOT] TYPED. A GQL predicate after IS that
// Quiver does not run (IS SOURCE OF, IS TRUE …) fails here with 0A000.
func (p *parser) typedAfterIs() bool {
	p.unsupportedIs()
	l := *p.lex
	t, err := l.next()
	if err == nil && t.kind == tIdent && !t.quoted && strings.EqualFold(t.text, "NOT") {
		t, err = l.next()
	}
	return err == nil && (t.kind == tPunct && t.text == "::" || t.kind == tIdent && !t.quoted && strings.EqualFold(t.text, "TYPED"))
}

// isTyped reads IS [NOT] {:: | TYPED} Type after x, the IS current.
func (p *parser) isTyped(pos Pos, x Expr) Expr {
	p.expectKeyword("IS")
	tp := &TypePredicate{Pos: pos, X: x}
	if p.isKeyword("NOT") {
		tp.Not = true
		p.advance()
	}
	if p.isPunct("::") || p.isKeyword("TYPED") {
		p.advance()
	} else {
		p.failUnexpected(`"::" or TYPED`)
	}
	tp.Type = p.valueType()
	return tp
}

// colonsTyped reads Cypher 5's x :: Type, the "::" current.
func (p *parser) colonsTyped(pos Pos, x Expr) Expr {
	p.expectPunct("::")
	return &TypePredicate{Pos: pos, X: x, Type: p.valueType()}
}

// castRest reads X AS Type) of CAST(X AS Type), the "(" read.
func (p *parser) castRest(pos Pos) Expr {
	x := p.expr()
	p.expectKeyword("AS")
	t := p.valueType()
	p.expectPunct(")")
	return &Cast{Pos: pos, X: x, Type: t}
}

// valueType reads a type: one or a closed union of several joined by |.
// In a comprehension's predicate a | joins types only when the
// comprehension's own | comes after it (labelBar).
func (p *parser) valueType() *TypeRef {
	p.enter()
	defer p.leave()
	first := p.typeAlt()
	if !p.labelBar() {
		return first
	}
	u := &TypeRef{Pos: first.Pos}
	u.Alts = appendAlts(u.Alts, first)
	for p.labelBar() {
		p.advance()
		u.Alts = appendAlts(u.Alts, p.typeAlt())
	}
	return u
}

// appendAlts flattens a union into the union being read: INTEGER |
// ANY<FLOAT | STRING> is the union of all three.
func appendAlts(alts []*TypeRef, t *TypeRef) []*TypeRef {
	if t.Alts != nil {
		return append(alts, t.Alts...)
	}
	return append(alts, t)
}

// typeAlt reads one type of a union: a type name and its NOT NULL, then
// each postfix LIST or ARRAY (GQL's INTEGER NOT NULL LIST) and its own.
func (p *parser) typeAlt() *TypeRef {
	outer := p.mark()
	t := p.typeName()
	h := p.height(outer)
	p.notNull(t)
	n := 0
	defer func() { p.leaveN(n) }()
	for (p.isKeyword("LIST") || p.isKeyword("ARRAY")) && !p.peekPunct("<") {
		p.advance()
		p.link(h)
		n++
		t = &TypeRef{Pos: t.Pos, Name: TypeList, Elem: t}
		p.notNull(t)
	}
	return t
}

// notNull reads NOT NULL after t, if there.
func (p *parser) notNull(t *TypeRef) {
	if !p.isKeyword("NOT") || !p.peekKeyword("NULL") {
		return
	}
	p.advance()
	p.advance()
	switch {
	case t.Alts != nil:
		for _, a := range t.Alts {
			a.NotNull = true
		}
	case t.Name == TypeNull:
		t.Name = TypeNothing // NULL NOT NULL holds no value
	default:
		t.NotNull = true
	}
}

// typeNames maps a type's first word to its canonical name, for the
// names of one word.
var typeNames = map[string]string{
	"BOOL": TypeBoolean, "BOOLEAN": TypeBoolean,
	"INT": TypeInteger, "INTEGER": TypeInteger, "INT64": TypeInteger, "INTEGER64": TypeInteger, "BIGINT": TypeInteger,
	"INT32": TypeInt32, "INTEGER32": TypeInt32,
	"INT16": TypeInt16, "INTEGER16": TypeInt16, "SMALLINT": TypeInt16,
	"INT8": TypeInt8, "INTEGER8": TypeInt8,
	"FLOAT": TypeFloat, "FLOAT64": TypeFloat, "REAL": TypeFloat, "FLOAT32": TypeFloat32,
	"STRING": TypeString, "VARCHAR": TypeString, "CHAR": TypeString,
	"DATE": TypeDate, "DURATION": TypeDuration,
	"MAP": TypeMap, "RECORD": TypeMap,
	"NODE": TypeNode, "VERTEX": TypeNode,
	"EDGE": TypeRelationship, "RELATIONSHIP": TypeRelationship,
	"PATH": TypePath, "NOTHING": TypeNothing, "NULL": TypeNull,
}

// unsupportedTypes are GQL's types Quiver has no values of.
var unsupportedTypes = map[string]string{
	"UINT": "unsigned integers", "UINT8": "unsigned integers", "UINT16": "unsigned integers", "UINT32": "unsigned integers",
	"UINT64": "unsigned integers", "UINT128": "unsigned integers", "UINT256": "unsigned integers", "UNSIGNED": "unsigned integers",
	"USMALLINT": "unsigned integers", "UBIGINT": "unsigned integers",
	"INT128": "128- and 256-bit integers", "INT256": "128- and 256-bit integers",
	"INTEGER128": "128- and 256-bit integers", "INTEGER256": "128- and 256-bit integers",
	"FLOAT16": "FLOAT16, FLOAT128 and FLOAT256", "FLOAT128": "FLOAT16, FLOAT128 and FLOAT256", "FLOAT256": "FLOAT16, FLOAT128 and FLOAT256",
	"DECIMAL": "exact decimal numbers", "DEC": "exact decimal numbers", "NUMERIC": "exact decimal numbers",
	"BYTES": "byte strings", "BINARY": "byte strings", "VARBINARY": "byte strings",
	"PROPERTY": "the PROPERTY VALUE type", "TABLE": "binding table types", "BINDING": "binding table types",
	"GRAPH": "graph reference types", "PROPERTY_GRAPH": "graph reference types",
}

// typeName reads a type name and what belongs to it: LIST<…>, ANY<…>,
// the words of LOCAL DATETIME or TIME WITH TIME ZONE.
func (p *parser) typeName() *TypeRef {
	pos := p.tok.pos
	if p.tok.kind != tIdent || p.tok.quoted {
		p.failUnexpected("a type such as INTEGER, STRING or LIST<INTEGER>")
	}
	word := strings.ToUpper(p.tok.text)
	if what, ok := unsupportedTypes[word]; ok {
		panic(notSupportedAt(pos, "not supported: %s", what))
	}
	t := &TypeRef{Pos: pos}
	if name, ok := typeNames[word]; ok {
		p.advance()
		t.Name = name
		switch {
		case p.isPunct("("):
			panic(notSupportedAt(p.tok.pos, "not supported: %s(…), a length, precision or qualifier of a type", word))
		case name == TypeMap && p.isPunct("{"):
			panic(notSupportedAt(p.tok.pos, "not supported: record types with fields"))
		}
		return t
	}
	p.advance()
	switch word {
	case "DOUBLE":
		if p.isKeyword("PRECISION") {
			p.advance()
		}
		t.Name = TypeFloat
	case "SIGNED":
		if !p.isKeyword("INTEGER") && !p.isKeyword("INT") && !p.isKeyword("INTEGER64") && !p.isKeyword("INT64") {
			p.failUnexpected("INTEGER after SIGNED")
		}
		p.advance()
		t.Name = TypeInteger
	case "ZONED", "LOCAL":
		switch {
		case p.isKeyword("DATETIME"):
			t.Name = word + " DATETIME"
		case p.isKeyword("TIME"):
			t.Name = word + " TIME"
		default:
			p.failUnexpected("DATETIME or TIME after " + word)
		}
		p.advance()
	case "TIMESTAMP", "TIME":
		zoned := p.withTimeZone()
		switch {
		case word == "TIMESTAMP" && zoned:
			t.Name = TypeZonedDateTime
		case word == "TIMESTAMP":
			t.Name = TypeLocalDateTime
		case zoned:
			t.Name = TypeZonedTime
		default:
			t.Name = TypeLocalTime
		}
	case "LIST", "ARRAY":
		t.Name = TypeList
		t.Elem = &TypeRef{Pos: pos, Name: TypeAny}
		if p.isPunct("<") {
			p.advance()
			t.Elem = p.valueType()
			p.expectPunct(">")
		}
		if p.isPunct("[") {
			panic(notSupportedAt(p.tok.pos, "not supported: a maximum length for a list type"))
		}
	case "ANY":
		t.Name = TypeAny
		switch {
		case p.isPunct("<"):
			p.advance()
			t = p.valueType()
			p.expectPunct(">")
		case p.isKeyword("NODE") || p.isKeyword("VERTEX"):
			p.advance()
			t.Name = TypeNode
		case p.isKeyword("EDGE") || p.isKeyword("RELATIONSHIP"):
			p.advance()
			t.Name = TypeRelationship
		case p.isKeyword("VALUE"):
			p.advance()
		case p.isKeyword("RECORD"):
			p.advance()
			t.Name = TypeMap
			if p.isPunct("{") {
				panic(notSupportedAt(p.tok.pos, "not supported: record types with fields"))
			}
		}
	default:
		panic(errAt(pos, "unknown type %s: INTEGER, FLOAT, STRING, BOOLEAN, DATE, LOCAL TIME, ZONED TIME, LOCAL DATETIME, ZONED DATETIME, DURATION, LIST<…>, MAP, NODE, RELATIONSHIP, PATH, ANY, NOTHING or NULL", p.src[pos.Offset:p.lastEnd]))
	}
	return t
}

// withTimeZone reads WITH TIME ZONE (true) or WITHOUT TIME ZONE after
// TIME or TIMESTAMP, if there.
func (p *parser) withTimeZone() bool {
	if !p.isKeyword("WITH") && !p.isKeyword("WITHOUT") || !p.peekKeyword("TIME") {
		return false
	}
	zoned := p.isKeyword("WITH")
	p.advance()
	p.expectKeyword("TIME")
	p.expectKeyword("ZONE")
	return zoned
}
