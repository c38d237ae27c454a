// Package auth owns who may use the server: users and their roles,
// password hashes (argon2id), access and refresh tokens, API keys, the
// login limiter and the audit trail (docs/security.md). Users, roles,
// keys and refresh-token state are system records of the database
// (engine.DB.SystemPut), so they go through the WAL like data; the audit
// trail is an append-only file in the data directory.
//
// The frontends ask this package who a request is (Authenticate*) and
// attach the answer to the statement's context (engine.WithPrincipal);
// the engine checks privileges on the statement's plan. This package
// never speaks HTTP or the wire protocol: it returns engine errors
// (08001 AUTH_FAILED, 42501 PERMISSION_DENIED, 429-class rate limits as
// *LimitError) and the frontends map them.
package auth
