// Package client is Quiver's Go client. It speaks the HTTP API (queries,
// explicit transactions, batches) and the JSON-lines wire protocol over
// QUIC or TCP (sessions, rows streamed as they are produced,
// transactions), with the errors of either as one type, *Error.
//
// HTTPClient.QueryArrow (and HTTPTx.QueryArrow) asks for a result as an
// Arrow IPC stream and returns an ArrowReader, an arrow-go record reader
// that reads one record batch at a time (docs/arrow.md): typed columns
// for a dataframe, with no JSON on either side.
//
// A server started with --auth-enabled wants credentials. Over HTTP
// (http_auth.go) a client sends a bearer token (HTTPClient.Login, which
// then keeps the token, or WithBearerToken), an API key (WithAPIKey) or
// HTTP Basic (WithBasicAuth); Refresh rotates a token session and Logout
// ends it. A refused credential is an *Error with Status 401 and Code
// 08001, a lack of privilege 403 and 42501. The wire protocol sends its
// credentials in HELLO (WireOptions: Username and Password, or
// AuthMethod bearer or api_key).
//
// A server started with --tls-cert speaks TLS on its port: HTTPS with
// WithTLSConfig, the wire protocol over TCP with WireOptions.TLS, each
// with TLSConfigFromCA (the CA's PEM file) or PinnedTLSConfig (a
// certificate's fingerprint).
//
// It depends on the standard library, the transports and arrow-go only, never on
// the server's packages: a program that talks to a Quiver server imports
// this package alone.
package client
