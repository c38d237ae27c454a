// Package arrowio writes query results as an Arrow IPC stream: the
// schema from the result's columns, then one record batch per engine
// batch, built from the typed vectors (docs/arrow.md).
//
// Every Quiver type has one Arrow type (schema.go). Typed vectors
// (INTEGER, FLOAT, BOOLEAN, STRING) go to Arrow buffers without boxing,
// their validity bitmaps straight across when no selection vector
// reorders them (encode.go). Generic columns, whose values the plan could
// not type, become a dense union of the scalar and temporal types with a
// JSON-text member for nested values (value.go), so a later batch of
// another type never breaks a schema written before it was seen.
//
// An error after the first batch ends the stream with a truncated IPC
// message that carries the error's JSON (stream.go): every Arrow reader
// fails on it, and a client can read the reason.
package arrowio
