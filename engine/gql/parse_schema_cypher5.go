package gql

// Cypher 5's spellings of the schema statements: CREATE CONSTRAINT …
// FOR … REQUIRE (the older ON … ASSERT), IF NOT EXISTS on CREATE and IF
// EXISTS on DROP, and the property type constraint, which Quiver refuses.

// constraintWord reads the keyword of CREATE CONSTRAINT's older syntax
// (ON, ASSERT) or Cypher 5's (FOR, REQUIRE): one statement may mix them.
func (p *parser) constraintWord(older, cypher5 string) {
	if p.isKeyword(cypher5) {
		p.advance()
		return
	}
	p.expectKeyword(older)
}

// propertyTypeConstraint answers Cypher 5's property type constraint,
// REQUIRE n.p IS :: INTEGER, the "::" or TYPED current: its type is read
// (so a misspelt type is a syntax error) and the constraint refused.
func (p *parser) propertyTypeConstraint() {
	pos := p.tok.pos
	p.advance()
	t := p.valueType()
	panic(notSupportedAt(pos, "not supported: property type constraints (IS :: %s)", t))
}

// ifNotExists reads IF NOT EXISTS after CREATE INDEX or CREATE
// CONSTRAINT (before or after the name), if there. An object named "if"
// stays a name: IF is read as the clause only when NOT follows it.
func (p *parser) ifNotExists(s *Schema) {
	if !p.isKeyword("IF") || !p.peekKeyword("NOT") {
		return
	}
	p.advance()
	p.advance()
	p.expectKeyword("EXISTS")
	s.IfExists = true
}

// ifExists reads IF EXISTS after DROP INDEX name or DROP CONSTRAINT
// name, if there.
func (p *parser) ifExists(s *Schema) {
	if !p.isKeyword("IF") {
		return
	}
	p.advance()
	p.expectKeyword("EXISTS")
	s.IfExists = true
}
