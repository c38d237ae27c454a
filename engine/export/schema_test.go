package export

import (
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
)

// FULLTEXT indexes are written in their own statement form, analyzer and
// relationship type included.
func TestSchemaScriptFullText(t *testing.T) {
	s := &catalog.Schema{Indexes: []*catalog.Index{
		{Name: "books", Type: catalog.FullText, Label: "Book", Keys: []string{"title", "blurb"}},
		{Name: "reviews", Type: catalog.FullText, Label: "REVIEWED", Keys: []string{"text"}, Rel: true, Analyzer: "english"},
		{Name: "ix", Type: catalog.Hash, Label: "Book", Keys: []string{"isbn"}},
	}}
	want := "CREATE FULLTEXT INDEX `books` FOR (n:`Book`) ON EACH [n.`title`, n.`blurb`];\n" +
		"CREATE FULLTEXT INDEX `reviews` FOR ()-[n:`REVIEWED`]-() ON EACH [n.`text`] OPTIONS {analyzer: 'english'};\n" +
		"CREATE HASH INDEX `ix` FOR (n:`Book`) ON (n.`isbn`);\n"
	if got := schemaScript(s); got != want {
		t.Errorf("script:\n%s\nwant:\n%s", got, want)
	}
}

// VECTOR indexes are written with their OPTIONS, defaults left out.
func TestSchemaScriptVector(t *testing.T) {
	s := &catalog.Schema{Indexes: []*catalog.Index{
		{Name: "emb", Type: catalog.Vector, Label: "Doc", Keys: []string{"embedding"},
			Vector: &catalog.VectorOptions{Dimensions: 128, Similarity: "dot", M: 24, EfConstruction: 200}},
		{Name: "small", Type: catalog.Vector, Label: "P", Keys: []string{"v"}, Vector: &catalog.VectorOptions{Dimensions: 2}},
	}}
	want := "CREATE VECTOR INDEX `emb` FOR (n:`Doc`) ON (n.`embedding`) OPTIONS {dimensions: 128, similarity: 'dot', m: 24, ef_construction: 200};\n" +
		"CREATE VECTOR INDEX `small` FOR (n:`P`) ON (n.`v`) OPTIONS {dimensions: 2};\n"
	if got := schemaScript(s); got != want {
		t.Errorf("script:\n%s\nwant:\n%s", got, want)
	}
}
