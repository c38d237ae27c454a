package wire

import (
	"fmt"

	"github.com/quiverdb/quiver/engine"
)

// wireError is an ERROR on its way to the client. fatal closes the
// connection once it is written (docs/wire-protocol.md, Errors).
type wireError struct {
	code, category, message string
	position                *engine.Position
	fatal                   bool
	// retryAfter is the seconds a refused client waits (the rate
	// limit's ERROR); 0: none.
	retryAfter int64
	// leader is a 25006 error's details.leader (cluster.go).
	leader *leaderRef
}

// The category of protocol errors (08000): the contract names its wire
// code "Connection".
const catConnection = "CONNECTION_EXCEPTION"

// protocolError is a 08000 error: a message out of order, a timeout, a
// limit of the connection.
func protocolError(fatal bool, format string, args ...any) *wireError {
	return &wireError{code: engine.CodeConnection, category: catConnection, message: fmt.Sprintf(format, args...), fatal: fatal}
}

// dataError is a 22000 error: a message that is not what its type
// needs (malformed JSON, a missing field, a wrong type, a value out of
// range).
func dataError(format string, args ...any) *wireError {
	return &wireError{code: engine.CodeData, category: engine.CatData, message: fmt.Sprintf(format, args...)}
}

// fromEngine converts an error of the engine; its code stays. An error
// that is not the engine's is internal: the client gets a generic
// message and ok is false so that the caller logs the real one.
func fromEngine(err error) (_ *wireError, ok bool) {
	e, ok := engine.AsError(err)
	if !ok {
		return &wireError{code: engine.CodeTransaction, category: engine.CatTransaction, message: "internal error"}, false
	}
	return &wireError{code: e.Code, category: e.Category, message: e.Message, position: e.Position}, true
}
