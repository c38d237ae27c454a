package engine

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// Error is the engine's error type: an ISO/IEC 39075 status code, a
// category, a message and optional position and suggestion. Use
// errors.As(err, &e) with e *engine.Error, or AsError.
type Error = errs.Error

// Position is a 1-based line and column in the query text.
type Position = errs.Position

// DirInUseError is Open's error for a data directory another process (or
// another open DB in this one) holds: one process per data directory.
type DirInUseError = storage.DirInUseError

// AsError returns err as an *Error when it is one or wraps one.
func AsError(err error) (*Error, bool) { return errs.As(err) }

// The ISO/IEC 39075 status codes and the categories of the interface
// contract that clients match on, for frontends to name rather than spell
// (package errs raises them).
const (
	CodeSyntax        = errs.CodeSyntax
	CodeData          = errs.CodeData
	CodeAuth          = errs.CodeAuth
	CodePermission    = errs.CodePermission
	CodeNotFound      = errs.CodeNotFound
	CodeConstraint    = errs.CodeConstraint
	CodeTimeout       = errs.CodeTimeout
	CodeTransaction   = errs.CodeTransaction
	CodeSerialization = errs.CodeSerialization
	CodeUnavailable   = errs.CodeUnavailable
	CodeConnection    = errs.CodeConnection
	CodeCardinality   = errs.CodeCardinality
	CodeNotSupported  = errs.CodeNotSupported
	CodeOutOfMemory   = errs.CodeOutOfMemory
	CodeDiskFull      = errs.CodeDiskFull
	CodeTooMany       = errs.CodeTooMany
	// CodeInvalidParam: a malformed change position, or one in the
	// future (docs/cdc.md).
	CodeInvalidParam = errs.CodeInvalidParam
	// CodeOverflow: a change position older than the change log keeps.
	CodeOverflow = errs.CodeOverflow
	// CodeNotLeader: a write (or a linearizable read) reached a member of
	// a replicated cluster that does not lead (NotLeaderError names it).
	CodeNotLeader = errs.CodeNotLeader
	// CodeResolutionUnknown: a replicated commit whose fate is unknown.
	CodeResolutionUnknown = errs.CodeResolutionUnknown

	CatSyntax      = errs.CatSyntax
	CatData        = errs.CatData
	CatAuth        = errs.CatAuth
	CatPermission  = errs.CatPermission
	CatNotFound    = errs.CatNotFound
	CatTimeout     = errs.CatTimeout
	CatTransaction = errs.CatTransaction
	CatUnavailable = errs.CatUnavailable
)

// NewError returns an engine error with the given code and category, for
// layers above the engine (authentication) that answer in its shape.
func NewError(code, category, format string, args ...any) *Error {
	return errs.New(code, category, format, args...)
}
