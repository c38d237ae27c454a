package load

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// pqc is a test column: name, Arrow type, values as a JSON array (null
// for a missing value), and whether the column is REQUIRED.
type pqc struct {
	name string
	typ  arrow.DataType
	json string
	req  bool
}

// writeParquet writes cols as a Parquet file with row groups of at most
// rowGroup rows, through pqarrow (as Arrow-based tools write files).
func writeParquet(t testing.TB, path string, rowGroup int64, props *parquet.WriterProperties, cols ...pqc) {
	t.Helper()
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, c := range cols {
		a, _, err := array.FromJSON(memory.DefaultAllocator, c.typ, strings.NewReader(c.json))
		if err != nil {
			t.Fatalf("column %s: %v", c.name, err)
		}
		defer a.Release()
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: !c.req})
		arrs = append(arrs, a)
	}
	sch := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(sch, arrs, int64(arrs[0].Len()))
	defer rec.Release()
	tbl := array.NewTableFromRecords(sch, []arrow.RecordBatch{rec})
	defer tbl.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, rowGroup, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func nodeTable(t *testing.T, path string) (*table, error) {
	t.Helper()
	tb, _, err := readTable(Input{Name: "P", Path: path}, &Options{}, false, nil)
	return tb, err
}

// writeTextParquet writes a Parquet file of cols whose metadata types
// some string columns as temporal text (quiver export's quiver.types).
func writeTextParquet(tb testing.TB, path, types string, cols ...pqc) {
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, c := range cols {
		a, _, err := array.FromJSON(memory.DefaultAllocator, c.typ, strings.NewReader(c.json))
		if err != nil {
			tb.Fatal(err)
		}
		defer a.Release()
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: true})
		arrs = append(arrs, a)
	}
	md := arrow.NewMetadata([]string{typesKey}, []string{types})
	sch := arrow.NewSchema(fields, &md)
	rec := array.NewRecordBatch(sch, arrs, int64(arrs[0].Len()))
	defer rec.Release()
	tbl := array.NewTableFromRecords(sch, []arrow.RecordBatch{rec})
	defer tbl.Release()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 2, nil, pqarrow.DefaultWriterProps()); err != nil {
		tb.Fatal(err)
	}
	f.Close()
}

// A column the metadata types as DATETIME or TIME (as quiver export
// writes zoned values) is parsed from its strings; metadata that names
// another type, or a column that does not hold strings, is an error.
func TestParquetTextTypes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, types string, cols ...pqc) string {
		path := filepath.Join(dir, name)
		writeTextParquet(t, path, types, cols...)
		return path
	}
	str := arrow.BinaryTypes.String
	ok := write("ok.parquet", `{"at": "DATETIME", "t": "TIME", "l": "DATETIME", "d": "DURATION"}`,
		pqc{"id", arrow.PrimitiveTypes.Int64, `[1, 2, 3]`, true},
		pqc{"at", str, `["2020-01-02T03:04:05.5+01:00[Europe/Paris]", null, "1969-12-31T23:59:59Z"]`, false},
		pqc{"t", str, `[null, "12:00:00-02:30", "00:00:00Z"]`, false},
		pqc{"l", arrow.ListOf(str), `[["1970-01-01T00:00+05:30"], [], null]`, false},
		pqc{"s", str, `["2020-01-01T00:00Z", "x", null]`, false}, // not named: strings
		pqc{"d", str, `["P14M-3DT-0.000000001S", "P1Y2DT3.5S", "P0M0DT12345678901.123456789S"]`, false},
	)
	tb, err := nodeTable(t, ok)
	if err != nil {
		t.Fatal(err)
	}
	bn, err := nodeSet(tb, Input{Name: "P", Path: ok}, &keyMap{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	paris, err := temporal.ParseDateTime("2020-01-02T03:04:05.5+01:00[Europe/Paris]")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]vector.Value{
		"at": {paris, nil, temporal.DateTime{Sec: -1}},
		"t":  {nil, temporal.Time{Nanos: 12 * 3600 * temporal.NanosPerSecond, Offset: -9000}, temporal.Time{}},
		"l":  {[]vector.Value{temporal.DateTime{Sec: -19800, Offset: 19800}}, []vector.Value{}, nil},
		"s":  {"2020-01-01T00:00Z", "x", nil},
		"d": {temporal.NewDuration(14, -3, 0, -1), temporal.NewDuration(12, 2, 3, 500_000_000),
			temporal.NewDuration(0, 0, 12345678901, 123456789)},
	}
	for _, c := range bn.Cols {
		for r, w := range want[c.Key] {
			if got := c.Value(r); !reflect.DeepEqual(got, w) {
				t.Errorf("%s row %d: %#v, want %#v", c.Key, r, got, w)
			}
		}
	}
	for _, c := range []struct {
		types string
		col   pqc
		want  string
	}{
		{`{"at": "INTERVAL"}`, pqc{"at", str, `["P1D"]`, false}, `gives the type "INTERVAL"`},
		{`{"at": "DATETIME"}`, pqc{"at", arrow.PrimitiveTypes.Int64, `[1]`, false}, "not a property column of strings"},
		{`{"at": "DATETIME"}`, pqc{"at", str, `["yesterday"]`, false}, `row 1 (row group 0) (column at): "yesterday" is not a DATETIME`},
		{`not json`, pqc{"at", str, `["x"]`, false}, "not a JSON object"},
	} {
		path := write("bad.parquet", c.types, pqc{"id", arrow.PrimitiveTypes.Int64, `[1]`, true}, c.col)
		if _, err := nodeTable(t, path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.types, err, c.want)
		}
	}
}

// A LIST of scalars, as Arrow writes it, is a LIST property: null lists
// are no property, empty lists and null elements are kept, across row
// groups, for elements of each kind.
func TestParquetLists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.parquet")
	writeParquet(t, path, 2, nil,
		pqc{"id", arrow.PrimitiveTypes.Int64, `[1, 2, 3, 4, 5]`, true},
		pqc{"ints", arrow.ListOf(arrow.PrimitiveTypes.Int64), `[[1, 2], null, [], [null, 3], [4]]`, false},
		pqc{"strs", arrow.ListOf(arrow.BinaryTypes.String), `[["a"], ["", null, "c"], null, [], null]`, false},
		pqc{"dates", arrow.ListOf(arrow.FixedWidthTypes.Date32), `[[19000, -1], null, null, null, []]`, false},
		pqc{"ts", arrow.ListOf(&arrow.TimestampType{Unit: arrow.Nanosecond}), `[null, [1], null, null, [86400000000001]]`, false},
		pqc{"req", arrow.ListOfNonNullable(arrow.PrimitiveTypes.Float64), `[[1.5], [], [2, 3], null, [0]]`, false},
	)
	tb, err := nodeTable(t, path)
	if err != nil {
		t.Fatal(err)
	}
	bn, err := nodeSet(tb, Input{Name: "P", Path: path}, &keyMap{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	L := func(v ...vector.Value) []vector.Value { return append([]vector.Value{}, v...) }
	want := map[string][]vector.Value{
		"ints":  {L(int64(1), int64(2)), nil, L(), L(nil, int64(3)), L(int64(4))},
		"strs":  {L("a"), L("", nil, "c"), nil, L(), nil},
		"dates": {L(temporal.Date{Days: 19000}, temporal.Date{Days: -1}), nil, nil, nil, L()},
		"ts":    {nil, L(temporal.LocalDateTime{Nanos: 1}), nil, nil, L(temporal.LocalDateTime{Sec: 86400, Nanos: 1})},
		"req":   {L(1.5), L(), L(2.0, 3.0), nil, L(0.0)},
	}
	for _, c := range bn.Cols {
		w, ok := want[c.Key]
		if !ok {
			continue
		}
		for r := range w {
			if got := c.Value(r); !reflect.DeepEqual(got, w[r]) {
				t.Errorf("%s row %d: %#v, want %#v", c.Key, r, got, w[r])
			}
		}
	}
}

// TestParquetTypes reads every supported type, with nulls, and checks
// each value as the store will receive it.
func TestParquetTypes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.parquet")
	tsUTC := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	writeParquet(t, path, 2, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd)),
		pqc{"id", arrow.PrimitiveTypes.Int32, `[1, 2, 3]`, true},
		pqc{"i8", arrow.PrimitiveTypes.Int8, `[-5, null, 127]`, false},
		pqc{"u32", arrow.PrimitiveTypes.Uint32, `[4294967295, 0, null]`, false},
		pqc{"u64", arrow.PrimitiveTypes.Uint64, `[9223372036854775807, null, 1]`, false},
		pqc{"f32", arrow.PrimitiveTypes.Float32, `[1.5, null, -0.25]`, false},
		pqc{"f64", arrow.PrimitiveTypes.Float64, `[null, 2.5, 1e300]`, false},
		pqc{"b", arrow.FixedWidthTypes.Boolean, `[true, false, null]`, false},
		pqc{"s", arrow.BinaryTypes.String, `["Ann", "", null]`, false},
		pqc{"ls", arrow.BinaryTypes.LargeString, `[null, "élan", "x,y"]`, false},
		pqc{"bin", arrow.BinaryTypes.Binary, `["aGk=", null, ""]`, false}, // base64: "hi"
		pqc{"d", arrow.FixedWidthTypes.Date32, `[19000, -1, null]`, false},
		pqc{"ts", tsUTC, `[1600000000123456, -1, null]`, false},
		pqc{"lts", &arrow.TimestampType{Unit: arrow.Millisecond}, `[86400000, null, 1]`, false},
		pqc{"tm", arrow.FixedWidthTypes.Time64us, `[3723000000, null, 0]`, false},
		pqc{"tz", &arrow.TimestampType{Unit: arrow.Second, TimeZone: "America/New_York"}, `[0, null, 60]`, false},
		pqc{"t32", arrow.FixedWidthTypes.Time32ms, `[1500, 86399999, null]`, false},
		pqc{"u8", arrow.PrimitiveTypes.Uint8, `[255, 0, null]`, false},
		pqc{"i16", arrow.PrimitiveTypes.Int16, `[-32768, null, 7]`, false},
	)
	tb, err := nodeTable(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if tb.rows != 3 || len(tb.groups) != 2 {
		t.Fatalf("%d rows in groups %v", tb.rows, tb.groups)
	}
	bn, err := nodeSet(tb, Input{Name: "P", Path: path}, &keyMap{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]vector.Value{
		"id":  {int64(1), int64(2), int64(3)},
		"i8":  {int64(-5), nil, int64(127)},
		"u32": {int64(4294967295), int64(0), nil},
		"u64": {int64(9223372036854775807), nil, int64(1)},
		"f32": {1.5, nil, -0.25},
		"f64": {nil, 2.5, 1e300},
		"b":   {true, false, nil},
		"s":   {"Ann", "", nil},
		"ls":  {nil, "élan", "x,y"},
		"bin": {"hi", nil, ""},
		"d":   {temporal.Date{Days: 19000}, temporal.Date{Days: -1}, nil},
		"ts":  {temporal.DateTime{Sec: 1600000000, Nanos: 123456000}, temporal.DateTime{Sec: -1, Nanos: 999999000}, nil},
		"lts": {temporal.LocalDateTime{Sec: 86400}, nil, temporal.LocalDateTime{Nanos: 1000000}},
		"tm":  {temporal.LocalTime{Nanos: 3723 * temporal.NanosPerSecond}, nil, temporal.LocalTime{}},
		// Parquet keeps instants in UTC, not the writer's zone.
		"tz":  {temporal.DateTime{}, nil, temporal.DateTime{Sec: 60}},
		"t32": {temporal.LocalTime{Nanos: 1_500_000_000}, temporal.LocalTime{Nanos: temporal.NanosPerDay - 1_000_000}, nil},
		"u8":  {int64(255), int64(0), nil},
		"i16": {int64(-32768), nil, int64(7)},
	}
	if len(bn.Cols) != len(want) {
		t.Fatalf("%d columns", len(bn.Cols))
	}
	for _, c := range bn.Cols {
		for r, w := range want[c.Key] {
			if got := c.Value(r); got != w {
				t.Errorf("%s row %d: %#v, want %#v", c.Key, r, got, w)
			}
		}
	}
	// Shown as Cypher shows them.
	ts := bn.Cols[11].Value(0).(temporal.DateTime)
	if s := fmt.Sprint(ts); s != "2020-09-13T12:26:40.123456Z" {
		t.Errorf("timestamp shows as %s", s)
	}
	if s := fmt.Sprint(bn.Cols[10].Value(0)); s != "2022-01-08" {
		t.Errorf("date shows as %s", s)
	}
	// A file without rows is a table without rows.
	empty := filepath.Join(t.TempDir(), "empty.parquet")
	writeParquet(t, empty, 10, nil, pqc{"id", arrow.PrimitiveTypes.Int64, `[]`, false}, pqc{"s", arrow.BinaryTypes.String, `[]`, false})
	if tb, err := nodeTable(t, empty); err != nil || tb.rows != 0 || len(tb.data) != 2 {
		t.Fatalf("empty file: %v", err)
	}
}

// TestParquetParallel: a file of many row groups read by several workers
// gives the rows in order, and an error deep in a later row group names
// its row and group.
func TestParquetParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(b int) { parquetParallelBytes = b }(parquetParallelBytes)
	parquetParallelBytes = 0
	const n = 50_000
	var ids, names, ages strings.Builder
	ids.WriteString("[")
	names.WriteString("[")
	ages.WriteString("[")
	for i := range n {
		if i > 0 {
			ids.WriteString(",")
			names.WriteString(",")
			ages.WriteString(",")
		}
		fmt.Fprintf(&ids, "%d", i)
		fmt.Fprintf(&names, `"n%d"`, i)
		if i%997 == 0 {
			ages.WriteString("null")
		} else {
			fmt.Fprintf(&ages, "%d", 2*i)
		}
	}
	cols := func(id string) []pqc {
		return []pqc{{"id", arrow.PrimitiveTypes.Int64, id + "]", false},
			{"name", arrow.BinaryTypes.String, names.String() + "]", false},
			{"age", arrow.PrimitiveTypes.Int64, ages.String() + "]", false}}
	}
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "big.parquet"), 3000, nil, cols(ids.String())...)
	tb, err := nodeTable(t, filepath.Join(dir, "big.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if tb.rows != n || len(tb.groups) != 17 {
		t.Fatalf("%d rows, %d groups", tb.rows, len(tb.groups))
	}
	age, name := &tb.data[2], &tb.data[1]
	for i := range n {
		null := i%997 == 0
		if age.null[i] != null || (!null && age.i64[i] != int64(2*i)) || name.str[i] != fmt.Sprintf("n%d", i) || tb.data[0].i64[i] != int64(i) {
			t.Fatalf("row %d: age %d null %v name %s", i, age.i64[i], age.null[i], name.str[i])
		}
	}
	// Row groups of several read batches (4096 rows) give the same.
	writeParquet(t, filepath.Join(dir, "big2.parquet"), 20000, nil, cols(ids.String())...)
	tb2, err := nodeTable(t, filepath.Join(dir, "big2.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if tb2.data[2].null[i] != age.null[i] || tb2.data[2].i64[i] != age.i64[i] || tb2.data[1].str[i] != name.str[i] {
			t.Fatalf("row %d differs with larger row groups", i)
		}
	}
	// Row 40001 (1-based) is in row group 13 (rows 39001..42000).
	badID := strings.Replace(ids.String(), ",40000,", ",null,", 1)
	writeParquet(t, filepath.Join(dir, "bad.parquet"), 3000, nil, cols(badID)...)
	_, err = nodeTable(t, filepath.Join(dir, "bad.parquet"))
	if want := "bad.parquet: row 40001 (row group 13) (column id): missing node key"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error %v, want %s", err, want)
	}
	// A duplicate key is found after reading, by nodeSet: same position.
	dupID := strings.Replace(ids.String(), ",40000,", ",7,", 1)
	writeParquet(t, filepath.Join(dir, "dup.parquet"), 3000, nil, cols(dupID)...)
	tb, err = nodeTable(t, filepath.Join(dir, "dup.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = nodeSet(tb, Input{Name: "P", Path: "dup.parquet"}, &keyMap{}, 0)
	if want := "dup.parquet: row 40001 (row group 13) (column id): duplicate node key 7"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// TestParquetErrors: refused schemas and bad values name the file, the
// row and row group, and the column.
func TestParquetErrors(t *testing.T) {
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	for _, c := range []struct {
		name  string
		rels  bool
		cols  []pqc
		nodes []int64 // keys of the loaded nodes (relationship files)
		want  string
	}{
		{"no key", false, []pqc{{"key", i64, `[1]`, false}}, nil, `x.parquet: no "id" column among the columns key`},
		{"decimal", false, []pqc{{"id", i64, `[1]`, false}, {"price", &arrow.Decimal128Type{Precision: 10, Scale: 2}, `["1.25"]`, false}},
			nil, "x.parquet (column price): unsupported Parquet type Decimal(precision=10, scale=2)"},
		{"list of lists", false, []pqc{{"id", i64, `[1]`, false}, {"tags", arrow.ListOf(arrow.ListOf(str)), `[[["a"]]]`, false}},
			nil, "x.parquet (column tags): nested column (a LIST of lists, MAP or STRUCT) is not supported"},
		{"map", false, []pqc{{"id", i64, `[1]`, false}, {"m", arrow.MapOf(str, i64), `[[{"key": "a", "value": 1}]]`, false}},
			nil, "x.parquet (column m): nested column"},
		{"float key", false, []pqc{{"id", arrow.PrimitiveTypes.Float64, `[1.5]`, false}}, nil, "x.parquet (column id): a key column is INT64 or STRING, not DOUBLE"},
		{"null key", false, []pqc{{"id", str, `["a", null]`, false}}, nil, "x.parquet: row 2 (row group 0) (column id): missing node key"},
		{"uint64 past int64", false, []pqc{{"id", i64, `[1, 2]`, false}, {"n", arrow.PrimitiveTypes.Uint64, `[1, 18446744073709551615]`, false}},
			nil, "x.parquet: row 2 (row group 0) (column n): 18446744073709551615 is past INT64's range"},
		{"binary not utf8", false, []pqc{{"id", i64, `[1]`, false}, {"raw", arrow.BinaryTypes.Binary, `["/w=="]`, false}},
			nil, "x.parquet: row 1 (row group 0) (column raw): not UTF-8 text"},
		{"no to", true, []pqc{{"from", i64, `[1]`, false}}, []int64{1}, `x.parquet: no "to" column among the columns from`},
		{"unknown node", true, []pqc{{"from", i64, `[1, 1]`, false}, {"to", i64, `[1, 9]`, false}}, []int64{1}, "x.parquet: row 2 (row group 0) (column to): unknown node key 9"},
		{"null endpoint", true, []pqc{{"from", i64, `[null]`, false}, {"to", i64, `[1]`, false}}, []int64{1}, "x.parquet: row 1 (row group 0) (column from): missing node key"},
		{"endpoint type", true, []pqc{{"from", str, `["1"]`, false}, {"to", i64, `[1]`, false}}, []int64{1}, "x.parquet (column from): node keys are INT64, this column is STRING"},
		{"no nodes", true, []pqc{{"from", i64, `[1]`, false}, {"to", i64, `[1]`, false}}, nil, "x.parquet: relationships refer to node keys, but no nodes were loaded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.parquet")
			writeParquet(t, path, 1000, nil, c.cols...)
			var km *keyMap
			if c.nodes != nil {
				km = &keyMap{kind: kindInt, ints: map[int64]uint64{}}
				for i, k := range c.nodes {
					km.ints[k] = uint64(i)
				}
			}
			_, _, err := readTable(Input{Name: "X", Path: path}, &Options{}, c.rels, km)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestParquetCorrupt: truncated, overwritten and foreign files are
// errors, never panics.
func TestParquetCorrupt(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, good, 2, nil,
		pqc{"id", arrow.PrimitiveTypes.Int64, `[1, 2, 3, 4, 5]`, true},
		pqc{"name", arrow.BinaryTypes.String, `["a", null, "c", "d", "e"]`, false},
		pqc{"ts", &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, `[1, 2, null, 4, 5]`, false})
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.parquet")
	try := func(b []byte) error {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := nodeTable(t, path)
		return err
	}
	if err := try(data); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	for _, b := range [][]byte{nil, []byte("PAR1"), []byte("id,name\n1,a\n"), data[:len(data)/2], data[4:]} {
		if err := try(b); err == nil || !strings.Contains(err.Error(), "c.parquet") {
			t.Fatalf("%d bytes: error %v", len(b), err)
		}
	}
	// Every single byte overwritten, and every truncation: an error or a
	// table, no panic.
	for i := range data {
		b := bytes.Clone(data)
		b[i] ^= 0xff
		parseParquet("c.parquet", b, &Options{}, false, nil)
		parseParquet("c.parquet", data[:i], &Options{}, false, nil)
	}
}

// FuzzParquet: arbitrary bytes never panic the reader.
func FuzzParquet(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "seed.parquet")
	writeParquet(f, good, 2, nil,
		pqc{"id", arrow.PrimitiveTypes.Int64, `[1, 2, 3]`, false},
		pqc{"s", arrow.BinaryTypes.String, `["a", null, "c"]`, false})
	seed, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	// Columns the metadata types as temporal text, as quiver export
	// writes them.
	tagged := filepath.Join(dir, "tagged.parquet")
	str := arrow.BinaryTypes.String
	writeTextParquet(f, tagged, `{"at": "DATETIME", "t": "TIME", "l": "DATETIME", "d": "DURATION"}`,
		pqc{"id", arrow.PrimitiveTypes.Int64, `[1, 2]`, true},
		pqc{"at", str, `["2020-01-02T03:04:05.5+01:00[Europe/Paris]", null]`, false},
		pqc{"t", str, `[null, "12:00:00-02:30"]`, false},
		pqc{"l", arrow.ListOf(str), `[["1970-01-01T00:00+05:30"], []]`, false},
		pqc{"d", str, `["P14M-3DT-0.000000001S", null]`, false})
	if seed, err = os.ReadFile(tagged); err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseParquet("f.parquet", b, &Options{}, false, nil)
	})
}

// TestParquetEndpoints: INT64 endpoints resolve through the dense key
// array and through the key map alike, and keys outside the array's
// range (below, above, far below) are unknown.
func TestParquetEndpoints(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.parquet")
	writeParquet(t, path, 2, nil,
		pqc{"from", arrow.PrimitiveTypes.Int64, `[10, 11, 12, 12, 10]`, true},
		pqc{"to", arrow.PrimitiveTypes.Int64, `[12, 10, 11, 12, 10]`, false})
	for _, dense := range []bool{false, true} {
		km := &keyMap{kind: kindInt, ints: map[int64]uint64{10: 0, 11: 1, 12: 2}}
		if dense { // keys 10..12 are node ids 0..2
			km.ints, km.lo = nil, 10
			km.dense = append(km.dense[:0], 0, 1, 2)
		}
		tb, _, err := readTable(Input{Name: "K", Path: path}, &Options{}, true, km)
		if err != nil {
			t.Fatal(err)
		}
		br := relSet(tb, "K")
		if got := fmt.Sprint(br.Src, br.Dst); got != "[0 1 2 2 0] [2 0 1 2 0]" {
			t.Errorf("dense %v: %s", dense, got)
		}
		for _, bad := range []string{"9", "13", "-9223372036854775808"} {
			writeParquet(t, filepath.Join(dir, "b.parquet"), 2, nil,
				pqc{"from", arrow.PrimitiveTypes.Int64, `[10, 11, 12]`, false},
				pqc{"to", arrow.PrimitiveTypes.Int64, `[12, 10, ` + bad + `]`, false})
			_, _, err := readTable(Input{Name: "K", Path: filepath.Join(dir, "b.parquet")}, &Options{}, true, km)
			if want := "b.parquet: row 3 (row group 1) (column to): unknown node key " + bad; err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("dense %v: error %v, want %s", dense, err, want)
			}
		}
	}
}
