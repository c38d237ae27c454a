package gql

import (
	"strconv"
	"strings"
)

// Copy is COPY <name> FROM '<path>' or COPY (<query>) TO '<path>'
// [(<option> = <value>, …)].
//
// COPY … FROM loads a CSV or Parquet file into the graph as one
// transaction. Name is a node label (or labels joined by ':' in a
// quoted name) or a relationship type; the engine tells nodes from
// relationships by the file's header (docs/import.md).
//
// COPY (<query>) TO writes the rows of a read-only query into a Parquet
// or CSV file (docs/export.md); Query is set and Name is empty.
type Copy struct {
	Pos     Pos
	Name    string
	NamePos Pos
	Path    string
	PathPos Pos
	// Query is the query of COPY (…) TO, nil for COPY … FROM.
	Query *Query
	// QueryPos is where the query starts (after the parenthesis).
	QueryPos Pos
	// Options are COPY … TO's options in the order written, each name
	// once, the values checked (copyOptions).
	Options []CopyOption
}

// CopyOption is one option of COPY … TO: Name in upper case, Value a
// string, an int64 or a bool.
type CopyOption struct {
	Name     string
	Value    any
	Pos      Pos // the option's name
	ValuePos Pos
}

// To reports whether c is COPY (…) TO.
func (c *Copy) To() bool { return c.Query != nil }

// Option is the value of the option name (upper case), nil when not
// given.
func (c *Copy) Option(name string) any {
	for _, o := range c.Options {
		if o.Name == name {
			return o.Value
		}
	}
	return nil
}

// String prints the statement canonically; it parses back to the same
// statement.
func (c *Copy) String() string {
	if c.Query == nil {
		return "COPY " + quoteName(c.Name) + " FROM " + formatLiteral(c.Path)
	}
	var sb strings.Builder
	sb.WriteString("COPY (")
	formatQuery(&sb, c.Query)
	sb.WriteString(") TO ")
	sb.WriteString(formatLiteral(c.Path))
	if len(c.Options) > 0 {
		sb.WriteString(" (")
		for i, o := range c.Options {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(o.Name)
			sb.WriteString(" = ")
			switch v := o.Value.(type) {
			case int64:
				sb.WriteString(strconv.FormatInt(v, 10))
			case bool:
				sb.WriteString(strconv.FormatBool(v))
			default:
				sb.WriteString(formatLiteral(v))
			}
		}
		sb.WriteByte(')')
	}
	return sb.String()
}
