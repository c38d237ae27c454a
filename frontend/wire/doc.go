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
//
// The package knows the engine's public API and frontend/jsonio, which
// writes result rows; it knows nothing of HTTP.
package wire
