// Package errs defines the one error type of the Quiver engine. Every
// error a user can cause carries an ISO/IEC 39075 status code and a
// category, a message, and optionally a position in the query text and a
// suggestion. Frontends map it to their wire shapes (HTTP status and body,
// wire ERROR); the engine never knows about HTTP.
//
// errs imports nothing of Quiver so that every engine layer can use it.
package errs

import (
	"context"
	"errors"
	"fmt"
)

// Category names, as the interface contract spells them.
const (
	CatSyntax       = "SYNTAX_ERROR"
	CatData         = "DATA_EXCEPTION"
	CatAuth         = "AUTH_FAILED"
	CatPermission   = "PERMISSION_DENIED"
	CatNotFound     = "NOT_FOUND"
	CatConstraint   = "CONSTRAINT_VIOLATION"
	CatTimeout      = "TIMEOUT"
	CatTransaction  = "TRANSACTION_ERROR"
	CatUnavailable  = "CONNECTION_FAILURE"
	CatCardinality  = "CARDINALITY_VIOLATION"
	CatObjectExists = "OBJECT_EXISTS"
	CatNoObject     = "OBJECT_NOT_FOUND"
	CatNotSupported = "FEATURE_NOT_SUPPORTED"
	CatResource     = "RESOURCE_EXHAUSTED"
	// CatUnknownProcedure is the category of a CALL of a name no
	// procedure has (code 42S02), as the interface contract names it.
	CatUnknownProcedure = "UnknownProcedure"
)

// ISO status codes the engine raises.
const (
	CodeSyntax        = "42000"
	CodeData          = "22000"
	CodeOverflow      = "22003" // numeric value out of range
	CodeDivByZero     = "22012"
	CodeInvalidParam  = "22023" // invalid parameter value
	CodeAuth          = "08001"
	CodePermission    = "42501"
	CodeNotFound      = "02000"
	CodeConstraint    = "23000"
	CodeTimeout       = "40003"
	CodeTransaction   = "40000"
	CodeSerialization = "40001"
	CodeUnavailable   = "08006"
	CodeConnection    = "08000" // a connection exception (a client too slow to send its request)
	CodeCardinality   = "21000"
	CodeObjectExists  = "42S01"
	CodeNoObject      = "42S02"
	CodeNotSupported  = "0A000"
	CodeDiskFull      = "53100" // the disk holding the data directory is full
	CodeOutOfMemory   = "53200"
	CodeTooMany       = "53300" // too many open transactions: retry once some end
	// CodeNotLeader: a write reached a member of a replicated cluster
	// that does not lead; the message names the leader when known, and
	// nothing was committed (invalid transaction state class, 25xxx).
	CodeNotLeader = "25006"
	// CodeResolutionUnknown: a replicated commit was proposed but the
	// lead was lost before a quorum was known to hold it; it may or may
	// not have committed (SQL's "transaction resolution unknown").
	CodeResolutionUnknown = "08007"
)

// Status codes of temporal values.
const (
	CodeInvalidDatetime  = "22007" // invalid datetime format
	CodeDatetimeOverflow = "22008" // datetime field overflow
)

// Position is a 1-based line and column in the query text.
type Position struct {
	Line   int
	Column int
}

// Error is the engine's error. Code and Category are what clients match on;
// Message is for people.
type Error struct {
	Code       string
	Category   string
	Message    string
	Position   *Position
	Suggestion string
	cause      error
}

func (e *Error) Error() string {
	if e.Position != nil {
		return fmt.Sprintf("%s (line %d, column %d)", e.Message, e.Position.Line, e.Position.Column)
	}
	return e.Message
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with the given code and category.
func New(code, category, format string, args ...any) *Error {
	return &Error{Code: code, Category: category, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with the given code and category whose message is
// context + ": " + err's message, keeping err for errors.Is/As.
func Wrap(code, category string, err error, context string) *Error {
	return &Error{Code: code, Category: category, Message: context + ": " + err.Error(), cause: err}
}

// At sets the error's position and returns it.
func (e *Error) At(line, column int) *Error {
	e.Position = &Position{Line: line, Column: column}
	return e
}

// Suggest sets the error's suggestion and returns it.
func (e *Error) Suggest(s string) *Error {
	e.Suggestion = s
	return e
}

// Syntax is a 42000 error: the text is not valid GQL.
func Syntax(format string, args ...any) *Error {
	return New(CodeSyntax, CatSyntax, format, args...)
}

// Semantic is a 42000-family error found at compile time: an undefined
// variable, a type conflict, a misplaced aggregate.
func Semantic(format string, args ...any) *Error {
	return New(CodeSyntax, CatSyntax, format, args...)
}

// UnknownProcedure is a 42S02 error: CALL of a procedure that does not
// exist.
func UnknownProcedure(format string, args ...any) *Error {
	return New(CodeNoObject, CatUnknownProcedure, format, args...)
}

// Data is a 22000 error: a value is invalid for the operation.
func Data(format string, args ...any) *Error {
	return New(CodeData, CatData, format, args...)
}

// DataCode is a 22xxx error with a specific subclass code.
func DataCode(code, format string, args ...any) *Error {
	return New(code, CatData, format, args...)
}

// NotSupported is a 0A000 error: valid GQL that Quiver does not execute.
func NotSupported(format string, args ...any) *Error {
	return New(CodeNotSupported, CatNotSupported, format, args...)
}

// Timeout is a 40003 error: the query ran past its time limit.
func Timeout(format string, args ...any) *Error {
	return New(CodeTimeout, CatTimeout, format, args...)
}

// Internal is a 40000 error: the statement failed inside the engine for a
// reason that is not the user's (a recovered panic, an I/O failure). The
// transaction it ran in is rolled back.
func Internal(format string, args ...any) *Error {
	return New(CodeTransaction, CatTransaction, format, args...)
}

// DiskFull is a 53100 error: the disk holding the data directory has no
// space left (ENOSPC, or the owner's quota). cause stays reachable with
// errors.Is and errors.As, but its text, which names files of the data
// directory, is left out of the message: the server logs it.
func DiskFull(cause error, format string, args ...any) *Error {
	return &Error{Code: CodeDiskFull, Category: CatResource, Message: fmt.Sprintf(format, args...), cause: cause}
}

// As returns err as an *Error when it is one (or wraps one).
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Stopped reports a statement's context's end as the engine error it
// stands for: its cause when that is one (the statement's deadline, the
// server's memory budget), else a timeout for a deadline and a
// cancellation carrying its cause (a client that left) for the rest; nil
// while the context runs.
func Stopped(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if e, ok := As(cause); ok {
		return e
	}
	if err == context.DeadlineExceeded {
		return Timeout("query exceeded its time limit")
	}
	return Wrap(CodeTransaction, CatTransaction, cause, "query cancelled")
}
