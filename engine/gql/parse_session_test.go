package gql

import (
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

func TestParseSessionStatements(t *testing.T) {
	cases := []struct {
		text  string
		kind  SessionKind
		name  string
		value any
	}{
		{"SET query_timeout = 1000", SessionSet, "query_timeout", int64(1000)},
		{"set work_mem = '64MB';", SessionSet, "work_mem", "64MB"},
		{"SET x = -3", SessionSet, "x", int64(-3)},
		{"SET x = 0x10", SessionSet, "x", int64(16)},
		{"SET x = 1.5", SessionSet, "x", 1.5},
		{"SET enable_parallel_scan = TRUE", SessionSet, "enable_parallel_scan", true},
		{"SET enable_parallel_scan = false", SessionSet, "enable_parallel_scan", false},
		{"SHOW ALL", SessionShowAll, "", nil},
		{"show functions", SessionShowFunctions, "", nil},
		{"SHOW PROCEDURES", SessionShowProcedures, "", nil},
		{"SHOW query_timeout", SessionShow, "query_timeout", nil},
		{"SAVEPOINT a1", SessionSavepoint, "a1", nil},
		{"rollback to savepoint a1", SessionRollbackTo, "a1", nil},
		{"ROLLBACK TO `my point`", SessionRollbackTo, "my point", nil},
		{"RELEASE SAVEPOINT a1;", SessionRelease, "a1", nil},
		{"release a1", SessionRelease, "a1", nil},
		{"CHECKPOINT", SessionCheckpoint, "", nil},
	}
	for _, c := range cases {
		st, err := Parse(c.text)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		s := st.Session
		if s == nil || st.Query != nil {
			t.Errorf("%s: not a session statement", c.text)
			continue
		}
		if s.Kind != c.kind || s.Name != c.name || s.Value != c.value {
			t.Errorf("%s: %+v", c.text, s)
		}
	}
	// SET with a property, a label or += is the Cypher clause.
	for _, text := range []string{"SET n.x = 1", "SET n:L", "SET n += {a: 1}", "SET n = {a: 1}, m = {}"} {
		st, err := Parse(text)
		if err != nil || st.Session != nil || st.Query == nil {
			t.Errorf("%s: session %+v, err %v; want the Cypher SET", text, st, err)
		}
	}
	// Not a literal: the Cypher clause, whose binder reports the
	// unbound variable.
	if st, err := Parse("SET x = y"); err != nil || st.Session != nil {
		t.Errorf("SET x = y: %+v, %v", st, err)
	}
	// Malformed session statements are syntax errors at the right place.
	for _, c := range []struct {
		text string
		col  int
	}{{"SHOW", 5}, {"SET x = -'a'", 10}, {"SHOW ALL RETURN 1", 10}} {
		_, err := Parse(c.text)
		se, ok := errs.As(err)
		if !ok || se.Position == nil || se.Position.Column != c.col {
			t.Errorf("%s: %v, want a syntax error at column %d", c.text, err, c.col)
		}
	}
}
