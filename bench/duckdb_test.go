package bench

import (
	"slices"
	"strings"
	"testing"
)

// Every query of the suites over the Person/KNOWS graph has its SQL form
// but the variable-length and shortest paths, which have none.
func TestSQLForms(t *testing.T) {
	noSQL := []string{"Q6", "Q7", "W27", "W28"}
	for _, suite := range [][]Query{Suite, WideSuite} {
		for _, q := range suite {
			want := !slices.Contains(noSQL, q.Name)
			if got := q.SQL != ""; got != want {
				t.Errorf("%s: has a SQL form %v, want %v", q.Name, got, want)
			}
			if q.SQL == "" {
				continue
			}
			if !strings.HasPrefix(q.SQL, "SELECT ") && !strings.HasPrefix(q.SQL, "WITH ") {
				t.Errorf("%s: SQL form %q is not a query", q.Name, q.SQL)
			}
			// Only the loaded tables, and an ordered answer stays ordered.
			if !strings.Contains(q.SQL, " person") && !strings.Contains(q.SQL, " knows") {
				t.Errorf("%s: SQL form reads neither person nor knows: %q", q.Name, q.SQL)
			}
			if (q.TopK != nil || q.Ordered) && !strings.Contains(q.SQL, "ORDER BY") {
				t.Errorf("%s: ordered in GQL, not in SQL: %q", q.Name, q.SQL)
			}
		}
	}
	for _, q := range SNBSuite {
		if q.SQL != "" {
			t.Errorf("%s: the SNB-like data set has no DuckDB tables, yet a SQL form", q.Name)
		}
	}
}

// run.js's rows are getRowsJson's: BIGINT and HUGEINT as strings, DOUBLE
// as numbers, VARCHAR as strings (a numeric one stays a string), lists as
// arrays; each reads back as Quiver's value.
func TestParseDuckDBAnswer(t *testing.T) {
	line := `{"ok":true,"ms":1.5,"columns":["a","s","m","c","n","l","big","v"],` +
		`"types":["BIGINT","HUGEINT","DOUBLE","VARCHAR","BIGINT","BIGINT[]","BIGINT","VARCHAR"],` +
		`"rows":[["42","123456789012","2.5","City001",null,["1","2"],"9007199254740993","007"]]}`
	a, err := ParseDuckDBAnswer([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if a.MS != 1.5 || len(a.Rows) != 1 {
		t.Fatalf("answer %+v", a)
	}
	want := []any{int64(42), int64(123456789012), 2.5, "City001", nil, []any{int64(1), int64(2)}, int64(9007199254740993), "007"}
	got := a.Rows[0]
	if !rowEqual(got, want) {
		t.Errorf("row %#v, want %#v", got, want)
	}
	// A DOUBLE that is integral compares as Quiver's integer (an average).
	b, err := ParseDuckDBAnswer([]byte(`{"ok":true,"ms":1,"columns":["m"],"types":["DOUBLE"],"rows":[[70]]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := ComparePeer(Query{Name: "W06"}, "DuckDB", Rows{{int64(70)}}, b.Rows); err != nil {
		t.Error(err)
	}
	if _, err := ParseDuckDBAnswer([]byte(`{"ok":false,"error":"Binder Error: no column x"}`)); err == nil || !strings.Contains(err.Error(), "Binder Error") {
		t.Errorf("a failed answer: %v", err)
	}
	if _, err := ParseDuckDBAnswer([]byte(`{"ok":true,"columns":["a"],"types":["BIGINT"],"rows":[["1","2"]]}`)); err == nil {
		t.Error("a row wider than its types parsed")
	}
}

// Lists compare element by element, whatever side they came from.
func TestCompareLists(t *testing.T) {
	q := Query{Name: "L"}
	quiver := Rows{{Normalize([]any{1.0, "x"})}}
	if err := ComparePeer(q, "DuckDB", quiver, Rows{{[]any{int64(1), "x"}}}); err != nil {
		t.Error(err)
	}
	err := ComparePeer(q, "DuckDB", quiver, Rows{{[]any{int64(1), "y"}}})
	if err == nil || !strings.Contains(err.Error(), "\nDuckDB: ") {
		t.Errorf("different lists: %v", err)
	}
	if err := ComparePeer(q, "DuckDB", quiver, Rows{{"[1 x]"}}); err == nil {
		t.Error("a list and its text compared equal")
	}
}

// With DuckDB in the run, the queries table gains its time and the two
// ratios, the queries without a SQL form show a dash, and a line counts
// where Quiver is slower.
func TestWriteMarkdownDuckDB(t *testing.T) {
	r := &Report{
		Config:        Config{Scale: Scales["S"], Runs: 1, Loader: CypherLoader{}},
		KuzuVersion:   "0.11.3",
		DuckDBVersion: "v1.5.6",
		DuckDBLoad:    LoadTimes{NodesMS: 30, EdgesMS: 70},
		DuckDBDisk:    5 << 20,
		Queries: []QueryReport{
			{Query: Suite[0], EmbeddedMS: []float64{2}, HTTPMS: []float64{4}, KuzuMS: []float64{8}, DuckDBMS: []float64{1}, Answer: Rows{{int64(5)}}},
			{Query: Suite[2], EmbeddedMS: []float64{2}, HTTPMS: []float64{4}, KuzuMS: []float64{8}, DuckDBMS: []float64{8}, Answer: Rows{{int64(9)}}},
			{Query: Suite[6], EmbeddedMS: []float64{2}, HTTPMS: []float64{2}, KuzuMS: []float64{1}, Answer: Rows{{int64(4)}}},
		},
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| DuckDB | v1.5.6 (npm `@duckdb/node-api`",
		"| Query | Quiver embedded | Quiver HTTP | Kùzu | ratio embedded/Kùzu | ratio HTTP/Kùzu | DuckDB | ratio embedded/DuckDB | ratio HTTP/DuckDB | answer |",
		"| Q1 | 2.00 | 4.00 | 8.00 | 0.250 | 0.500 | 1.00 | 2.000 | 4.000 | [[5]] |",
		"| Q3 | 2.00 | 4.00 | 8.00 | 0.250 | 0.500 | 8.00 | 0.250 | 0.500 | [[9]] |",
		"| Q7 | 2.00 | 2.00 | 1.00 | 2.000 | 2.000 | – | – | – | [[4]] |",
		// Kùzu's means over the three, DuckDB's over Q1 and Q3: sqrt(2*0.25), sqrt(4*0.5).
		"| geometric mean | | | | 0.500 | 0.794 | | 0.707 | 1.414 | |",
		"Quiver is slower than DuckDB on 1 of the 2 queries with a SQL form embedded (Q1 2.000), 1 over HTTP (Q1 4.000).",
		"| load total (ms) | 0 | 0 | 100 |",
		"| on-disk size | none: loaded in memory, nothing written | 0 B | 5.0 MiB |",
		"  - SQL: `SELECT count(*) FROM person WHERE age > 30`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
	// Without DuckDB the report keeps its Kùzu-only columns.
	r.DuckDBVersion = ""
	b.Reset()
	WriteMarkdown(&b, r)
	if strings.Contains(b.String(), "ratio embedded/DuckDB") || strings.Contains(b.String(), "slower than DuckDB") {
		t.Errorf("a run without DuckDB reports it:\n%s", b.String())
	}
}

// The load reads the generator's two files into the node and edge tables.
func TestDuckDBCopies(t *testing.T) {
	nodes, rels, err := DuckDBCopies("/data/S-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"COPY person FROM '/data/S-1/persons.csv' (HEADER true)"}; !slices.Equal(nodes, want) {
		t.Errorf("nodes %q, want %q", nodes, want)
	}
	if want := []string{"COPY knows FROM '/data/S-1/knows.csv' (HEADER true)"}; !slices.Equal(rels, want) {
		t.Errorf("relationships %q, want %q", rels, want)
	}
}
