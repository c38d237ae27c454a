package gql

// Copy is COPY <name> FROM '<path>': load a CSV file into the graph as
// one transaction. Name is a node label (or labels joined by ':' in a
// quoted name) or a relationship type; the engine tells nodes from
// relationships by the file's header (docs/import.md).
type Copy struct {
	Pos     Pos
	Name    string
	NamePos Pos
	Path    string
	PathPos Pos
}

// String prints the statement canonically; it parses back to the same
// statement.
func (c *Copy) String() string {
	return "COPY " + quoteName(c.Name) + " FROM " + formatLiteral(c.Path)
}
