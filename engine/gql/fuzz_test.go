package gql

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// canonicalExtraLevels bounds the levels canonical printing adds to a
// statement: the parentheses around a projection's expression and a
// chain's, a prefix operator's.
const canonicalExtraLevels = 4

// FuzzParse: parsing never panics; an error points inside the input; a
// statement that parses prints a canonical form that parses to itself.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		for _, c := range readCases(&testing.T{}, path) {
			f.Add(c.query)
		}
	}
	// Deep and long constructs around the limits (limits_test.go).
	for _, gen := range deepConstructs {
		f.Add(gen(MaxDepth - 3))
		f.Add(gen(MaxDepth + 1))
	}
	f.Fuzz(func(t *testing.T, q string) {
		st, err := Parse(q)
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("error of type %T", err)
			}
			if se.Pos.Offset < 0 || se.Pos.Offset > len(q) || se.Pos.Line < 1 || se.Pos.Column < 1 {
				t.Fatalf("position %+v outside the input of %d bytes", se.Pos, len(q))
			}
			return
		}
		if !utf8.ValidString(q) {
			return // positions and texts are byte-exact, but canonical printing normalises invalid UTF-8
		}
		canon := st.String()
		again, err := Parse(canon)
		if err != nil && st.depth >= MaxDepth-canonicalExtraLevels && strings.Contains(err.Error(), "deeper than") {
			return // printing adds a few levels to a statement at the limit
		}
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, q, err)
		}
		if again.String() != canon {
			t.Fatalf("canonical form is not stable: %q → %q", canon, again.String())
		}
	})
}
