package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DuckDB drives bench/duckdb/run.js, a Node.js process holding one DuckDB
// database in process (npm @duckdb/node-api), over the line protocol
// run.js describes: the same one as the Kùzu runner's, so DuckDB is timed
// in the same run as Quiver and Kùzu.
type DuckDB struct{ nodeRunner }

// DuckDBAnswer is one line of run.js's output, its rows normalised by
// their column types (NormalizeDuckDB).
type DuckDBAnswer struct {
	peerAnswer
	Columns []string
	Types   []string
	Rows    Rows
}

// The tables the Person/KNOWS data set loads into: a node table and an
// edge table whose endpoints are the node table's ids. Every suite's SQL
// form (Query.SQL) is written over them.
var duckDBDDL = []string{
	"CREATE TABLE person(id BIGINT PRIMARY KEY, name VARCHAR, age BIGINT, city VARCHAR)",
	"CREATE TABLE knows(src BIGINT, dst BIGINT, since BIGINT)",
}

// DuckDBCopies are the COPY … FROM statements of the Person/KNOWS data
// set's files in dir (Generate's persons.csv and knows.csv: their header
// row is skipped, columns are taken by position).
func DuckDBCopies(dir string) (nodes, rels []string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	copyOf := func(table, file string) string {
		p := strings.ReplaceAll(filepath.Join(abs, file), "'", "''")
		return fmt.Sprintf("COPY %s FROM '%s' (HEADER true)", table, p)
	}
	return []string{copyOf("person", PersonsCSV)}, []string{copyOf("knows", KnowsCSV)}, nil
}

// StartDuckDB starts node on run.js in dir (bench/duckdb, npm-installed).
func StartDuckDB(dir string) (*DuckDB, error) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		return nil, fmt.Errorf("DuckDB runner: %s is not installed (make bench-duckdb): %w", dir, err)
	}
	r, err := startNodeRunner("DuckDB", dir)
	if err != nil {
		return nil, err
	}
	return &DuckDB{r}, nil
}

// Load creates the node and edge tables in a new database file dbPath
// and COPYs the Person/KNOWS data set in dir into them: the node file's
// COPY is timed as the node phase, the edge file's as the edge phase.
func (d *DuckDB) Load(dbPath, dir string) (DuckDBAnswer, error) {
	nodes, rels, err := DuckDBCopies(dir)
	if err != nil {
		return DuckDBAnswer{}, err
	}
	return d.call(map[string]any{"op": "load", "db": dbPath, "ddl": duckDBDDL, "nodes": nodes, "rels": rels})
}

// Query runs one SQL statement; the answer carries DuckDB's time and rows.
func (d *DuckDB) Query(sql string) (DuckDBAnswer, error) {
	return d.call(map[string]any{"op": "query", "text": sql})
}

func (d *DuckDB) call(req map[string]any) (DuckDBAnswer, error) {
	line, err := d.roundTrip(req)
	if err != nil {
		return DuckDBAnswer{}, err
	}
	return ParseDuckDBAnswer(line)
}

// ParseDuckDBAnswer decodes one output line of run.js; a {"ok":false}
// answer becomes an error.
func ParseDuckDBAnswer(line []byte) (DuckDBAnswer, error) {
	var raw struct {
		DuckDBAnswer
		Columns []string `json:"columns"`
		Types   []string `json:"types"`
		Rows    [][]any  `json:"rows"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return DuckDBAnswer{}, fmt.Errorf("duckdb runner: bad answer %q: %w", line, err)
	}
	a := raw.DuckDBAnswer
	if !a.OK {
		return a, fmt.Errorf("duckdb: %s", a.Error)
	}
	a.Columns, a.Types = raw.Columns, raw.Types
	for _, r := range raw.Rows {
		if len(r) != len(a.Types) {
			return a, fmt.Errorf("duckdb runner: a row of %d cells under %d column types", len(r), len(a.Types))
		}
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = NormalizeDuckDB(c, a.Types[i])
		}
		a.Rows = append(a.Rows, row)
	}
	return a, nil
}

// NormalizeDuckDB maps one cell of run.js's JSON rows, of DuckDB column
// type typ, to Normalize's comparable form. Integer columns arrive as
// decimal strings (BIGINT, HUGEINT: exact past 2^53) or numbers, DECIMAL
// as strings; a string of any other column (VARCHAR) stays a string. A
// list's elements are normalised by its element type.
func NormalizeDuckDB(v any, typ string) any {
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		xs, isList := v.([]any)
		if !isList {
			return Normalize(v)
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = NormalizeDuckDB(x, elem)
		}
		return out
	}
	s, isString := v.(string)
	if !isString || !duckDBNumeric(typ) {
		return Normalize(v)
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return Normalize(f)
	}
	return s
}

// duckDBNumeric reports whether a DuckDB type's JSON form may be a
// string holding a number.
func duckDBNumeric(typ string) bool {
	switch typ {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
		"UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE":
		return true
	}
	return strings.HasPrefix(typ, "DECIMAL")
}
