package load

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// bigNodes is a node file of n rows "i,i*2,name" whose row bad (0-based,
// -1 for none) has a non-integer age and whose rows divisible by 997
// have no age.
func bigNodes(n, bad int) string {
	var sb strings.Builder
	sb.WriteString("id,age:INT64,name\n")
	for i := range n {
		switch {
		case i == bad:
			fmt.Fprintf(&sb, "%d,x%d,n%d\n", i, i, i)
		case i%997 == 0:
			fmt.Fprintf(&sb, "%d,,n%d\n", i, i)
		default:
			fmt.Fprintf(&sb, "%d,%d,n%d\n", i, i*2, i)
		}
	}
	return sb.String()
}

// TestParallelParse: a file large enough to be cut into parts parses to
// the same rows, nulls and line numbers as one part would.
func TestParallelParse(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 150_000
	data := []byte(bigNodes(n, -1))
	if len(data) < 2<<20 {
		t.Fatalf("test file of %d bytes is too small to be cut", len(data))
	}
	if parts := cutParts(data, 4); len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	tb, err := parseTable("big.csv", data, &Options{}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb.rows != n {
		t.Fatalf("%d rows", tb.rows)
	}
	age, name := &tb.data[1], &tb.data[2]
	for i := range n {
		null := i%997 == 0
		if age.null[i] != null || (!null && age.i64[i] != int64(2*i)) || name.str[i] != fmt.Sprintf("n%d", i) {
			t.Fatalf("row %d: age %d null %v name %s", i, age.i64[i], age.null[i], name.str[i])
		}
	}
	// An error deep in a later part reports its line in the file.
	_, err = parseTable("big.csv", []byte(bigNodes(n, 123_456)), &Options{}, false, nil)
	want := `big.csv:123458:2 (column age): type mismatch: "x123456" is not an INT64`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

func TestKeyMapDense(t *testing.T) {
	km := &keyMap{}
	key := colSpec{name: "id", kind: kindInt, role: roleKey}
	add := func(first uint64, keys ...int64) error {
		return km.add("f.csv", key, 0, &colData{i64: keys}, len(keys), first)
	}
	var keys []int64
	for i := range int64(100) {
		keys = append(keys, i*2+10) // keys 10, 12, …, 208: span 199 < 2*100+1024
	}
	if err := add(0, keys...); err != nil {
		t.Fatal(err)
	}
	// A second file below the range: the dense array is rebased.
	if err := add(100, 1, 3); err != nil {
		t.Fatal(err)
	}
	if km.dense == nil || km.ints != nil {
		t.Fatal("not dense")
	}
	check := func() {
		t.Helper()
		for _, c := range []struct {
			key int64
			id  uint32
			ok  bool
		}{{10, 0, true}, {208, 99, true}, {1, 100, true}, {3, 101, true}, {11, 0, false}, {9, 0, false}, {209, 0, false},
			{0, 0, false}, {-1 << 63, 0, false}, {1<<63 - 1, 0, false}} {
			id, ok := km.lookupInt(c.key)
			if ok != c.ok || (ok && id != c.id) {
				t.Errorf("key %d: %d %v", c.key, id, ok)
			}
		}
	}
	check()
	// A key of an earlier file is a duplicate at its line (row 1: line 3).
	if err := add(102, 5, 12); err == nil || err.Error() != "f.csv:3:1 (column id): duplicate node key 12" {
		t.Fatalf("duplicate: %v", err)
	}
	// Far keys move everything to the map; earlier keys still resolve.
	km = &keyMap{}
	if err := add(0, keys...); err != nil {
		t.Fatal(err)
	}
	if err := add(100, 1, 3); err != nil {
		t.Fatal(err)
	}
	if err := add(102, 1<<40); err != nil {
		t.Fatal(err)
	}
	if km.dense != nil || len(km.ints) != 103 {
		t.Fatalf("sparse keys kept dense (%d in the map)", len(km.ints))
	}
	check()
	if id, ok := km.lookupInt(1 << 40); !ok || id != 102 {
		t.Fatal("sparse lookup")
	}
	if err := add(103, 208); err == nil || err.Error() != "f.csv:2:1 (column id): duplicate node key 208" {
		t.Fatalf("duplicate in the map: %v", err)
	}
}

func TestSplitLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
		msg  string
	}{
		{`a,b,c`, []string{"a", "b", "c"}, ""},
		{`a,,`, []string{"a", "", ""}, ""},
		{`"x, y","say ""hi""",z`, []string{"x, y", `say "hi"`, "z"}, ""},
		{`"",a`, []string{"", "a"}, ""},
		{`"abc`, nil, "unterminated"},
		{`"a"b,c`, nil, "text after a closing quote"},
	} {
		fs, _, msg := splitLine([]byte(c.line), ',', nil)
		if c.msg != "" {
			if !strings.Contains(msg, c.msg) {
				t.Errorf("%s: message %q", c.line, msg)
			}
			continue
		}
		var got []string
		for _, f := range fs {
			got = append(got, string(f.b))
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || msg != "" {
			t.Errorf("%s: %q %s", c.line, got, msg)
		}
	}
}

// relKeys returns key maps of nodes 0..9 (ids 0..9), dense and, with a
// far key 1<<40 as node 10, a hash map: the two lookup paths.
func relKeys(t *testing.T) map[string]*keyMap {
	t.Helper()
	key := colSpec{name: "id", kind: kindInt, role: roleKey}
	keys := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	dense, sparse := &keyMap{}, &keyMap{}
	if err := dense.add("p.csv", key, 0, &colData{i64: keys}, len(keys), 0); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, 1<<40)
	if err := sparse.add("p.csv", key, 0, &colData{i64: keys}, len(keys), 0); err != nil {
		t.Fatal(err)
	}
	if dense.dense == nil || sparse.dense != nil {
		t.Fatal("key maps not dense and sparse")
	}
	return map[string]*keyMap{"dense": dense, "map": sparse}
}

// TestParseRels runs relationship files through both key lookup paths:
// the same ids, or the same first error in file order, from each.
func TestParseRels(t *testing.T) {
	const head = "from,to,since:INT64\n"
	rows := func(n, bad int, badRow string) string {
		var sb strings.Builder
		sb.WriteString(head)
		for i := range n {
			if i == bad {
				sb.WriteString(badRow)
				continue
			}
			fmt.Fprintf(&sb, "%d,%d,%d\n", i%10, (i*7)%10, i)
		}
		return sb.String()
	}
	for _, c := range []struct {
		name, data string
		from, to   []uint32 // the first rows' ids
		since      []int64
		err        string
	}{
		{name: "crlf", data: head + "1,2,5\r\n3,4,6\r\n", from: []uint32{1, 3}, to: []uint32{2, 4}, since: []int64{5, 6}},
		{name: "no final newline", data: head + "1,2,5\n3,4,6", from: []uint32{1, 3}, to: []uint32{2, 4}, since: []int64{5, 6}},
		{name: "final empty line", data: head + "1,2,5\n\n", from: []uint32{1}, to: []uint32{2}, since: []int64{5}},
		{name: "quoted", data: head + "\"1\",2,\"7\"\n+3,007,-8\n", from: []uint32{1, 3}, to: []uint32{2, 7}, since: []int64{7, -8}},
		{name: "quote inside a field", data: head + "1,2,5\"\n", err: `f.csv:2:3 (column since): type mismatch: "5\"" is not an INT64`},
		{name: "unterminated quote", data: head + "1,2,5\n1,\"2,5\n", err: "f.csv:3:2 (column to): unterminated quoted field (a newline inside quotes is not supported)"},
		{name: "ragged", data: head + "1,2,5\n1,2\n", err: "f.csv:3: 2 fields, the header has 3 (ragged row)"},
		{name: "too many fields", data: head + "1,2,5,6\n", err: "f.csv:2: 4 fields, the header has 3 (ragged row)"},
		{name: "empty line", data: head + "1,2,5\n\n1,2,5\n", err: "f.csv:3: empty line"},
		{name: "cr line", data: head + "1,2,5\n\r\n1,2,5\n", err: "f.csv:3: empty line"},
		{name: "unknown key", data: head + "1,2,5\n1,2,5\n+42,2,5\n", err: `f.csv:4:1 (column from): unknown node key "+42"`},
		{name: "unknown key before a mismatch", data: head + "1,42,5\n1,2,x\n", err: `f.csv:2:2 (column to): unknown node key "42"`},
		{name: "unknown key before a mismatch in its row", data: head + "42,1,x\n", err: `f.csv:2:1 (column from): unknown node key "42"`},
		{name: "mismatch before an unknown key in its row", data: head + "x,42,1\n", err: `f.csv:2:1 (column from): type mismatch: "x" is not an INT64 node key`},
		{name: "both keys unknown", data: head + "1,2,3\n43,42,1\n", err: `f.csv:3:1 (column from): unknown node key "43"`},
		{name: "unknown key before a ragged row", data: head + "1,42,5\n1,2\n", err: `f.csv:2:2 (column to): unknown node key "42"`},
		{name: "unknown key after a batch", data: rows(3000, 1500, "5,12,1\n"), from: []uint32{0, 1, 2}, err: `f.csv:1502:2 (column to): unknown node key "12"`},
		{name: "mismatch after a batch", data: rows(3000, 2100, "5,1,1x\n"), err: `f.csv:2102:3 (column since): type mismatch: "1x" is not an INT64`},
		{name: "missing key", data: head + "1,,5\n", err: "f.csv:2:2 (column to): missing node key"},
		{name: "int overflow", data: head + "1,2,99999999999999999999\n", err: `f.csv:2:3 (column since): type mismatch: "99999999999999999999" is not an INT64`},
		{name: "sign only", data: head + "-,2,5\n", err: `f.csv:2:1 (column from): type mismatch: "-" is not an INT64 node key`},
		{name: "exponent", data: head + "1,2,1e3\n", err: `f.csv:2:3 (column since): type mismatch: "1e3" is not an INT64`},
		{name: "many rows", data: rows(5000, -1, ""), from: []uint32{0, 1, 2, 3}, to: []uint32{0, 7, 4, 1}, since: []int64{0, 1, 2, 3}},
	} {
		for path, km := range relKeys(t) {
			tb, err := parseTable("f.csv", []byte(c.data), &Options{}, true, km)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Errorf("%s (%s): error %v, want %s", c.name, path, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s (%s): %v", c.name, path, err)
				continue
			}
			from, to, since := tb.data[0].ids, tb.data[1].ids, tb.data[2].i64
			if len(from) < len(c.from) || fmt.Sprint(from[:len(c.from)]) != fmt.Sprint(c.from) ||
				fmt.Sprint(to[:len(c.to)]) != fmt.Sprint(c.to) || fmt.Sprint(since[:len(c.since)]) != fmt.Sprint(c.since) {
				t.Errorf("%s (%s): from %v to %v since %v", c.name, path, from[:min(len(from), 5)], to[:min(len(to), 5)], since[:min(len(since), 5)])
			}
		}
	}
	// Every row of a long file resolves, across batches and parts.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	data := rows(200_000, -1, "")
	for path, km := range relKeys(t) {
		tb, err := parseTable("f.csv", []byte(data), &Options{}, true, km)
		if err != nil || tb.rows != 200_000 {
			t.Fatalf("%s: %v, %d rows", path, err, tb.rows)
		}
		for i := range tb.rows {
			if tb.data[0].ids[i] != uint32(i%10) || tb.data[1].ids[i] != uint32((i*7)%10) || tb.data[2].i64[i] != int64(i) {
				t.Fatalf("%s: row %d: %d %d %d", path, i, tb.data[0].ids[i], tb.data[1].ids[i], tb.data[2].i64[i])
			}
		}
	}
	// An unknown key deep in a later part reports its line in the file.
	bad := rows(200_000, 170_000, "3,77,1\n")
	for path, km := range relKeys(t) {
		_, err := parseTable("f.csv", []byte(bad), &Options{}, true, km)
		if want := `f.csv:170002:2 (column to): unknown node key "77"`; err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", path, err, want)
		}
	}
}

// TestParseHugeField: a field of several megabytes, quoted or not, is
// one value.
func TestParseHugeField(t *testing.T) {
	big := strings.Repeat("ab,\"c", 1<<20)
	quoted := `"` + strings.ReplaceAll(big, `"`, `""`) + `"`
	plain := strings.Repeat("x", 3<<20)
	data := "id,name\n1," + quoted + "\n2," + plain + "\r\n3,z\n"
	tb, err := parseTable("n.csv", []byte(data), &Options{}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb.rows != 3 || tb.data[1].str[0] != big || tb.data[1].str[1] != plain || tb.data[1].str[2] != "z" {
		t.Fatalf("%d rows, lengths %d %d", tb.rows, len(tb.data[1].str[0]), len(tb.data[1].str[1]))
	}
}

// A column declared DATETIME, LOCALDATETIME, LOCALTIME, TIME or DURATION
// parses its fields' text as that type; an empty field is a null, and
// text that does not parse is a type mismatch at its line and column.
func TestParseTemporalColumns(t *testing.T) {
	data := "id,a:DATETIME,b:LOCALDATETIME,c:LOCALTIME,d:TIME,e:DURATION\n" +
		"1,2020-01-02T03:04:05.5+01:00[Europe/Paris],2020-01-02T03:04:05.000000001,12:00:00.25,12:00:00-02:30,P14M-3DT-0.000000001S\n" +
		"2,,,,,\n"
	tb, err := parseTable("t.csv", []byte(data), &Options{}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	paris, _ := temporal.ParseDateTime("2020-01-02T03:04:05.5+01:00[Europe/Paris]")
	ldt, _ := temporal.ParseLocalDateTime("2020-01-02T03:04:05.000000001")
	want := []vector.Value{paris, ldt, temporal.LocalTime{Nanos: 12*3600*temporal.NanosPerSecond + 250_000_000},
		temporal.Time{Nanos: 12 * 3600 * temporal.NanosPerSecond, Offset: -9000}, temporal.NewDuration(14, -3, 0, -1)}
	for i, w := range want {
		c := bulkColumn(tb.cols[i+1], &tb.data[i+1])
		if got := c.Value(0); got != w {
			t.Errorf("column %s: %#v, want %#v", c.Key, got, w)
		}
		if got := c.Value(1); got != nil {
			t.Errorf("column %s: %#v for an empty field", c.Key, got)
		}
	}
	_, err = parseTable("t.csv", []byte("id,a:TIME\n1,noon\n"), &Options{}, false, nil)
	if err == nil || !strings.Contains(err.Error(), `t.csv:2:2 (column a): type mismatch: "noon" is not a TIME`) {
		t.Errorf("got %v", err)
	}
}

// TestGQLTypeNames: a header may name a column's type by its GQL name,
// and reads it as the type of the same values (GQL's TIME aside, which
// the header keeps as Cypher's zoned TIME).
func TestGQLTypeNames(t *testing.T) {
	data := "id,a:BIGINT,b:DOUBLE PRECISION,c:VARCHAR,d:ZONED DATETIME,e:TIMESTAMP WITHOUT TIME ZONE,f:LOCAL TIME,g:TIME WITH TIME ZONE\n" +
		"1,7,2.5,x,2020-01-02T03:04:05Z,2020-01-02T03:04:05,12:00,12:00+01:00\n"
	tb, err := parseTable("t.csv", []byte(data), &Options{}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := temporal.ParseDateTime("2020-01-02T03:04:05Z")
	ldt, _ := temporal.ParseLocalDateTime("2020-01-02T03:04:05")
	lt, _ := temporal.ParseLocalTime("12:00")
	want := []vector.Value{int64(7), 2.5, "x", dt, ldt, lt, temporal.Time{Nanos: 12 * 3600 * temporal.NanosPerSecond, Offset: 3600}}
	for i, w := range want {
		c := bulkColumn(tb.cols[i+1], &tb.data[i+1])
		if got := c.Value(0); got != w {
			t.Errorf("column %s: %#v, want %#v", c.Key, got, w)
		}
	}
}
