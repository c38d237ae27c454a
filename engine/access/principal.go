// Package access owns who runs a statement and what it may do: the
// Principal a frontend attaches to a statement's context, the privileges
// a statement needs and the check that refuses it with 42501
// (privileges.go), and the audit trail's events (audit.go). The engine
// checks every statement through it; the frontends authenticate and
// build the Principal.
package access

import (
	"context"

	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
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
	// Attributes are the user's attributes (dbms.security.setUserAttribute):
	// scalars or lists, read by row-level security predicates as $user.
	Attributes map[string]vector.Value
	// Credential is opaque outside package auth: which credential
	// (password generation, API key) auth's Current re-checks.
	Credential string
	// Graph is the graph Privileges are for, once the engine narrowed
	// them to the graph a statement runs on ("" before: the server's),
	// and ServerPrivileges what the roles give server-wide then.
	Graph            string
	ServerPrivileges Privilege
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

type explicitTxKey struct{}

// InExplicitTransaction reports whether ctx is the context of a statement
// running inside an explicit transaction (BeginTransaction), as a
// procedure sees it: the auth layer refuses user management there, since
// its changes must not wait on, or roll back with, the user's data.
func InExplicitTransaction(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	v, _ := ctx.Value(explicitTxKey{}).(bool)
	return v
}

// WithExplicitTransaction marks ctx as a statement's in an explicit
// transaction.
func WithExplicitTransaction(ctx context.Context) context.Context {
	return context.WithValue(ctx, explicitTxKey{}, true)
}
