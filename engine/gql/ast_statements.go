package gql

// GQL's linear statements that Cypher writes with other clauses
// (ISO/IEC 39075 §14): FILTER, LET, FOR and the OPTIONAL { } block.
// INSERT and NEXT have no node of their own: INSERT is CREATE with GQL's
// label sets (parse_statements.go), and NEXT turns the RETURN before it
// into a WITH, which is what linear composition means.

// Filter is FILTER [WHERE] expr: keeps the rows for which Where is true,
// as WITH * WHERE does.
type Filter struct {
	Pos   Pos
	Where Expr
}

// Let is LET x = e [, y = e]: each item adds a column to the working
// table. Items are bound in order, so a later one may read an earlier.
type Let struct {
	Pos   Pos
	Items []*LetItem
}

// LetItem is one x = e of LET.
type LetItem struct {
	Pos  Pos
	Name string
	Expr Expr
}

// For is FOR x IN list [WITH ORDINALITY i | WITH OFFSET i]: UNWIND with
// the element's position in Index (1-based for ORDINALITY, 0-based for
// OFFSET), Index empty when not asked for.
type For struct {
	Pos        Pos
	Var        string
	Expr       Expr
	Index      string
	Ordinality bool
}

// OptionalBlock is OPTIONAL { statements } (also OPTIONAL ( … ) and
// OPTIONAL MATCH { … }): the statements match together or not at all; a
// row they find nothing for is kept with nulls, as by OPTIONAL MATCH.
type OptionalBlock struct {
	Pos     Pos
	Clauses []Clause
}

func (c *Filter) Position() Pos        { return c.Pos }
func (c *Let) Position() Pos           { return c.Pos }
func (c *For) Position() Pos           { return c.Pos }
func (c *OptionalBlock) Position() Pos { return c.Pos }

// GroupKey is one key of RETURN … GROUP BY: the RETURN items that are
// not aggregates must be exactly the keys (Projection.GroupBy). Text is
// its source text, which names an item written the same.
type GroupKey struct {
	Pos  Pos
	Expr Expr
	Text string
}
