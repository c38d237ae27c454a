package gql

import "fmt"

// SyntaxError is a parse failure at a position in the query text.
type SyntaxError struct {
	Msg        string
	Pos        Pos
	Suggestion string
}

func (e *SyntaxError) Error() string {
	s := fmt.Sprintf("line %d, column %d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
	if e.Suggestion != "" {
		s += " (did you mean " + e.Suggestion + "?)"
	}
	return s
}

func errAt(p Pos, format string, args ...any) *SyntaxError {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Pos: p}
}
