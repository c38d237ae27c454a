package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// quiver import --graph imports into a new graph of a data directory that
// already holds data, leaving the default graph as it was; a second
// import under the same name is refused; export --graph writes that graph.
func TestImportIntoGraph(t *testing.T) {
	a := progressInputs(t, 300, 450)
	data := a.Dir
	db, err := engine.Open(data, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), "CREATE (:Existing)", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	db.Close()

	out, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer out.Close()
	a.graph = "People"
	if err := runImport(a, out, out); err != nil {
		t.Fatal(err)
	}
	if err := runImport(a, out, out); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a second import into graph people: %v", err)
	}
	db, err = engine.Open(data, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	count := func(graph, q string) string {
		t.Helper()
		res, err := db.Query(engine.WithGraph(context.Background(), graph), q, nil)
		if err != nil {
			t.Fatalf("%s on %s: %v", q, graph, err)
		}
		defer res.Close()
		b, err := res.Next()
		if err != nil || b == nil {
			t.Fatalf("%s: %v", q, err)
		}
		return b.Cols[0].Get(0).(string)
	}
	if got := count("people", "MATCH (p:Person)-[k:KNOWS]->() RETURN toString(count(DISTINCT p)) + '/' + toString(count(k))"); got != "300/450" {
		t.Fatalf("graph people holds %s, want 300 people and 450 KNOWS", got)
	}
	if got := count("default", "MATCH (n) RETURN toString(count(n))"); got != "1" {
		t.Fatalf("the default graph holds %s nodes, want its 1", got)
	}
	db.Close()

	exp := filepath.Join(t.TempDir(), "exp")
	if err := runExport(exportArgs{dataDir: data, out: exp, format: engine.ExportCSV, graph: "people"}, out, out); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(exp, "manifest.json"))
	if err != nil || !strings.Contains(string(m), "Person") || strings.Contains(string(m), "Existing") {
		t.Fatalf("the export of graph people: %s %v", m, err)
	}
}
