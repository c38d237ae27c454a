package gql

import "strings"

// SchemaKind says which schema statement a Schema is.
type SchemaKind uint8

// Schema statements.
const (
	SchemaCreateIndex SchemaKind = iota + 1
	SchemaDropIndex
	SchemaShowIndexes
	SchemaCreateConstraint
	SchemaDropConstraint
	SchemaShowConstraints
)

// Schema is a statement on indexes or constraints:
//
//	CREATE [BTREE|HASH] INDEX [name] FOR (n:Label) ON (n.p1[, n.p2 …]) [OPTIONS {type: 'HASH'} | TYPE HASH]
//	CREATE INDEX [name] ON :Label(p1[, p2 …])
//	CREATE FULLTEXT INDEX [name] FOR (n:Label) ON EACH [n.p1, …] [OPTIONS {analyzer: 'english'}]
//	CREATE FULLTEXT INDEX [name] FOR ()-[r:TYPE]-() ON EACH [r.p1, …] [OPTIONS …]
//	CREATE VECTOR INDEX [name] FOR (n:Label) ON (n.p) OPTIONS {dimensions: 128, similarity: 'cosine', m: 16, ef_construction: 128}
//	CREATE CONSTRAINT [name] ON (n:Label) ASSERT n.p IS UNIQUE
//	CREATE CONSTRAINT [name] ON (n:Label) ASSERT EXISTS(n.p)   (or n.p IS NOT NULL)
//	DROP INDEX name | DROP CONSTRAINT name
//	SHOW INDEXES | SHOW CONSTRAINTS
//
// CREATE takes IF NOT EXISTS before or after the name, DROP IF EXISTS
// after it, and CREATE CONSTRAINT Cypher 5's FOR … REQUIRE for ON … ASSERT.
type Schema struct {
	Pos  Pos
	Kind SchemaKind
	// Name is the object's name; empty when CREATE names none.
	Name    string
	NamePos Pos
	// IndexType is "BTREE" or "HASH" as written; empty means BTREE.
	IndexType string
	Label     string
	Props     []string
	// Rel says Label is a relationship type (FULLTEXT indexes).
	Rel bool
	// Analyzer is a FULLTEXT index's analyzer; empty means standard.
	Analyzer string
	// Vector is a VECTOR index's OPTIONS (parse_vector.go).
	Vector *VectorSpec
	// Unique is true for IS UNIQUE, false for EXISTS (CREATE CONSTRAINT).
	Unique bool
	// IfExists is Cypher 5's IF NOT EXISTS on CREATE, IF EXISTS on DROP:
	// an object of the name or definition already there (CREATE), or
	// none of the name (DROP), is no error and changes nothing.
	IfExists bool
}

// HintKind says which planner hint a Hint is.
type HintKind uint8

// Planner hints written after a MATCH pattern.
const (
	// HintIndex is USING INDEX v:Label(p[, p2]): seek v through that index.
	HintIndex HintKind = iota + 1
	// HintNoIndex is WITHOUT INDEX: plan the MATCH with label scans only.
	HintNoIndex
	// HintJoin is USING JOIN ON a.x = b.y: join the pattern parts of a
	// and b by hashing on the two properties.
	HintJoin
)

// Hint is one planner hint of a MATCH clause.
type Hint struct {
	Pos   Pos
	Kind  HintKind
	Var   string   // HintIndex: the variable; HintJoin: the left variable
	Label string   // HintIndex
	Props []string // HintIndex: the properties; HintJoin: the left property
	// HintJoin: the right side.
	RightVar  string
	RightProp string
}

// formatHints prints hints as they parse back.
func formatHints(sb *strings.Builder, hs []*Hint) {
	for _, h := range hs {
		switch h.Kind {
		case HintNoIndex:
			sb.WriteString(" WITHOUT INDEX")
		case HintIndex:
			props := make([]string, len(h.Props))
			for i, p := range h.Props {
				props[i] = quoteName(p)
			}
			sb.WriteString(" USING INDEX " + quoteName(h.Var) + ":" + quoteName(h.Label) + "(" + strings.Join(props, ", ") + ")")
		case HintJoin:
			sb.WriteString(" USING JOIN ON " + quoteName(h.Var) + "." + quoteName(h.Props[0]) + " = " +
				quoteName(h.RightVar) + "." + quoteName(h.RightProp))
		}
	}
}

// String prints the statement in the canonical form that parses back to
// it.
func (s *Schema) String() string {
	name := ""
	if s.Name != "" {
		name = " " + quoteName(s.Name)
		if u := strings.ToUpper(s.Name); u == "FOR" || u == "ON" {
			name = " `" + s.Name + "`" // would read as the keyword
		}
	}
	label := quoteName(s.Label)
	if s.IfExists {
		name += schemaIfExists[s.Kind]
	}
	switch s.Kind {
	case SchemaCreateIndex:
		switch s.IndexType {
		case "FULLTEXT":
			return s.fullTextString(name, label)
		case "VECTOR":
			return s.vectorString(name, label)
		}
		props := make([]string, len(s.Props))
		for i, p := range s.Props {
			props[i] = "n." + quoteName(p)
		}
		t := ""
		if s.IndexType != "" {
			t = s.IndexType + " "
		}
		return "CREATE " + t + "INDEX" + name + " FOR (n:" + label + ") ON (" + strings.Join(props, ", ") + ")"
	case SchemaCreateConstraint:
		if s.Unique {
			return "CREATE CONSTRAINT" + name + " ON (n:" + label + ") ASSERT n." + quoteName(s.Props[0]) + " IS UNIQUE"
		}
		return "CREATE CONSTRAINT" + name + " ON (n:" + label + ") ASSERT EXISTS(n." + quoteName(s.Props[0]) + ")"
	case SchemaDropIndex:
		return "DROP INDEX" + name
	case SchemaDropConstraint:
		return "DROP CONSTRAINT" + name
	case SchemaShowIndexes:
		return "SHOW INDEXES"
	}
	return "SHOW CONSTRAINTS"
}

// schemaIfExists is how IfExists prints after a statement's name.
var schemaIfExists = map[SchemaKind]string{
	SchemaCreateIndex: " IF NOT EXISTS", SchemaCreateConstraint: " IF NOT EXISTS",
	SchemaDropIndex: " IF EXISTS", SchemaDropConstraint: " IF EXISTS",
}

// fullTextString prints a CREATE FULLTEXT INDEX.
func (s *Schema) fullTextString(name, label string) string {
	v := "n"
	target := "(n:" + label + ")"
	if s.Rel {
		v = "r"
		target = "()-[r:" + label + "]-()"
	}
	props := make([]string, len(s.Props))
	for i, p := range s.Props {
		props[i] = v + "." + quoteName(p)
	}
	out := "CREATE FULLTEXT INDEX" + name + " FOR " + target + " ON EACH [" + strings.Join(props, ", ") + "]"
	if s.Analyzer != "" {
		out += " OPTIONS {analyzer: '" + s.Analyzer + "'}"
	}
	return out
}
