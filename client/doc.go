// Package client is Quiver's Go client. It speaks the HTTP API (queries,
// explicit transactions, batches) and the JSON-lines wire protocol over
// QUIC or plain TCP (sessions, rows streamed as they are produced,
// transactions), with the errors of either as one type, *Error.
//
// It depends on the standard library and the transports only, never on
// the server's packages: a program that talks to a Quiver server imports
// this package alone.
package client
