package load

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
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
