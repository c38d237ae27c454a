package gql

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// TestTypesErrorCodes: in testdata/types.txt a form Quiver does not run
// fails with 0A000, every other error with 42000 (the corpus prints the
// message and position only).
func TestTypesErrorCodes(t *testing.T) {
	cases := readCases(t, "testdata/types.txt")
	n := 0
	for _, c := range cases {
		if c.cmd != "error" {
			continue
		}
		n++
		_, err := Parse(c.query)
		e, ok := errs.As(err)
		if !ok {
			t.Fatalf("%q: error %v is not the engine's", c.query, err)
		}
		want := errs.CodeSyntax
		if strings.Contains(c.want, "not supported:") {
			want = errs.CodeNotSupported
		}
		if e.Code != want {
			t.Errorf("%q: code %s, want %s (%v)", c.query, e.Code, want, err)
		}
	}
	if n == 0 {
		t.Fatal("no error cases in testdata/types.txt")
	}
}

// TestTypeTextRoundTrip: a type's canonical text parses back to itself,
// the property the binder relies on when it hands the text on.
func TestTypeTextRoundTrip(t *testing.T) {
	for _, q := range []string{"INTEGER", "INT32 NOT NULL", "LIST<INTEGER | STRING> NOT NULL", "ANY<LIST<ANY>>", "LOCAL DATETIME | NULL", "TIME WITH TIME ZONE ARRAY"} {
		st, err := Parse("RETURN x :: " + q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		text := st.Query.Parts[0].Clauses[0].(*Return).Projection.Items[0].Expr.(*TypePredicate).Type.String()
		again, err := Parse("RETURN x :: " + text)
		if err != nil {
			t.Fatalf("%s → %s: %v", q, text, err)
		}
		if got := again.Query.Parts[0].Clauses[0].(*Return).Projection.Items[0].Expr.(*TypePredicate).Type.String(); got != text {
			t.Errorf("%s → %s → %s", q, text, got)
		}
	}
}
