package gql

import (
	"strings"
	"testing"
)

func TestParseVector(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"CREATE VECTOR INDEX emb FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 128}",
			"CREATE VECTOR INDEX emb FOR (n:Doc) ON (n.embedding) OPTIONS {dimensions: 128}"},
		{"create vector index IF NOT EXISTS for (d:Doc) on (d.e) options {Dimensions: 3, similarity: 'DOT', m: 8, ef_construction: 64}",
			"CREATE VECTOR INDEX IF NOT EXISTS FOR (n:Doc) ON (n.e) OPTIONS {dimensions: 3, similarity: 'dot', m: 8, ef_construction: 64}"},
		{"CREATE VECTOR INDEX v IF NOT EXISTS FOR (d:`Odd label`) ON (d.`the e`) OPTIONS {similarity: 'euclidean', dimensions: 2}",
			"CREATE VECTOR INDEX v IF NOT EXISTS FOR (n:`Odd label`) ON (n.`the e`) OPTIONS {dimensions: 2, similarity: 'euclidean'}"},
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		s := st.Schema
		if s == nil || s.IndexType != "VECTOR" || s.Vector == nil {
			t.Fatalf("%s: not a VECTOR schema statement: %+v", c.in, st)
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
		{"CREATE VECTOR INDEX x FOR (n:L) ON (n.a)", "needs OPTIONS"},
		{"CREATE VECTOR INDEX x FOR (n:L) ON (n.a, n.b) OPTIONS {dimensions: 2}", "one property"},
		{"CREATE VECTOR INDEX x FOR (n:L) ON (m.a) OPTIONS {dimensions: 2}", "expected a property of n"},
		{"CREATE VECTOR INDEX x FOR (n:L) ON (n.a) OPTIONS {dimensions: 2.5}", "dimensions is an integer"},
		{"CREATE VECTOR INDEX x FOR (n:L) ON (n.a) OPTIONS {dimensions: $d}", "dimensions is an integer"},
		{"CREATE VECTOR INDEX x FOR (n:L) ON (n.a) OPTIONS {dimensions: 2, similarity: 3}", "similarity is a string"},
		{"CREATE VECTOR INDEX x FOR (n:L) ON (n.a) OPTIONS {dimension: 2}", "unknown option dimension"},
		{"CREATE VECTOR INDEX x FOR ()-[r:T]-() ON (r.a) OPTIONS {dimensions: 2}", "a variable"},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.in, err, c.want)
		}
	}
}
