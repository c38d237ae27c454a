package engine

// Privilege checks. A statement whose context carries a Principal
// (WithPrincipal) runs only when the principal holds every privilege the
// statement needs; otherwise it is refused with 42501 before anything
// runs. What a statement needs (docs/security.md has the same table):
//
//	query that reads                         read
//	query whose plan writes                  read + write
//	EXPLAIN (prefix or ModeExplain)          read (the plan is shown, nothing runs)
//	PROFILE                                  as the statement it runs
//	CALL of a procedure (any part of a UNION) the procedure's Required()
//	CREATE/DROP INDEX, CREATE/DROP CONSTRAINT admin
//	SHOW INDEXES, SHOW CONSTRAINTS           read
//	COPY … FROM, CHECKPOINT                  admin
//	SET, SHOW, SHOW FUNCTIONS, savepoints    read
//
// A statement needs the union of the rows that apply. Queries are checked
// on their bound plan (so what the plan does is what is checked, and an
// EXPLAIN of a write is allowed to a reader); the statements that run
// before binding (schema, COPY, session) are checked before they run.

import (
	"context"
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
)

// need is one thing a statement needs: the privileges, what the refusal
// says the user may not do, and the audit event's detail.
type need struct {
	priv   Privilege
	action string // "write data", "run CREATE INDEX", "call procedure x.y"
	detail string // "write", "admin: CREATE INDEX", "procedure x.y"
}

var (
	needRead  = need{priv: PrivRead, action: "read data", detail: "read"}
	needWrite = need{priv: PrivRead | PrivWrite, action: "write data", detail: "write"}
)

func needAdmin(what string) need {
	return need{priv: PrivAdmin, action: "run " + what, detail: "admin: " + what}
}

// queryNeeds is what a bound query needs in mode m. Needs are listed most
// specific first, so a refusal names the write or the procedure rather
// than the read every query needs too.
func queryNeeds(p *plan.Plan, m Mode) []need {
	if m == ModeExplain {
		return []need{needRead} // describing a plan runs nothing of it
	}
	var out []need
	if p.Writes {
		out = append(out, needWrite)
	}
	for _, c := range p.Calls {
		out = append(out, need{priv: c.Required(), action: "call procedure " + c.Name, detail: "procedure " + c.Name})
	}
	return append(out, needRead)
}

// statementNeeds is what a schema, COPY or session statement needs.
func statementNeeds(stmt *gql.Statement) []need {
	switch {
	case stmt.Schema != nil:
		switch stmt.Schema.Kind {
		case gql.SchemaShowIndexes, gql.SchemaShowConstraints:
			return []need{needRead}
		}
		return []need{needAdmin(schemaStatementName(stmt.Schema.Kind))}
	case stmt.Copy != nil:
		return []need{needAdmin("COPY FROM")}
	case stmt.Session != nil && stmt.Session.Kind == gql.SessionCheckpoint:
		return []need{needAdmin("CHECKPOINT")}
	}
	// SET is session-scoped and bounded by the operator's ceilings
	// (session.go); SHOW and savepoints change nothing shared.
	return []need{needRead}
}

// schemaStatementName names a schema statement's kind as written.
func schemaStatementName(k gql.SchemaKind) string {
	switch k {
	case gql.SchemaCreateIndex:
		return "CREATE INDEX"
	case gql.SchemaDropIndex:
		return "DROP INDEX"
	case gql.SchemaCreateConstraint:
		return "CREATE CONSTRAINT"
	case gql.SchemaDropConstraint:
		return "DROP CONSTRAINT"
	case gql.SchemaShowIndexes:
		return "SHOW INDEXES"
	case gql.SchemaShowConstraints:
		return "SHOW CONSTRAINTS"
	}
	return "a schema statement"
}

// authorize refuses the statement with 42501 when its context carries a
// principal lacking one of needs; without a principal everything is
// allowed. The refusal is audited. needs is called only when there is a
// principal to check, so a statement without one allocates nothing here.
func (st *statementRun) authorize(needs func() []need) error {
	p, ok := PrincipalFrom(st.ctx)
	if !ok || p.Privileges.Has(PrivAll) {
		return nil
	}
	for _, n := range needs() {
		if p.Privileges.Has(n.priv) {
			continue
		}
		st.s.db.audit(st.ctx, AuditEvent{Category: "authorization", Action: "permission_denied",
			Outcome: OutcomeDenied, Detail: n.detail})
		return permissionDenied(p, n)
	}
	return nil
}

// permissionDenied is the 42501 error for p lacking n, naming what was
// needed, the user's roles and the built-in roles that would do.
func permissionDenied(p *Principal, n need) *errs.Error {
	roles := "none"
	if len(p.Roles) > 0 {
		roles = strings.Join(p.Roles, ", ")
	}
	subject := "this statement needs"
	if strings.HasPrefix(n.action, "call procedure") {
		subject = "it needs"
	}
	return errs.New(errs.CodePermission, errs.CatPermission,
		"user %q (roles: %s) may not %s: %s the %s privilege (role %s)",
		p.Name, roles, n.action, subject, privilegeNames(n.priv&^p.Privileges), rolesGranting(n.priv))
}

// privilegeNames names the privileges of set: "write", "read and admin".
func privilegeNames(set Privilege) string {
	var names []string
	for _, x := range []struct {
		p    Privilege
		name string
	}{{PrivRead, "read"}, {PrivWrite, "write"}, {PrivAdmin, "admin"}} {
		if set&x.p != 0 {
			names = append(names, x.name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("%#x", uint8(set))
	}
	return strings.Join(names, " and ")
}

// builtinRoles are the built-in roles and what they grant, as the auth
// layer defines them (docs/security.md); the refusal suggests those that
// would allow the statement. Custom roles are not named.
var builtinRoles = []struct {
	name string
	priv Privilege
}{{"reader", PrivRead}, {"editor", PrivRead | PrivWrite}, {"admin", PrivAll}}

// rolesGranting lists the built-in roles holding every privilege of need:
// "editor or admin".
func rolesGranting(need Privilege) string {
	var names []string
	for _, r := range builtinRoles {
		if r.priv.Has(need) {
			names = append(names, r.name)
		}
	}
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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

// withExplicitTransaction marks ctx as a statement's in an explicit
// transaction.
func withExplicitTransaction(ctx context.Context) context.Context {
	return context.WithValue(ctx, explicitTxKey{}, true)
}
