package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

func TestParseExport(t *testing.T) {
	a, err := parseExport([]string{"--data-dir", "D", "--out", "O", "--format", "CSV"})
	if err != nil || a.dataDir != "D" || a.out != "O" || a.format != "csv" {
		t.Fatalf("%+v %v", a, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", "D"}, "give --out"},
		{[]string{"--out", "O", "--format", "json"}, "parquet or csv"},
		{[]string{"--out", "O", "extra"}, "unexpected argument"},
	} {
		if _, err := parseExport(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := parseImport([]string{"--from-export", "X", "--nodes", "P=p.csv"}); err == nil || !strings.Contains(err.Error(), "alone") {
		t.Errorf("--from-export with --nodes: %v", err)
	}
}

// rowsOf runs q on db and returns its rows as text.
func rowsOf(t *testing.T, db *engine.DB, q string) string {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	var out []string
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if b == nil {
			return strings.Join(out, "\n")
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			var cells []string
			for _, c := range b.Cols {
				cells = append(cells, fmt.Sprintf("%v", c.Get(r)))
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
}

// `quiver export` of a stopped server's directory, then `quiver import
// --from-export`, gives the same graph and schema; a directory a server
// holds is refused with the way through the server.
func TestExportCommand(t *testing.T) {
	work := t.TempDir()
	data := filepath.Join(work, "data")
	db, err := engine.Open(data, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE (:Person {id: 1, name: 'Ann', born: date('1990-01-02')})-[:KNOWS {since: 2001}]->(:Person:Admin {id: 2, name: 'Bob'}), (:City {name: 'Oslo', at: localdatetime('2020-01-02T03:04:05.123456789')})",
		"CREATE INDEX person_name FOR (n:Person) ON (n.name)",
		"CREATE CONSTRAINT person_id ON (n:Person) ASSERT n.id IS UNIQUE",
	} {
		rowsOf(t, db, q)
	}
	check := []string{
		"MATCH (n) RETURN labels(n), n.id, n.name, n.born, n.at ORDER BY n.name",
		"MATCH (a)-[k:KNOWS]->(b) RETURN a.name, k.since, b.name",
		"SHOW INDEXES", "SHOW CONSTRAINTS",
	}
	var want []string
	for _, q := range check {
		want = append(want, rowsOf(t, db, q))
	}
	if !strings.Contains(want[0], "1990-01-02") || !strings.Contains(want[0], "03:04:05.123456789") || !strings.Contains(want[2], "person_name") || !strings.Contains(want[3], "person_id") {
		t.Fatalf("the graph to export is not what was made: %q", want)
	}
	stdout, stderr := tempFile(t, work, "stdout"), tempFile(t, work, "stderr")
	err = runExport(exportArgs{dataDir: data, out: filepath.Join(work, "out"), format: "parquet"}, stdout, stderr)
	if err == nil || !strings.Contains(err.Error(), "CALL quiver.export") {
		t.Fatalf("export of a held directory: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := runExport(exportArgs{dataDir: data, out: filepath.Join(work, "out"), format: "parquet"}, stdout, stderr); err != nil {
		t.Fatal(err)
	}
	if out := readBack(t, stdout); !strings.Contains(out, "exported 3 nodes and 1 relationships") {
		t.Fatalf("stdout %q", out)
	}
	if log := readBack(t, stderr); !strings.Contains(log, "export: writing nodes done: ") {
		t.Fatalf("stderr %q", log)
	}
	a, err := parseImport([]string{"--data-dir", filepath.Join(work, "back"), "--from-export", filepath.Join(work, "out")})
	if err != nil {
		t.Fatal(err)
	}
	if err := runImport(a, stdout, stderr); err != nil {
		t.Fatal(err)
	}
	if out := readBack(t, stdout); !strings.Contains(out, "ran 2 schema statements") {
		t.Fatalf("stdout %q", out)
	}
	back, err := engine.Open(filepath.Join(work, "back"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	for i, q := range check {
		if got := rowsOf(t, back, q); got != want[i] {
			t.Errorf("%s:\n got  %s\n want %s", q, got, want[i])
		}
	}
}

func tempFile(t *testing.T, dir, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readBack returns what f holds and empties it.
func readBack(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	return string(b)
}
