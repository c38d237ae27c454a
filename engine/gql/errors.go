package gql

import "github.com/quiverdb/quiver/engine/errs"

// A parse failure is the engine's error: a 42000 syntax error at a line
// and column of the query text, with a suggestion when a keyword was
// misspelled.

// errAt is a syntax error at p.
func errAt(p Pos, format string, args ...any) *errs.Error {
	return errs.Syntax(format, args...).At(p.Line, p.Column)
}
