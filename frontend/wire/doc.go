// Package wire is Quiver's JSON-lines wire protocol: one JSON object per
// line in each direction, a session per connection (HELLO, then RUN_GQL,
// BEGIN, COMMIT, ROLLBACK, PING), results streamed as SCHEMA, BINDINGS
// and SUCCESS or ERROR under PULL flow control. docs/wire-protocol.md is
// the protocol's reference for users.
//
// Two transports carry the same session code: plain TCP on the HTTP
// API's port (Split hands connections whose first byte is '{' to the
// protocol and the rest to the HTTP server), and QUIC on the same port
// number over UDP (ServeQUIC), one session per bidirectional stream,
// TLS 1.3 with ALPN "quiver/1" and a certificate from files or
// generated once into the data directory (LoadOrCreateCertificate).
// With Config.TLS the shared TCP port speaks TLS only, and the split
// happens inside it (tlssplit.go).
//
// With Config.Auth enabled, HELLO carries credentials and every
// statement runs as the session's principal, re-read before each one
// (auth.go).
//
// The package knows the engine's public API, frontend/jsonio, which
// writes result rows, and frontend/auth's Service; it knows nothing of
// HTTP.
package wire
