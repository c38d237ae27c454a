package gql

import (
	"strings"
	"testing"
)

func TestParseFullText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CREATE FULLTEXT INDEX books FOR (b:Book) ON EACH [b.title, b.blurb]",
			"CREATE FULLTEXT INDEX books FOR (n:Book) ON EACH [n.title, n.blurb]"},
		{"create fulltext index IF NOT EXISTS for ()-[r:REVIEWED]->() on each [r.text] options {analyzer: 'English'}",
			"CREATE FULLTEXT INDEX IF NOT EXISTS FOR ()-[r:REVIEWED]-() ON EACH [r.text] OPTIONS {analyzer: 'english'}"},
		{"CREATE FULLTEXT INDEX x FOR ()<-[r:T]-() ON EACH [r.a]", "CREATE FULLTEXT INDEX x FOR ()-[r:T]-() ON EACH [r.a]"},
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		s := st.Schema
		if s == nil || s.IndexType != "FULLTEXT" {
			t.Fatalf("%s: not a FULLTEXT schema statement: %+v", c.in, st)
		}
		got := s.String()
		if got != c.want {
			t.Errorf("%s printed %s, want %s", c.in, got, c.want)
		}
		again, err := Parse(got)
		if err != nil || again.Schema.String() != got {
			t.Errorf("%s does not parse back: %v", got, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"CREATE FULLTEXT INDEX x FOR (n:L) ON (n.a)", "EACH"},
		{"CREATE FULLTEXT INDEX x FOR (n:L) ON EACH [m.a]", "expected a property of n"},
		{"CREATE FULLTEXT INDEX x FOR (n:L) ON EACH [n.a] OPTIONS {type: 'x'}", "analyzer"},
		{"CREATE FULLTEXT INDEX x FOR ()-[r:T]() ON EACH [r.a]", "-"},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.in, err, c.want)
		}
	}
}
