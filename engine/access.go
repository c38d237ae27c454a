package engine

import (
	"context"

	"github.com/quiverdb/quiver/engine/access"
)

// Who runs a statement and what it may do (engine/access): frontends
// attach a Principal to a statement's context; the engine checks the
// statement against its privileges and reports to Options.Auditor.

// Privilege is what a statement needs and a principal holds, as a set of
// bits: reading data (and EXPLAIN, SHOW, a session's SET), writing data,
// and administering the server (schema statements, COPY FROM,
// CHECKPOINT, user management, the audit trail). docs/security.md maps
// the built-in roles onto them.
type Privilege = access.Privilege

const (
	PrivRead  = access.PrivRead
	PrivWrite = access.PrivWrite
	PrivAdmin = access.PrivAdmin
	// PrivAll is every privilege: what a statement without a principal
	// (authentication off, or an embedding program) runs with.
	PrivAll = access.PrivAll
)

// Principal is who runs a statement (access.Principal). A statement whose
// context has none runs with every privilege.
type Principal = access.Principal

// WithPrincipal returns ctx carrying p: statements run under it are
// checked against p's privileges, and procedures can read it.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return access.WithPrincipal(ctx, p)
}

// PrincipalFrom returns the principal ctx carries, if any.
func PrincipalFrom(ctx context.Context) (*Principal, bool) { return access.PrincipalFrom(ctx) }

// InExplicitTransaction reports whether ctx is the context of a statement
// running inside an explicit transaction (BeginTransaction), as a
// procedure sees it.
func InExplicitTransaction(ctx context.Context) bool { return access.InExplicitTransaction(ctx) }

// AuditEvent is one entry of the audit trail (access.AuditEvent).
type AuditEvent = access.AuditEvent

// Audit outcomes.
const (
	OutcomeSuccess = access.OutcomeSuccess
	OutcomeFailure = access.OutcomeFailure
	OutcomeDenied  = access.OutcomeDenied
)

// Auditor receives the engine's audit events (schema and settings
// changes, permission denials). It is called synchronously from the
// statement's goroutine and must be safe for concurrent use.
type Auditor = access.Auditor

// ValidRoleName reports whether r can name a role: a built-in one, or one
// of the operator's own naming, which grants on graphs give privileges to
// (docs/graphs.md).
func ValidRoleName(r string) bool { return access.RoleName(r) }
