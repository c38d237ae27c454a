package main

import (
	"bytes"
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

// An import into a graph of a directory encrypted at rest: the graph's
// files end encrypted under the directory's keyring, the server reads
// it with its key, and no file of it holds the data in clear.
func TestImportIntoGraphEncrypted(t *testing.T) {
	a := progressInputs(t, 120, 200)
	data := a.Dir
	key := []byte(strings.Repeat("k", 32))
	enc := &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}
	db, err := engine.Open(data, engine.Options{Encryption: enc})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer out.Close()
	a.graph, a.encryption = "people", enc
	if err := runImport(a, out, out); err != nil {
		t.Fatal(err)
	}
	db, err = engine.Open(data, engine.Options{Encryption: enc})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(engine.WithGraph(context.Background(), "people"), "MATCH (p:Person) RETURN count(p)", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Next()
	if err != nil || b == nil || b.Cols[0].Get(0) != int64(120) {
		t.Fatalf("graph people: %v %v", b, err)
	}
	res.Close()
	db.Close()
	files := 0
	err = filepath.Walk(filepath.Join(data, engine.GraphsDirName, "people"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		files++
		if bytes.Contains(raw, []byte("Person")) || bytes.Contains(raw, []byte("KNOWS")) {
			t.Errorf("%s holds the graph in clear", p)
		}
		return err
	})
	if err != nil || files < 3 {
		t.Fatalf("%d files in the graph's directory: %v", files, err)
	}
}
