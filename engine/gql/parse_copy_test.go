package gql

import (
	"github.com/quiverdb/quiver/engine/errs"
	"strings"
	"testing"
)

func TestParseCopy(t *testing.T) {
	for _, c := range []struct{ text, name, path, canon string }{
		{"COPY Person FROM 'persons.csv'", "Person", "persons.csv", "COPY Person FROM 'persons.csv'"},
		{"copy KNOWS from \"dir/k.csv\";", "KNOWS", "dir/k.csv", "COPY KNOWS FROM 'dir/k.csv'"},
		{"COPY `A:B` FROM 'x'", "A:B", "x", "COPY `A:B` FROM 'x'"},
	} {
		st, err := Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if st.Copy == nil || st.Query != nil || st.Copy.Name != c.name || st.Copy.Path != c.path {
			t.Fatalf("%s: %+v", c.text, st.Copy)
		}
		if got := st.String(); got != c.canon {
			t.Fatalf("%s: printed %s", c.text, got)
		}
		again, err := Parse(st.String())
		if err != nil || again.String() != st.String() {
			t.Fatalf("%s: reparse %v %v", c.text, again, err)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"COPY Person FROM persons", "a file path string"},
		{"COPY Person 'x'", "FROM"},
		{"COPY FROM 'x'", "FROM"},
	} {
		_, err := Parse(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.text, err, c.want)
		}
	}
}

func TestParseCopyTo(t *testing.T) {
	for _, c := range []struct{ text, canon string }{
		{"COPY (MATCH (p:Person) RETURN p.id) TO 'p.parquet'", "COPY (MATCH (p:Person) RETURN p.id) TO 'p.parquet'"},
		{"copy (RETURN 1 AS x UNION RETURN 2 AS x) to \"x.csv\" (header = false, delimiter = '|');",
			"COPY (RETURN 1 AS x UNION RETURN 2 AS x) TO 'x.csv' (HEADER = false, DELIMITER = '|')"},
		{"COPY (RETURN 1 AS x) TO 'x' (FORMAT = 'CSV', COMPRESSION = 'zstd', ROW_GROUP_SIZE = 2)",
			"COPY (RETURN 1 AS x) TO 'x' (FORMAT = 'CSV', COMPRESSION = 'zstd', ROW_GROUP_SIZE = 2)"},
		{"EXPLAIN COPY (MATCH (n) RETURN n) TO 'n.parquet'", "EXPLAIN COPY (MATCH (n) RETURN n) TO 'n.parquet'"},
	} {
		st, err := Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if st.Copy == nil || !st.Copy.To() || st.Query != nil {
			t.Fatalf("%s: %+v", c.text, st.Copy)
		}
		if got := st.String(); got != c.canon {
			t.Fatalf("%s: printed %s", c.text, got)
		}
		again, err := Parse(st.String())
		if err != nil || again.String() != st.String() {
			t.Fatalf("%s: reparse %v %v", c.text, again, err)
		}
	}
	st, _ := Parse("COPY (RETURN 1 AS x) TO 'x.csv' (header = true, ROW_GROUP_SIZE = 7)")
	if st.Copy.Option("HEADER") != true || st.Copy.Option("ROW_GROUP_SIZE") != int64(7) || st.Copy.Option("FORMAT") != nil {
		t.Fatalf("options %+v", st.Copy.Options)
	}
	for _, c := range []struct {
		text, code string
		col        int
	}{
		{"COPY (RETURN 1) TO x.csv", "42000", 20},
		{"COPY (RETURN 1) 'x.csv'", "42000", 17},
		{"COPY (RETURN 1 TO 'x.csv'", "42000", 16},
		{"COPY (RETURN 1) TO 'x.csv' (SPEED = 1)", "42000", 29},
		{"COPY (RETURN 1) TO 'x.csv' (HEADER = 'yes')", "42000", 38},
		{"COPY (RETURN 1) TO 'x.csv' (HEADER = true, HEADER = false)", "42000", 44},
		{"COPY (RETURN 1) TO 'x' (FORMAT = 'json')", "22023", 34},
		{"COPY (RETURN 1) TO 'x' (COMPRESSION = 'lz4')", "22023", 39},
		{"COPY (RETURN 1) TO 'x' (DELIMITER = '||')", "22023", 37},
		{"COPY (RETURN 1) TO 'x' (DELIMITER = '.')", "22023", 37},
		{"COPY (RETURN 1) TO 'x' (DELIMITER = 'T')", "22023", 37},
		{"COPY (RETURN 1) TO 'x' (DELIMITER = '7')", "22023", 37},
		{"COPY (RETURN 1) TO 'x' (ROW_GROUP_SIZE = 0)", "22023", 42},
		{"COPY (RETURN 1) TO 'x' (ROW_GROUP_SIZE = 5", "42000", 43},
	} {
		_, err := Parse(c.text)
		e, ok := errs.As(err)
		if !ok || e.Code != c.code || e.Position == nil || e.Position.Column != c.col {
			t.Errorf("%s: %v, want %s at column %d", c.text, err, c.code, c.col)
		}
	}
}
