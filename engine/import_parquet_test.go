package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// pqCol is a test column: name, Arrow type and values as a JSON array.
type pqCol struct {
	name string
	typ  arrow.DataType
	json string
}

// writeParquet writes cols (all nullable) to dir/name in row groups of
// rowGroup rows.
func writeParquet(t *testing.T, dir, name string, rowGroup int64, cols ...pqCol) {
	t.Helper()
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, c := range cols {
		a, _, err := array.FromJSON(memory.DefaultAllocator, c.typ, strings.NewReader(c.json))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		defer a.Release()
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: true})
		arrs = append(arrs, a)
	}
	sch := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sch, arrs, int64(arrs[0].Len()))
	defer rec.Release()
	tbl := array.NewTableFromRecords(sch, []arrow.RecordBatch{rec})
	defer tbl.Release()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pqarrow.WriteTable(tbl, f, rowGroup, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
}

var (
	pqI64  = arrow.PrimitiveTypes.Int64
	pqF64  = arrow.PrimitiveTypes.Float64
	pqStr  = arrow.BinaryTypes.String
	pqBool = arrow.FixedWidthTypes.Boolean
	pqDate = arrow.FixedWidthTypes.Date32
)

// writeParquetGraph writes the graph of importPersons, importKnows,
// cities.csv and lives.csv (TestImportThenQuery) as Parquet files, in
// row groups of two rows. The dates are days since 1970: 1990-01-02 is
// day 7306, 1970-12-31 day 364.
func writeParquetGraph(t *testing.T, dir string) {
	writeParquet(t, dir, "persons.parquet", 2,
		pqCol{"id", pqI64, `[1, 2, 3, 4]`},
		pqCol{"name", pqStr, `["Ann", "Bob", "Cy, Jr", "Dee"]`},
		pqCol{"age", pqI64, `[30, null, 50, 41]`},
		pqCol{"score", pqF64, `[1.5, 2, 3.25, null]`},
		pqCol{"active", pqBool, `[true, false, true, null]`},
		pqCol{"born", pqDate, `[7306, null, 364, null]`})
	writeParquet(t, dir, "knows.parquet", 2,
		pqCol{"from", pqI64, `[1, 2, 3, 1, 1]`},
		pqCol{"to", pqI64, `[2, 3, 1, 3, 1]`},
		pqCol{"since", pqI64, `[2001, 2010, 2020, 2002, 2005]`})
	writeParquet(t, dir, "cities.parquet", 2,
		pqCol{"id", pqI64, `[100, 101]`},
		pqCol{"name", pqStr, `["Paris", "Oslo"]`})
	writeParquet(t, dir, "lives.parquet", 2,
		pqCol{"from", pqI64, `[1, 2, 3]`},
		pqCol{"to", pqI64, `[100, 100, 101]`})
}

// graphQueries read every node, relationship and property of the graph
// that writeParquetGraph writes.
var graphQueries = []struct{ q, want string }{
	{"MATCH (n) RETURN count(*)", "6"},
	{"MATCH (c:Place:City) RETURN c.name ORDER BY c.name", "'Oslo','Paris'"},
	{"MATCH ()-[r]->() RETURN count(r)", "8"},
	{"MATCH (a:Person {id: 1})-[:KNOWS]->(b) RETURN b.id ORDER BY b.id", "1,2,3"},
	{"MATCH (a:Person {id: 1})<-[:KNOWS]-(b) RETURN b.id ORDER BY b.id", "1,3"},
	{"MATCH (a)-[k:KNOWS]->(b) RETURN a.id, b.id, k.since ORDER BY k.since", "1 | 2 | 2001,1 | 3 | 2002,1 | 1 | 2005,2 | 3 | 2010,3 | 1 | 2020"},
	{"MATCH (p:Person) RETURN p.id, p.name, p.age, p.score, p.active, toString(p.born) ORDER BY p.id",
		"1 | 'Ann' | 30 | 1.5 | true | '1990-01-02',2 | 'Bob' | null | 2.0 | false | null,3 | 'Cy, Jr' | 50 | 3.25 | true | '1970-12-31',4 | 'Dee' | 41 | null | null | null"},
	// Types: integer division, float arithmetic, a boolean, a DATE.
	{"MATCH (p:Person {id: 1}) RETURN p.age / 7, p.score * 2, p.active = true, p.born = date('1990-01-02'), p.born.year",
		"4 | 3.0 | true | true | 1990"},
	{"MATCH (p:Person {id: 2}) RETURN keys(p)", "['id', 'name', 'score', 'active']"},
	{"MATCH (c:City)<-[:LIVES_IN]-(p) RETURN c.id, count(p) ORDER BY c.id", "100 | 2,101 | 1"},
	{"CALL db.indexes() YIELD name RETURN name ORDER BY name", "'index_city_id','index_person_id'"},
}

// TestImportParquet: the same graph as CSV files and as Parquet files
// (and as a mix of both) imports to the same database.
func TestImportParquet(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{
		"persons.csv": importPersons,
		"cities.csv":  "id,name\n100,Paris\n101,Oslo\n",
		"knows.csv":   importKnows,
		"lives.csv":   "from,to\n1,100\n2,100\n3,101\n",
	})
	writeParquetGraph(t, in)
	results := map[string][]string{}
	for _, set := range []struct{ name, persons, cities, knows, lives string }{
		{"csv", "persons.csv", "cities.csv", "knows.csv", "lives.csv"},
		{"parquet", "persons.parquet", "cities.parquet", "knows.parquet", "lives.parquet"},
		{"mixed", "persons.parquet", "cities.csv", "knows.csv", "lives.parquet"},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		p := func(f string) string { return filepath.Join(in, f) }
		sum, err := engine.Import(engine.ImportOptions{Dir: dir,
			Nodes: []engine.ImportInput{{Name: "Person", Path: p(set.persons)}, {Name: "City:Place", Path: p(set.cities)}},
			Rels:  []engine.ImportInput{{Name: "KNOWS", Path: p(set.knows)}, {Name: "LIVES_IN", Path: p(set.lives)}},
		})
		if err != nil {
			t.Fatalf("%s: %v", set.name, err)
		}
		if sum.Nodes != 6 || sum.Relationships != 8 {
			t.Fatalf("%s: summary %+v", set.name, sum)
		}
		db, err := engine.Open(dir, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Check(); err != nil {
			t.Fatal(err)
		}
		for _, c := range graphQueries {
			got := strings.Join(mustQuery(t, db, c.q, nil), ",")
			if got != c.want {
				t.Errorf("%s: %s: got %s, want %s", set.name, c.q, got, c.want)
			}
			results[set.name] = append(results[set.name], got)
		}
		db.Close()
	}
}

// TestImportParquetStringKeys: string node keys and timestamps.
func TestImportParquetStringKeys(t *testing.T) {
	in := t.TempDir()
	ts := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	writeParquet(t, in, "users.parquet", 1000,
		pqCol{"id", pqStr, `["u1", "u2"]`},
		pqCol{"joined", ts, `[1600000000000, null]`})
	writeParquet(t, in, "follows.parquet", 1000,
		pqCol{"from", pqStr, `["u1", "u2"]`},
		pqCol{"to", pqStr, `["u2", "u2"]`},
		pqCol{"at", &arrow.TimestampType{Unit: arrow.Second}, `[0, 86401]`})
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := engine.Import(engine.ImportOptions{Dir: dir,
		Nodes: []engine.ImportInput{{Name: "User", Path: filepath.Join(in, "users.parquet")}},
		Rels:  []engine.ImportInput{{Name: "FOLLOWS", Path: filepath.Join(in, "follows.parquet")}},
	}); err != nil {
		t.Fatal(err)
	}
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct{ q, want string }{
		{"MATCH (u:User) RETURN u.id, toString(u.joined), u.joined = datetime('2020-09-13T12:26:40Z') ORDER BY u.id", "'u1' | '2020-09-13T12:26:40Z' | true,'u2' | null | null"},
		{"MATCH (a)-[f:FOLLOWS]->(b) RETURN a.id, b.id, toString(f.at), f.at = localdatetime('1970-01-02T00:00:01') ORDER BY a.id",
			"'u1' | 'u2' | '1970-01-01T00:00' | false,'u2' | 'u2' | '1970-01-02T00:00:01' | true"},
	} {
		if got := strings.Join(mustQuery(t, db, c.q, nil), ","); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
}

// TestImportParquetErrors: bad Parquet input names the file, row, row
// group and column, and leaves no directory behind.
func TestImportParquetErrors(t *testing.T) {
	in := t.TempDir()
	writeParquet(t, in, "p.parquet", 2, pqCol{"id", pqI64, `[1, 2, 3, 2]`})
	writeParquet(t, in, "k.parquet", 2, pqCol{"from", pqI64, `[1, 1, 2]`}, pqCol{"to", pqI64, `[2, 3, 9]`})
	writeFiles(t, in, map[string]string{"not.parquet": "id\n1\n"})
	for _, c := range []struct {
		nodes, rels, want string
	}{
		{"p.parquet", "", "p.parquet: row 4 (row group 1) (column id): duplicate node key 2"},
		{"not.parquet", "", "not.parquet: not a Parquet file or corrupt"},
	} {
		o := engine.ImportOptions{Nodes: []engine.ImportInput{{Name: "P", Path: filepath.Join(in, c.nodes)}}}
		out := t.TempDir()
		o.Dir = filepath.Join(out, "data")
		_, err := engine.Import(o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("error %v, want %q", err, c.want)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Fatalf("failed import left %v", ents)
		}
	}
	writeParquet(t, in, "q.parquet", 2, pqCol{"id", pqI64, `[1, 2, 3]`})
	out := t.TempDir()
	_, err := engine.Import(engine.ImportOptions{Dir: filepath.Join(out, "data"),
		Nodes: []engine.ImportInput{{Name: "P", Path: filepath.Join(in, "q.parquet")}},
		Rels:  []engine.ImportInput{{Name: "K", Path: filepath.Join(in, "k.parquet")}}})
	if want := "k.parquet: row 3 (row group 1) (column to): unknown node key 9"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("failed import left %v", ents)
	}
}

// TestCopyFromParquet: COPY reads Parquet files under the import
// directory like CSV ones, and a bad file changes nothing.
func TestCopyFromParquet(t *testing.T) {
	in := t.TempDir()
	writeParquetGraph(t, in)
	writeParquet(t, in, "bad.parquet", 2, pqCol{"from", pqI64, `[1, 1, 7]`}, pqCol{"to", pqI64, `[2, 2, 1]`})
	db := openTestDBWith(t, engine.Options{ImportDir: in})
	for _, q := range []string{"COPY Person FROM 'persons.parquet'", "COPY `City:Place` FROM 'cities.parquet'",
		"COPY KNOWS FROM 'knows.parquet'", "COPY LIVES_IN FROM 'lives.parquet'"} {
		copySummary(t, db, q)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range graphQueries {
		if strings.HasPrefix(c.q, "CALL db.indexes") {
			continue // COPY creates no index
		}
		if got := strings.Join(mustQuery(t, db, c.q, nil), ","); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	_, err := db.Query(context.Background(), "COPY KNOWS FROM 'bad.parquet'", nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData || !strings.Contains(err.Error(), "bad.parquet: row 3 (row group 1) (column from): unknown node key 7") {
		t.Fatalf("bad file: %v", err)
	}
	if got := mustQuery(t, db, "MATCH ()-[k:KNOWS]->() RETURN count(k)", nil); got[0] != "5" {
		t.Fatalf("bad file left %s relationships", got[0])
	}
	// A key that several nodes carry is an error where a row uses it.
	mustQuery(t, db, "CREATE (:Person {id: 50}), (:Person {id: 50})", nil)
	writeParquet(t, in, "amb.parquet", 2, pqCol{"from", pqI64, `[1, 50]`}, pqCol{"to", pqI64, `[2, 1]`})
	_, err = db.Query(context.Background(), "COPY KNOWS FROM 'amb.parquet'", nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData || !strings.Contains(err.Error(), "amb.parquet: row 2 (row group 0) (column from): the node key 50 names several nodes") {
		t.Fatalf("ambiguous key: %v", err)
	}
}
