package engine

import (
	"context"

	"github.com/quiverdb/quiver/engine/procs"
)

// Privilege is what a statement needs and a principal holds, as a set of
// bits: reading data (and EXPLAIN, SHOW, a session's SET), writing data,
// and administering the server (schema statements, COPY FROM,
// CHECKPOINT, user management, the audit trail). docs/security.md maps
// the built-in roles onto them.
type Privilege = procs.Privilege

const (
	PrivRead  = procs.PrivRead
	PrivWrite = procs.PrivWrite
	PrivAdmin = procs.PrivAdmin
	// PrivAll is every privilege: what a statement without a principal
	// (authentication off, or an embedding program) runs with.
	PrivAll = PrivRead | PrivWrite | PrivAdmin
)

// Principal is who runs a statement: the authenticated user, what their
// roles grant, and where the request came from (for the audit trail).
// Frontends attach it to the statement's context with WithPrincipal; a
// statement whose context has none runs with every privilege.
type Principal struct {
	Name       string    // user name
	Roles      []string  // the user's roles, as granted
	Privileges Privilege // the union of the roles' privileges
	Address    string    // the client's address (host:port or host)
	Method     string    // how it authenticated: bearer, api_key, basic, password
	Session    string    // the token session (bearer), empty otherwise
	// Credential is opaque outside package auth: which credential
	// (password generation, API key) auth's Current re-checks.
	Credential string
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p: statements run under it are
// checked against p's privileges, and procedures can read it.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries, if any.
func PrincipalFrom(ctx context.Context) (*Principal, bool) {
	if ctx == nil {
		return nil, false
	}
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}

// AuditEvent is one entry of the audit trail: something security-relevant
// that happened, who did it and how it ended. It never holds a password
// or a token.
type AuditEvent struct {
	Category  string // authentication, authorization, user_management, schema, settings, admin
	Action    string // e.g. login, token_refresh, permission_denied, create_index
	Outcome   string // success, failure or denied
	Principal string // user name; empty when unknown (a failed login names the attempted user in Detail)
	Address   string // client address
	Detail    string // free text for people; no secrets
}

// Audit outcomes.
const (
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
	OutcomeDenied  = "denied"
)

// Auditor receives the engine's audit events (schema and settings
// changes, permission denials). It is called synchronously from the
// statement's goroutine and must be safe for concurrent use.
type Auditor interface {
	Audit(e AuditEvent)
}
