package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const importPersons = `id,name,age:INT64,score,active,born:DATE
1,Ann,30,1.5,true,1990-01-02
2,Bob,,2,false,
3,"Cy, Jr",50,3.25,true,1970-12-31
4,Dee,41,,,
`

const importKnows = "from,to,since\r\n1,2,2001\r\n2,3,2010\r\n3,1,2020\r\n1,3,2002\r\n1,1,2005\r\n"

// TestImportThenQuery imports node and relationship CSVs (typed and
// inferred columns, nulls, quotes, CRLF, two labels, a self loop) and
// queries the opened database: counts, properties, labels, adjacency in
// both directions.
func TestImportThenQuery(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{
		"persons.csv": importPersons,
		"cities.csv":  "id,name\n100,Paris\n101,Oslo\n",
		"knows.csv":   importKnows,
		"lives.csv":   "from,to\n1,100\n2,100\n3,101\n",
	})
	dir := filepath.Join(t.TempDir(), "data")
	sum, err := engine.Import(engine.ImportOptions{Dir: dir,
		Nodes: []engine.ImportInput{{Name: "Person", Path: filepath.Join(in, "persons.csv")}, {Name: "City:Place", Path: filepath.Join(in, "cities.csv")}},
		Rels:  []engine.ImportInput{{Name: "KNOWS", Path: filepath.Join(in, "knows.csv")}, {Name: "LIVES_IN", Path: filepath.Join(in, "lives.csv")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Nodes != 6 || sum.Relationships != 8 || sum.Bytes <= 0 {
		t.Fatalf("summary %+v", sum)
	}
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, want string }{
		{"MATCH (n) RETURN count(*)", "6"},
		{"MATCH (p:Person) RETURN count(*)", "4"},
		{"MATCH (c:Place:City) RETURN c.name ORDER BY c.name", "'Oslo','Paris'"},
		{"MATCH ()-[r]->() RETURN count(r)", "8"},
		{"MATCH (a:Person {id: 1})-[:KNOWS]->(b) RETURN b.id ORDER BY b.id", "1,2,3"},
		{"MATCH (a:Person {id: 1})<-[:KNOWS]-(b) RETURN b.id ORDER BY b.id", "1,3"},
		{"MATCH ()-[k:KNOWS]->() RETURN sum(k.since)", "10038"},
		{"MATCH (p:Person) WHERE p.age IS NULL RETURN p.name", "'Bob'"},
		{"MATCH (p:Person {id: 3}) RETURN p.name, p.score, p.active, toString(p.born)", "'Cy, Jr' | 3.25 | true | '1970-12-31'"},
		{"MATCH (p:Person {id: 2}) RETURN p.score, p.born IS NULL", "2.0 | true"},
		{"MATCH (p:Person {id: 4}) RETURN p.score IS NULL, p.active IS NULL, p.age", "true | true | 41"},
		{"MATCH (p:Person)-[:LIVES_IN]->(c:City {name: 'Paris'}) RETURN p.name ORDER BY p.name", "'Ann','Bob'"},
		{"MATCH (c:City)<-[:LIVES_IN]-(p) RETURN c.id, count(p) ORDER BY c.id", "100 | 2,101 | 1"},
	} {
		if got := strings.Join(mustQuery(t, db, c.q, nil), ","); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	// Each node file's key column is indexed under its first label, so
	// key lookups seek.
	if got := strings.Join(mustQuery(t, db, "CALL db.indexes() YIELD name, type, label, properties RETURN name, type, label, properties ORDER BY name", nil), ","); got != "'index_city_id' | 'BTREE' | 'City' | 'id','index_person_id' | 'BTREE' | 'Person' | 'id'" {
		t.Errorf("indexes after import: %s", got)
	}
	if used := indexUsed(t, db, "MATCH (a:Person {id: 1})-[:KNOWS]->(b) RETURN b.id", nil); len(used) != 1 || used[0] != "index_person_id" {
		t.Errorf("key lookup after import: index_used %v, want [index_person_id]", used)
	}
	// Writes after open work on the loaded graph (in memory only).
	mustQuery(t, db, "MATCH (a:Person {id: 4}), (b:Person {id: 1}) CREATE (a)-[:KNOWS {since: 2024}]->(b)", nil)
	if got := strings.Join(mustQuery(t, db, "MATCH (a:Person {id: 1})<-[:KNOWS]-(b) RETURN b.id ORDER BY b.id", nil), ","); got != "1,3,4" {
		t.Errorf("after CREATE: %s", got)
	}
	// ... and reach the disk through SaveBase.
	if _, err := db.SaveBase(); err != nil {
		t.Fatal(err)
	}
	// One process per data directory: it stays locked until Close.
	var inUse *engine.DirInUseError
	if _, err := engine.Open(dir, engine.Options{}); !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
		t.Fatalf("a second Open of an open directory: %v, want a DirInUseError naming this process", err)
	}
	db.Close()
	db2, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if got := strings.Join(mustQuery(t, db2, "MATCH (:Person {id: 4})-[k:KNOWS]->(b) RETURN b.id, k.since", nil), ","); got != "1 | 2024" {
		t.Errorf("after SaveBase and reopen: %s", got)
	}
}

// TestImportErrors: every bad input names file, line and column, and
// leaves no directory behind.
func TestImportErrors(t *testing.T) {
	for _, c := range []struct {
		name, persons, knows, want string
	}{
		{"missing key", "id,name\n1,a\n,b\n", "", "p.csv:3:1 (column id): missing node key"},
		{"duplicate key", "id,name\n1,a\n2,b\n1,c\n", "", "p.csv:4:1 (column id): duplicate node key 1"},
		{"type mismatch", "id,age:INT64\n1,30\n2,old\n", "", `p.csv:3:2 (column age): type mismatch: "old" is not an INT64`},
		// The first 1000 data lines decide an undeclared type.
		{"inferred type mismatch", "id,age\n" + manyRows(1000) + "5000,3.5x\n", "", `p.csv:1002:2 (column age): type mismatch: "3.5x" is not an INT64`},
		{"ragged row", "id,name\n1,a\n2\n", "", "p.csv:3: 1 fields, the header has 2 (ragged row)"},
		{"empty line", "id,name\n1,a\n\n2,b\n", "", "p.csv:3: empty line"},
		{"unterminated quote", "id,name\n1,\"abc\n", "", "p.csv:2:2 (column name): unterminated quoted field"},
		{"unknown type", "id,age:NUMBER\n", "", `p.csv:1:2 (column age): unknown type "NUMBER"`},
		{"no key column", "key,name\n1,a\n", "", `p.csv:1: no "id" column`},
		{"unknown node", "id\n1\n2\n", "from,to\n1,2\n1,9\n", `k.csv:3:2 (column to): unknown node key "9"`},
		{"missing endpoint", "id\n1\n", "from,to\n,1\n", "k.csv:2:1 (column from): missing node key"},
		{"endpoint type", "id\n1\n", "from,to\nx,1\n", `k.csv:2:1 (column from): type mismatch: "x" is not an INT64 node key`},
		{"rel ragged", "id\n1\n", "from,to,w\n1,1\n", "k.csv:2: 2 fields, the header has 3 (ragged row)"},
		{"no from column", "id\n1\n", "src,to\n1,1\n", `k.csv:1: no "from" column`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := t.TempDir()
			files := map[string]string{"p.csv": c.persons}
			o := engine.ImportOptions{Nodes: []engine.ImportInput{{Name: "P", Path: "p.csv"}}}
			if c.knows != "" {
				files["k.csv"] = c.knows
				o.Rels = []engine.ImportInput{{Name: "K", Path: "k.csv"}}
			}
			writeFiles(t, in, files)
			t.Chdir(in)
			out := t.TempDir()
			o.Dir = filepath.Join(out, "data")
			_, err := engine.Import(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Fatalf("failed import left %v", ents)
			}
		})
	}
}

func TestImportRefusals(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"p.csv": "id\n1\n", "x.parquet": "PAR1"})
	t.Chdir(in)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"keep": "x"})
	if _, err := engine.Import(engine.ImportOptions{Dir: dir, Nodes: []engine.ImportInput{{Name: "P", Path: "p.csv"}}}); err == nil ||
		!strings.Contains(err.Error(), "not empty") {
		t.Fatalf("non-empty directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep")); string(b) != "x" {
		t.Fatal("existing directory touched")
	}
	file := filepath.Join(dir, "keep")
	if _, err := engine.Import(engine.ImportOptions{Dir: file, Nodes: []engine.ImportInput{{Name: "P", Path: "p.csv"}}}); err == nil ||
		!strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("file as data directory: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Fatal("file replaced")
	}
	if _, err := engine.Import(engine.ImportOptions{Dir: filepath.Join(dir, "new"), Nodes: []engine.ImportInput{{Name: "P", Path: "x.parquet"}}}); err == nil ||
		!strings.Contains(err.Error(), "x.parquet: not a Parquet file or corrupt") {
		t.Fatalf("truncated parquet: %v", err)
	}
	// An empty existing directory is replaced.
	empty := filepath.Join(t.TempDir(), "e")
	os.Mkdir(empty, 0o755)
	if _, err := engine.Import(engine.ImportOptions{Dir: empty, Nodes: []engine.ImportInput{{Name: "P", Path: "p.csv"}}}); err != nil {
		t.Fatal(err)
	}
	db, err := engine.Open(empty, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := mustQuery(t, db, "MATCH (p:P) RETURN p.id", nil); len(got) != 1 || got[0] != "1" {
		t.Fatalf("got %v", got)
	}
}

// manyRows is n lines "i,i".
func manyRows(n int) string {
	var sb strings.Builder
	for i := range n {
		sb.WriteString(itoa(i) + "," + itoa(i) + "\n")
	}
	return sb.String()
}
