package gql

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine/errs"
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
			se, ok := errs.As(err)
			if !ok || se.Code != errs.CodeSyntax && se.Code != errs.CodeNotSupported || se.Position == nil {
				t.Fatalf("error of type %T: %v", err, err)
			}
			// The position is inside the text: a line it has, a column
			// at most one past that line's last character.
			lines := strings.Split(q, "\n")
			if l, c := se.Position.Line, se.Position.Column; l < 1 || l > len(lines) || c < 1 || c > utf8.RuneCountInString(lines[l-1])+1 {
				t.Fatalf("position %+v outside the input %q", se.Position, q)
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
