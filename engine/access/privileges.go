package access

// Privilege checks. A statement whose context carries a Principal
// (WithPrincipal) runs only when the principal holds every privilege the
// statement needs; otherwise it is refused with 42501 before anything
// runs. What a statement needs (docs/security.md has the same table):
//
//	query that reads                         read
//	query whose plan writes                  read + write
//	EXPLAIN (prefix or engine.ModeExplain)   read (the plan is shown, nothing runs)
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

// Need is one thing a statement needs: the privileges, what the refusal
// says the user may not do, and the audit event's detail.
type Need struct {
	priv   Privilege
	action string // "write data", "run CREATE INDEX", "call procedure x.y"
	detail string // "write", "admin: CREATE INDEX", "procedure x.y"
}

var (
	needRead  = Need{priv: PrivRead, action: "read data", detail: "read"}
	needWrite = Need{priv: PrivRead | PrivWrite, action: "write data", detail: "write"}
)

func needAdmin(what string) Need {
	return Need{priv: PrivAdmin, action: "run " + what, detail: "admin: " + what}
}

// QueryNeeds is what a bound query needs, explained (EXPLAIN) or run.
// Needs are listed most specific first, so a refusal names the write or
// the procedure rather than the read every query needs too.
func QueryNeeds(p *plan.Plan, explain bool) []Need {
	if explain {
		return []Need{needRead} // describing a plan runs nothing of it
	}
	var out []Need
	if p.Writes {
		out = append(out, needWrite)
	}
	for _, c := range p.Calls {
		out = append(out, Need{priv: c.Required(), action: "call procedure " + c.Name, detail: "procedure " + c.Name})
	}
	return append(out, needRead)
}

// StatementNeeds is what a schema, COPY or session statement needs.
func StatementNeeds(stmt *gql.Statement) []Need {
	switch {
	case stmt.Schema != nil:
		switch stmt.Schema.Kind {
		case gql.SchemaShowIndexes, gql.SchemaShowConstraints:
			return []Need{needRead}
		}
		return []Need{needAdmin(schemaStatementName(stmt.Schema.Kind))}
	case stmt.Copy != nil && stmt.Copy.To():
		// It writes files on the server, as quiver.export does.
		return []Need{needAdmin("COPY TO")}
	case stmt.Copy != nil:
		return []Need{needAdmin("COPY FROM")}
	case stmt.Session != nil && stmt.Session.Kind == gql.SessionCheckpoint:
		return []Need{needAdmin("CHECKPOINT")}
	}
	// SET is session-scoped and bounded by the operator's ceilings
	// (engine/settings); SHOW and savepoints change nothing shared.
	return []Need{needRead}
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

// Authorize refuses a statement with 42501 when its context carries a
// principal lacking one of needs; without a principal everything is
// allowed. The refusal goes to trail. needs is called only when there is
// a principal to check, so a statement without one allocates nothing
// here.
func Authorize(ctx context.Context, trail Trail, needs func() []Need) error {
	p, ok := PrincipalFrom(ctx)
	if !ok || p.Privileges.Has(PrivAll) {
		return nil
	}
	for _, n := range needs() {
		if p.Privileges.Has(n.priv) {
			continue
		}
		trail.Audit(ctx, AuditEvent{Category: "authorization", Action: "permission_denied",
			Outcome: OutcomeDenied, Detail: n.detail})
		return permissionDenied(p, n)
	}
	return nil
}

// permissionDenied is the 42501 error for p lacking n, naming what was
// needed, the user's roles and the built-in roles that would do.
func permissionDenied(p *Principal, n Need) *errs.Error {
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
		p.Name, roles, n.action, subject, PrivilegeNames(n.priv&^p.Privileges), rolesGranting(n.priv))
}

// PrivilegeNames names the privileges of set: "write", "read and admin".
func PrivilegeNames(set Privilege) string {
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
