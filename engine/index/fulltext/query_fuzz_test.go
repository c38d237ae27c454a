package fulltext

import (
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// FuzzFullTextQuery: any query text parses to a query or fails with an
// engine error (a syntax error names its column), never a panic.
func FuzzFullTextQuery(f *testing.F) {
	for _, s := range []string{"apple", `"red apple"`, "title:foo AND NOT bar*", "fuzzy~1 OR (a b)",
		`"unterminated`, "(", "title:", "a AND", "NOT", "~", "*", `\"`, "body:(x OR y) -z +w", "é~2 ü*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := parseQuery(text, []string{"title", "body"})
		if err != nil {
			if _, ok := errs.As(err); !ok {
				t.Fatalf("%q: not an engine error: %v", text, err)
			}
			return
		}
		if q == nil {
			t.Fatalf("%q: no query and no error", text)
		}
	})
}
