package gql

import "fmt"

// Pos is a position in the query text: byte offset, 1-based line and
// column (counted in characters).
type Pos struct {
	Offset int
	Line   int
	Column int
}

func (p Pos) String() string { return fmt.Sprintf("line %d, column %d", p.Line, p.Column) }

// tokKind classifies tokens.
type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tFloat
	tString
	tParam
	tPunct // operators and punctuation; text holds the symbol
)

type token struct {
	kind tokKind
	text string // identifier name (unescaped), symbol, or literal source
	str  string // decoded string literal
	pos  Pos
	end  int // offset just past the token
	// quoted is set for backquoted identifiers, which are never keywords.
	quoted bool
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "string literal"
	}
	return fmt.Sprintf("%q", t.text)
}
