package engine_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// copyToKeys are the properties copyToGraph gives, in column order.
var copyToKeys = []string{"id", "i", "f", "b", "s", "d", "lt", "ldt", "dt", "t", "dur", "l"}

// copyToGraph creates n :T nodes with a property of each type COPY … TO
// writes, each absent (null) one time in five but id, their order. It
// returns the properties given.
func copyToGraph(t *testing.T, db *engine.DB, n int) []map[string]vector.Value {
	t.Helper()
	r := rand.New(rand.NewSource(31))
	strs := []string{"", "plain", `with "quotes"`, "comma, inside", "pipe | inside", "ünïcødé ✓", " spaced ", "NULL"}
	var out []map[string]vector.Value
	for k := range n {
		sec, nanos := r.Int63n(8e9)-4e9, int32(r.Intn(1e9))
		var dt temporal.DateTime
		switch k % 3 {
		case 0:
			dt = temporal.DateTime{Sec: sec, Nanos: nanos}
		case 1:
			dt = temporal.DateTime{Sec: sec, Nanos: nanos, Offset: int32(r.Intn(97)-48) * 900}
		default:
			var err error
			if dt, err = temporal.AtInstant(sec, nanos, 0, "Europe/Paris"); err != nil {
				t.Fatal(err)
			}
		}
		var l []vector.Value
		for range r.Intn(4) {
			if r.Intn(5) == 0 {
				l = append(l, nil)
			} else {
				l = append(l, r.Int63n(1000)-500)
			}
		}
		if l == nil {
			l = []vector.Value{}
		}
		all := map[string]vector.Value{
			"id": int64(k), "i": r.Int63() - r.Int63(), "f": r.NormFloat64() * 1e6, "b": r.Intn(2) == 0,
			"s":   strs[r.Intn(len(strs))],
			"d":   temporal.Date{Days: int64(r.Intn(200000) - 100000)},
			"lt":  temporal.LocalTime{Nanos: r.Int63n(temporal.NanosPerDay)},
			"ldt": temporal.LocalDateTime{Sec: sec, Nanos: nanos},
			"dt":  dt,
			"t":   temporal.Time{Nanos: r.Int63n(temporal.NanosPerDay), Offset: int32(r.Intn(97)-48) * 900},
			"dur": temporal.NewDuration(r.Int63n(2000)-1000, r.Int63n(2000)-1000, r.Int63n(1e9)-5e8, r.Int63n(2e9)-1e9),
			"l":   l,
		}
		props := map[string]vector.Value{}
		for key, v := range all {
			if key == "id" || r.Intn(5) != 0 {
				props[key] = v
			}
		}
		mustQuery(t, db, "CREATE (n:T) SET n = $p", engine.Params{"p": props})
		out = append(out, props)
	}
	return out
}

// copyToQuery returns every property of a label as a column, in id order.
func copyToQuery(label string, keys []string) string {
	var cols []string
	for _, k := range keys {
		cols = append(cols, "n."+k+" AS "+k)
	}
	return "MATCH (n:" + label + ") RETURN " + strings.Join(cols, ", ") + " ORDER BY id"
}

func copyTo(t *testing.T, db querier, q string) []string {
	t.Helper()
	rows := mustQuery(t, db, q, nil)
	if len(rows) != 1 {
		t.Fatalf("%s: %v", q, rows)
	}
	return strings.Split(rows[0], " | ")
}

// COPY … TO of every property type, nulls included, read back by the
// importer (COPY … FROM) and by independent readers: arrow-go's pqarrow
// for Parquet, encoding/csv for CSV. The test runs at batch sizes 1024
// and 2 (make test-batch2); the file's types do not depend on it.
func TestCopyToTypes(t *testing.T) {
	dir := t.TempDir()
	db := openTestDBWith(t, engine.Options{ExportDir: dir})
	const n = 300
	props := copyToGraph(t, db, n)
	want := mustQuery(t, db, copyToQuery("T", copyToKeys), nil)

	// Parquet, in row groups of 64 and 7 rows, every compression.
	for _, o := range []string{"", " (ROW_GROUP_SIZE = 64, COMPRESSION = 'zstd')", " (COMPRESSION = 'none', ROW_GROUP_SIZE = 7)"} {
		got := copyTo(t, db, "COPY ("+copyToQuery("T", copyToKeys)+") TO 'all.parquet'"+o)
		path := filepath.Join(dir, "all.parquet")
		fi, err := os.Stat(path)
		if err != nil || got[0] != "'"+path+"'" || got[1] != strconv.Itoa(n) || got[2] != strconv.FormatInt(fi.Size(), 10) {
			t.Fatalf("answer %v, file %v %v", got, fi, err)
		}
		checkParquet(t, path, props)
		back := openTestDBWith(t, engine.Options{ImportDir: dir})
		mustQuery(t, back, "COPY Back FROM 'all.parquet'", nil)
		if again := mustQuery(t, back, copyToQuery("Back", copyToKeys), nil); !slices.Equal(again, want) {
			t.Fatalf("%s: read back by the importer:\n%v\nwant\n%v", o, again[:3], want[:3])
		}
	}

	// CSV: a list is its JSON text; the rest reads back typed.
	got := copyTo(t, db, "COPY ("+copyToQuery("T", copyToKeys)+") TO 'all.csv'")
	if got[1] != strconv.Itoa(n) {
		t.Fatalf("answer %v", got)
	}
	checkCSV(t, filepath.Join(dir, "all.csv"), ',', props)
	back := openTestDBWith(t, engine.Options{ImportDir: dir})
	mustQuery(t, back, "COPY Back FROM 'all.csv'", nil)
	scalars := copyToKeys[:len(copyToKeys)-1]
	if again, want := mustQuery(t, back, copyToQuery("Back", scalars), nil), mustQuery(t, db, copyToQuery("T", scalars), nil); !slices.Equal(again, want) {
		t.Fatalf("CSV read back by the importer:\n%v\nwant\n%v", again[:3], want[:3])
	}
	copyTo(t, db, "COPY ("+copyToQuery("T", copyToKeys)+") TO 'pipes.txt' (FORMAT = 'csv', DELIMITER = '|', HEADER = false)")
	checkCSV(t, filepath.Join(dir, "pipes.txt"), '|', props)
}

// checkParquet reads the file with pqarrow and compares every cell with
// the properties given.
func checkParquet(t *testing.T, path string, props []map[string]vector.Value) {
	t.Helper()
	tbl := readParquetTable(t, path)
	defer tbl.Release()
	wantTypes := []string{"int64", "int64", "float64", "bool", "utf8", "date32", "time64[ns]", "timestamp[ns]", "utf8", "utf8", "utf8", "list<element: int64, nullable>"}
	if int(tbl.NumRows()) != len(props) || int(tbl.NumCols()) != len(copyToKeys) {
		t.Fatalf("%d rows, %d columns", tbl.NumRows(), tbl.NumCols())
	}
	for c, key := range copyToKeys {
		col := tbl.Column(c)
		if col.Name() != key || col.DataType().String() != wantTypes[c] {
			t.Fatalf("column %d: %s %s, want %s %s", c, col.Name(), col.DataType(), key, wantTypes[c])
		}
		row := 0
		for _, chunk := range col.Data().Chunks() {
			for i := 0; i < chunk.Len(); i, row = i+1, row+1 {
				v, ok := props[row][key]
				if chunk.IsNull(i) != !ok {
					t.Fatalf("%s row %d: null %v, value %v", key, row, chunk.IsNull(i), v)
				}
				if !ok {
					continue
				}
				var got, want any = nil, v
				switch a := chunk.(type) {
				case *array.Int64:
					got = a.Value(i)
				case *array.Float64:
					got = a.Value(i)
				case *array.Boolean:
					got = a.Value(i)
				case *array.String:
					got = a.Value(i)
					switch x := v.(type) {
					case temporal.Duration:
						want = exactDuration(x)
					case interface{ String() string }:
						want = x.String()
					}
				case *array.Date32:
					got, want = int64(a.Value(i)), v.(temporal.Date).Days
				case *array.Time64:
					got, want = int64(a.Value(i)), v.(temporal.LocalTime).Nanos
				case *array.Timestamp:
					x := v.(temporal.LocalDateTime)
					got, want = int64(a.Value(i)), x.Sec*1e9+int64(x.Nanos)
				case *array.List:
					start, end := a.ValueOffsets(i)
					var l []vector.Value
					for j := start; j < end; j++ {
						if a.ListValues().IsNull(int(j)) {
							l = append(l, nil)
						} else {
							l = append(l, a.ListValues().(*array.Int64).Value(int(j)))
						}
					}
					if l == nil {
						l = []vector.Value{}
					}
					got = strings.TrimSpace(formatList(l))
					want = formatList(v.([]vector.Value))
				default:
					t.Fatalf("%s: %T", key, chunk)
				}
				if got != want {
					t.Fatalf("%s row %d: %v, want %v", key, row, got, want)
				}
			}
		}
	}
}

func formatList(l []vector.Value) string {
	b, _ := json.Marshal(l)
	return string(b)
}

// exactDuration is a DURATION as the files write it (P<months>M<days>DT<seconds>S).
func exactDuration(d temporal.Duration) string {
	sec := strconv.FormatInt(d.Seconds, 10) + "." + leftPad(d.Nanos)
	if d.Seconds < 0 && d.Nanos > 0 {
		sec = "-" + strconv.FormatInt(-(d.Seconds+1), 10) + "." + leftPad(1_000_000_000-d.Nanos)
	}
	return "P" + strconv.FormatInt(d.Months, 10) + "M" + strconv.FormatInt(d.Days, 10) + "DT" + sec + "S"
}

func leftPad[N int32 | int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	return strings.Repeat("0", 9-len(s)) + s
}

// checkCSV reads the file with encoding/csv and compares every field
// with the properties given: null is an empty field, a string is
// quoted, a list its JSON text.
func checkCSV(t *testing.T, path string, delim rune, props []map[string]vector.Value) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = delim
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if delim == ',' {
		header := "id:INT64,i:INT64,f:DOUBLE,b:BOOLEAN,s:STRING,d:DATE,lt:LOCALTIME,ldt:LOCALDATETIME,dt:DATETIME,t:TIME,dur:DURATION,l:STRING"
		if strings.Join(recs[0], ",") != header {
			t.Fatalf("header %v", recs[0])
		}
		recs = recs[1:]
	}
	if len(recs) != len(props) {
		t.Fatalf("%d records", len(recs))
	}
	for row, rec := range recs {
		for c, key := range copyToKeys {
			v, ok := props[row][key]
			var want string
			switch x := v.(type) {
			case nil:
			case int64:
				want = strconv.FormatInt(x, 10)
			case float64:
				want = strconv.FormatFloat(x, 'g', -1, 64)
			case bool:
				want = strconv.FormatBool(x)
			case string:
				want = x
			case temporal.LocalDateTime, temporal.DateTime:
				want = x.(interface{ String() string }).String()
			case temporal.Duration:
				want = exactDuration(x)
			case []vector.Value:
				want = formatList(x)
			default:
				want = x.(interface{ String() string }).String()
			}
			if !ok {
				want = ""
			}
			if rec[c] != want {
				t.Fatalf("%s row %d: %q, want %q", key, row, rec[c], want)
			}
		}
	}
}

// Nodes, relationships, paths, maps and a column of mixed values are
// JSON text, the same in Parquet and CSV: the JSON answer's forms, the
// properties' keys sorted.
func TestCopyToEntities(t *testing.T) {
	dir := t.TempDir()
	db := openTestDBWith(t, engine.Options{ExportDir: dir})
	mustQuery(t, db, "CREATE (:A {x: 1, name: 'one'})-[:R {w: 0.5}]->(:B {d: date('2024-02-29')}), (:A {x: 2})-[:R]->(:B)", nil)
	q := "MATCH p = (a:A)-[r:R]->(b:B) RETURN a.x AS x, a, r, p, {x: a.x, y: [1, 'two', null]} AS m, CASE WHEN a.x > 1 THEN a.x ELSE 'small' END AS mixed ORDER BY x"
	copyTo(t, db, "COPY ("+q+") TO 'e.parquet'")
	copyTo(t, db, "COPY ("+q+") TO 'e.csv'")

	tbl := readParquetTable(t, filepath.Join(dir, "e.parquet"))
	defer tbl.Release()
	f, err := os.Open(filepath.Join(dir, "e.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "x:INT64,a:STRING,r:STRING,p:STRING,m:STRING,mixed:STRING" {
		t.Fatalf("header %s", got)
	}
	cell := func(c, row int) string {
		col := tbl.Column(c)
		if col.DataType().ID() != arrow.STRING {
			t.Fatalf("column %s is %s", col.Name(), col.DataType())
		}
		s := col.Data().Chunk(0).(*array.String).Value(row)
		if recs[row+1][c] != s {
			t.Fatalf("column %s row %d: Parquet %s, CSV %s", col.Name(), row, s, recs[row+1][c])
		}
		return s
	}
	var node struct {
		ID         uint64         `json:"id"`
		Labels     []string       `json:"labels"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal([]byte(cell(1, 0)), &node); err != nil || !slices.Equal(node.Labels, []string{"A"}) || node.Properties["name"] != "one" || node.Properties["x"] != 1.0 {
		t.Fatalf("node %+v %v", node, err)
	}
	if got := cell(2, 0); !strings.HasPrefix(got, `{"id":`) || !strings.Contains(got, `"type":"R"`) || !strings.HasSuffix(got, `"properties":{"w":0.5}}`) {
		t.Fatalf("relationship %s", got)
	}
	var path struct {
		Nodes []struct {
			Properties map[string]any `json:"properties"`
		} `json:"nodes"`
		Rels []struct{ Type string } `json:"relationships"`
	}
	if err := json.Unmarshal([]byte(cell(3, 0)), &path); err != nil || len(path.Nodes) != 2 || len(path.Rels) != 1 || path.Rels[0].Type != "R" || path.Nodes[1].Properties["d"] != "2024-02-29" {
		t.Fatalf("path %+v %v", path, err)
	}
	for row, want := range []string{`{"x":1,"y":[1,"two",null]}`, `{"x":2,"y":[1,"two",null]}`} {
		if got := cell(4, row); got != want {
			t.Fatalf("map row %d: %s", row, got)
		}
	}
	for row, want := range []string{`"small"`, `2`} {
		if got := cell(5, row); got != want {
			t.Fatalf("mixed row %d: %s", row, got)
		}
	}

	// No rows: a file with the columns and nothing else.
	if got := copyTo(t, db, "COPY (MATCH (n:Nothing) RETURN n.x AS x, 1 AS one) TO 'empty.parquet'"); got[1] != "0" {
		t.Fatalf("%v", got)
	}
	rdr2, err := file.OpenParquetFile(filepath.Join(dir, "empty.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr2.Close()
	if rdr2.NumRows() != 0 || rdr2.MetaData().Schema.NumColumns() != 2 {
		t.Fatalf("%d rows, %d columns", rdr2.NumRows(), rdr2.MetaData().Schema.NumColumns())
	}
	copyTo(t, db, "COPY (MATCH (n:Nothing) RETURN n.x AS x, 1 AS one) TO 'empty.csv'")
	if b, err := os.ReadFile(filepath.Join(dir, "empty.csv")); err != nil || string(b) != "x:STRING,one:INT64\n" {
		t.Fatalf("%q %v", b, err)
	}
}

// COPY … TO writes only under the export directory, as an admin, and is
// audited; a query that fails partway, or outgrows its memory, leaves
// no file.
func TestCopyToRefusals(t *testing.T) {
	base := t.TempDir()
	exports, outside := filepath.Join(base, "exports"), filepath.Join(base, "outside")
	for _, d := range []string{exports, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(exports, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f.csv"), filepath.Join(exports, "f.csv")); err != nil {
		t.Fatal(err)
	}
	trail := &auditLog{}
	db := openTestDBWith(t, engine.Options{ExportDir: exports, Auditor: trail})
	ctx := context.Background()
	run := func(ctx context.Context, db *engine.DB, q string) error {
		res, err := db.NewSession().Run(ctx, engine.ModeAsWritten, q, nil)
		if err == nil {
			_, err = drain(res)
		}
		return err
	}
	refused := func(ctx context.Context, db *engine.DB, q, code, msg string) {
		t.Helper()
		e, ok := errs.As(run(ctx, db, q))
		if !ok || e.Code != code || !strings.Contains(e.Message, msg) {
			t.Errorf("%s: %v, want %s (%s)", q, e, code, msg)
		}
	}
	const rows = "UNWIND range(1, 5000) AS i RETURN i"
	refused(ctx, db, "COPY ("+rows+") TO '../outside/x.csv'", errs.CodePermission, "outside the export directory")
	refused(ctx, db, "COPY ("+rows+") TO '"+filepath.Join(outside, "x.csv")+"'", errs.CodePermission, "outside the export directory")
	refused(ctx, db, "COPY ("+rows+") TO 'link/x.csv'", errs.CodePermission, "outside the export directory")
	refused(ctx, db, "COPY ("+rows+") TO 'f.csv'", errs.CodePermission, "symbolic link")
	refused(ctx, db, "COPY ("+rows+") TO 'x.json'", errs.CodeInvalidParam, "extension")
	refused(ctx, db, "COPY ("+rows+") TO 'x.csv' (COMPRESSION = 'zstd')", errs.CodeInvalidParam, "Parquet")
	for _, p := range []*engine.Principal{reader, editor, nobody} {
		refused(engine.WithPrincipal(ctx, p), db, "COPY ("+rows+") TO 'x.csv'", errs.CodePermission, "")
	}
	refused(ctx, openTestDB(t), "COPY ("+rows+") TO 'x.csv'", errs.CodePermission, "--export-dir")
	// Failures after rows were written: a division by zero at row 4000,
	// a value of another type after the first row group, the memory
	// limit. The row groups are written as they fill.
	refused(ctx, db, "COPY (UNWIND range(1, 5000) AS i RETURN i, 1 / (4000 - i) AS x) TO 'x.parquet' (ROW_GROUP_SIZE = 100)", "22012", "")
	refused(ctx, db, "COPY (UNWIND range(1, 5000) AS i RETURN CASE WHEN i < 4000 THEN i ELSE 'late' END AS x) TO 'x.csv' (ROW_GROUP_SIZE = 1000)", errs.CodeData, "column x")
	s := db.NewSession()
	mustQuery(t, s, "SET max_memory_per_query = 2000000", nil)
	res, err := s.Query(ctx, "COPY (UNWIND range(1, 200000) AS i RETURN [i, 'padding padding padding'] AS x) TO 'x.parquet'", nil)
	if err == nil {
		_, err = drain(res)
	}
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("memory: %v, want 53200", err)
	}
	for _, d := range []string{exports, outside} {
		if names, _ := os.ReadDir(d); len(names) != 2 && d == exports || len(names) > 0 && d == outside {
			t.Fatalf("a refused COPY TO wrote into %s: %v", d, names)
		}
	}
	// The same rows in row groups of 256, as an admin: written.
	got := copyTo(t, db.NewSession(), "COPY (UNWIND range(1, 200000) AS i RETURN [i, 'padding padding padding'] AS x) TO 'x.parquet' (ROW_GROUP_SIZE = 256)")
	if got[1] != "200000" {
		t.Fatalf("%v", got)
	}
	// EXPLAIN shows the query's plan and writes nothing.
	res, err = db.Query(ctx, "EXPLAIN COPY (MATCH (n) RETURN n.x AS x ORDER BY x) TO 'plan.parquet'", nil)
	if err != nil {
		t.Fatal(err)
	}
	drain(res)
	if ex := res.Plan(); ex == nil || ex.Root == nil || ex.Root.Operator == "" {
		t.Fatalf("EXPLAIN COPY: %+v", ex)
	}
	if _, err := os.Stat(filepath.Join(exports, "plan.parquet")); err == nil {
		t.Fatal("EXPLAIN COPY wrote its file")
	}
	var audit []string
	for _, e := range trail.take() {
		if e.Category == "admin" {
			audit = append(audit, e.Action+" "+e.Outcome+" "+e.Detail)
		}
	}
	if len(audit) < 3 || audit[0] != "copy_to denied ../outside/x.csv" || audit[len(audit)-1] != "copy_to success x.parquet" {
		t.Errorf("audit trail %q", audit)
	}
}

// readParquetTable reads a Parquet file whole with arrow-go's reader, an
// independent one; the caller releases the table.
func readParquetTable(t *testing.T, path string) arrow.Table {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
