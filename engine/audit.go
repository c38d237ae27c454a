package engine

// The engine's audit events, sent to Options.Auditor: permission denials
// (privileges.go), schema changes, session settings changes, CHECKPOINT
// and COPY FROM. Events name the principal of the statement's context
// ("" without one: an operator running without authentication still
// wants the schema and settings trail) and never hold a query's
// parameter values.

import (
	"context"
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
)

// maxAuditDetail bounds an event's Detail: names and file paths come
// from the query text, which may be a megabyte long.
const maxAuditDetail = 256

// audit sends e to the Auditor, if any, with the principal and address
// of ctx filled in.
func (db *DB) audit(ctx context.Context, e AuditEvent) {
	a := db.opts.Auditor
	if a == nil {
		return
	}
	if p, ok := PrincipalFrom(ctx); ok {
		e.Principal, e.Address = p.Name, p.Address
	}
	if len(e.Detail) > maxAuditDetail {
		e.Detail = strings.ToValidUTF8(e.Detail[:maxAuditDetail], "") + "…"
	}
	a.Audit(e)
}

// outcomeOf is an audit outcome for a statement that ended with err: a
// 42501 error is a denial.
func outcomeOf(err error) string {
	if err == nil {
		return OutcomeSuccess
	}
	if e, ok := errs.As(err); ok && e.Code == errs.CodePermission {
		return OutcomeDenied
	}
	return OutcomeFailure
}

// auditSchema records a CREATE or DROP of an index or constraint that
// ran (SHOW INDEXES and SHOW CONSTRAINTS change nothing and are not
// recorded).
func (db *DB) auditSchema(ctx context.Context, s *gql.Schema, err error) {
	var action string
	switch s.Kind {
	case gql.SchemaCreateIndex:
		action = "create_index"
	case gql.SchemaDropIndex:
		action = "drop_index"
	case gql.SchemaCreateConstraint:
		action = "create_constraint"
	case gql.SchemaDropConstraint:
		action = "drop_constraint"
	default:
		return
	}
	db.audit(ctx, AuditEvent{Category: "schema", Action: action, Outcome: outcomeOf(err), Detail: schemaObjectName(s)})
}

// schemaObjectName is the name of the index or constraint a schema
// statement creates or drops: as written, or the name CREATE gives one
// written without.
func schemaObjectName(s *gql.Schema) string {
	if s.Name != "" {
		return s.Name
	}
	switch s.Kind {
	case gql.SchemaCreateIndex:
		return catalog.IndexName(s.Label, s.Props)
	case gql.SchemaCreateConstraint:
		kind := catalog.Exists
		if s.Unique {
			kind = catalog.Unique
		}
		if len(s.Props) > 0 {
			return catalog.ConstraintName(kind, s.Label, s.Props[0])
		}
	}
	return ""
}

// auditCopy records a COPY … FROM that ran: the label or type it loads
// and the file as written.
func (db *DB) auditCopy(ctx context.Context, c *gql.Copy, err error) {
	db.audit(ctx, AuditEvent{Category: "admin", Action: "copy_from", Outcome: outcomeOf(err),
		Detail: c.Name + " FROM " + c.Path})
}

// auditSet records a session's SET: the setting and the value asked for
// (numbers and booleans, no secrets), denied when it would have raised an
// operator's ceiling.
func (db *DB) auditSet(ctx context.Context, s *gql.Session, err error) {
	db.audit(ctx, AuditEvent{Category: "settings", Action: "set", Outcome: outcomeOf(err),
		Detail: fmt.Sprintf("%s=%v", strings.ToLower(s.Name), s.Value)})
}
