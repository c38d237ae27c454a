package gql

import (
	"strings"
	"testing"
)

func TestGraphStatements(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CREATE GRAPH sales", "CREATE GRAPH sales"},
		{"create graph if not exists Sales options {max_memory: '1GB', max_disk: 1024}", "CREATE GRAPH IF NOT EXISTS Sales OPTIONS {max_memory: '1GB', max_disk: 1024}"},
		{"DROP GRAPH IF EXISTS sales;", "DROP GRAPH IF EXISTS sales"},
		{"SHOW GRAPHS", "SHOW GRAPHS"},
		{"USE sales", "USE sales"},
		{"USE sales MATCH (n) RETURN n", "USE sales MATCH (n) RETURN n"},
		{"USE sales EXPLAIN MATCH (n) RETURN n", "USE sales EXPLAIN MATCH (n) RETURN n"},
		{"USE sales SHOW INDEXES", "USE sales SHOW INDEXES"},
		{"CREATE graph = (a)-[:T]->(b)", ""}, // a path named graph, still a query
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if c.want == "" {
			if st.Query == nil || st.Graph != nil {
				t.Fatalf("%s: parsed as %s, want a query", c.in, st)
			}
			continue
		}
		if got := st.String(); got != c.want {
			t.Fatalf("%s: printed %q, want %q", c.in, got, c.want)
		}
		again, err := Parse(st.String())
		if err != nil || again.String() != c.want {
			t.Fatalf("%s: does not parse back: %v %v", c.in, again, err)
		}
	}
	if st, _ := Parse("USE sales"); st.Graph == nil || st.Graph.Kind != GraphUse || st.Graph.Name != "sales" {
		t.Fatalf("USE alone is a graph statement: %+v", st)
	}
	if st, _ := Parse("USE sales MATCH (n) RETURN n"); st.Use == nil || st.Use.Name != "sales" || st.Query == nil {
		t.Fatalf("USE before a query is its graph: %+v", st)
	}
	for _, c := range []struct{ in, msg string }{
		{"CREATE GRAPH g OPTIONS {pages: 3}", "unknown option pages"},
		{"CREATE GRAPH g OPTIONS {max_memory: true}", "is a size"},
		{"USE a CREATE GRAPH b", "cannot follow USE"},
		{"DROP GRAPH", "a graph name"},
		{"SHOW GRAPHS x", "end of query"},
		{"MATCH (n) USE g RETURN n", "USE name stands first"},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Fatalf("%s: error %v, want one saying %q", c.in, err, c.msg)
		}
	}
}

func TestNamesGraph(t *testing.T) {
	for text, want := range map[string]bool{
		"USE g MATCH (n) RETURN n": true, "  /* c */ use g": true, "CREATE GRAPH g": true, "drop graph g": true,
		"SHOW GRAPHS": true, "CREATE (n)": false, "CREATE graph = (a)-->(b)": true, "SHOW INDEXES": false,
		"MATCH (n) RETURN n": false, "`USE` x": false, "": false, "RETURN 1": false,
	} {
		if got := NamesGraph(text); got != want {
			t.Errorf("NamesGraph(%q) = %v, want %v", text, got, want)
		}
		// It never says no to a text the parser reads as a graph statement
		// or with USE.
		if st, err := Parse(text); err == nil && (st.Graph != nil || st.Use != nil) && !NamesGraph(text) {
			t.Errorf("%q is a graph statement NamesGraph misses", text)
		}
	}
}
