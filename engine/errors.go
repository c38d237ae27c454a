package engine

import "github.com/quiverdb/quiver/engine/errs"

// Error is the engine's error type: an ISO/IEC 39075 status code, a
// category, a message and optional position and suggestion. Use
// errors.As(err, &e) with e *engine.Error, or AsError.
type Error = errs.Error

// Position is a 1-based line and column in the query text.
type Position = errs.Position

// AsError returns err as an *Error when it is one or wraps one.
func AsError(err error) (*Error, bool) { return errs.As(err) }
