package gql

import (
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzParse: parsing never panics; an error points inside the input; a
// statement that parses prints a canonical form that parses to itself.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, path := range files {
		for _, c := range readCases(&testing.T{}, path) {
			f.Add(c.query)
		}
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
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, q, err)
		}
		if again.String() != canon {
			t.Fatalf("canonical form is not stable: %q → %q", canon, again.String())
		}
	})
}
