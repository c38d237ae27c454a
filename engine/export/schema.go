package export

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
)

// SchemaFile is the script of the schema in an export's folder.
const SchemaFile = "schema.gql"

// schemaScript renders s as GQL statements, one per line, each ended by
// a semicolon, that recreate it on a database holding the imported data:
// the indexes first (but those a UNIQUE constraint created, which its
// constraint creates again), then the constraints, in creation order.
// Names are kept, so the recreated schema equals the exported one.
func schemaScript(s *catalog.Schema) string {
	var b strings.Builder
	if s == nil {
		return ""
	}
	for _, ix := range s.Indexes {
		if ix.Constraint != "" {
			continue
		}
		keys := make([]string, len(ix.Keys))
		for i, k := range ix.Keys {
			keys[i] = "n." + quoteName(k)
		}
		if ix.Type == catalog.Vector {
			fmt.Fprintf(&b, "CREATE VECTOR INDEX %s FOR (n:%s) ON (%s) OPTIONS {%s};\n", quoteName(ix.Name), quoteName(ix.Label), keys[0], vectorOptions(ix.Vector))
			continue
		}
		if ix.Type == catalog.FullText {
			target := "(n:" + quoteName(ix.Label) + ")"
			if ix.Rel {
				target = "()-[n:" + quoteName(ix.Label) + "]-()"
			}
			opts := ""
			if ix.Analyzer != "" {
				opts = " OPTIONS {analyzer: '" + ix.Analyzer + "'}"
			}
			fmt.Fprintf(&b, "CREATE FULLTEXT INDEX %s FOR %s ON EACH [%s]%s;\n", quoteName(ix.Name), target, strings.Join(keys, ", "), opts)
			continue
		}
		fmt.Fprintf(&b, "CREATE %s INDEX %s FOR (n:%s) ON (%s);\n", ix.Type, quoteName(ix.Name), quoteName(ix.Label), strings.Join(keys, ", "))
	}
	for _, c := range s.Constraints {
		assert := fmt.Sprintf("n.%s IS UNIQUE", quoteName(c.Key))
		if c.Kind == catalog.Exists {
			assert = fmt.Sprintf("EXISTS(n.%s)", quoteName(c.Key))
		}
		fmt.Fprintf(&b, "CREATE CONSTRAINT %s ON (n:%s) ASSERT %s;\n", quoteName(c.Name), quoteName(c.Label), assert)
	}
	return b.String()
}

// vectorOptions renders a VECTOR index's OPTIONS map's contents.
func vectorOptions(o *catalog.VectorOptions) string {
	if o == nil {
		return ""
	}
	out := fmt.Sprintf("dimensions: %d", o.Dimensions)
	if o.Similarity != "" {
		out += ", similarity: '" + o.Similarity + "'"
	}
	if o.M != 0 {
		out += fmt.Sprintf(", m: %d", o.M)
	}
	if o.EfConstruction != 0 {
		out += fmt.Sprintf(", ef_construction: %d", o.EfConstruction)
	}
	return out
}

// quoteName writes a name as a backquoted identifier (a backquote
// doubled), which any name, a keyword included, can be.
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// SchemaStatements splits a schema script into its statements.
func SchemaStatements(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, strings.TrimSuffix(line, ";"))
		}
	}
	return out
}
