package access

// The engine's audit events, sent to engine.Options.Auditor: permission denials
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

// maxAuditDetail bounds an event's Detail: names and file paths come
// from the query text, which may be a megabyte long.
const maxAuditDetail = 256

// Trail is a database's audit trail: its Auditor (nil: none).
type Trail struct{ Auditor Auditor }

// Audit sends e to the Auditor, if any, with the principal and address
// of ctx filled in.
func (t Trail) Audit(ctx context.Context, e AuditEvent) {
	a := t.Auditor
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

// OutcomeOf is an audit outcome for a statement that ended with err: a
// 42501 error is a denial.
func OutcomeOf(err error) string {
	if err == nil {
		return OutcomeSuccess
	}
	if e, ok := errs.As(err); ok && e.Code == errs.CodePermission {
		return OutcomeDenied
	}
	return OutcomeFailure
}

// Schema records a CREATE or DROP of an index or constraint that
// ran (SHOW INDEXES and SHOW CONSTRAINTS change nothing and are not
// recorded).
func (t Trail) Schema(ctx context.Context, s *gql.Schema, err error) {
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
	t.Audit(ctx, AuditEvent{Category: "schema", Action: action, Outcome: OutcomeOf(err), Detail: SchemaObjectName(s)})
}

// SchemaObjectName is the name of the index or constraint a schema
// statement creates or drops: as written, or the name CREATE gives one
// written without.
func SchemaObjectName(s *gql.Schema) string {
	if s.Name != "" {
		return s.Name
	}
	switch s.Kind {
	case gql.SchemaCreateIndex:
		switch s.IndexType {
		case "FULLTEXT":
			return "fulltext_" + catalog.IndexName(s.Label, s.Props)[len("index_"):]
		case "VECTOR":
			return "vector_" + catalog.IndexName(s.Label, s.Props)[len("index_"):]
		}
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

// Copy records a COPY … FROM that ran: the label or type it loads
// and the file as written.
func (t Trail) Copy(ctx context.Context, c *gql.Copy, err error) {
	t.Audit(ctx, AuditEvent{Category: "admin", Action: "copy_from", Outcome: OutcomeOf(err),
		Detail: c.Name + " FROM " + c.Path})
}

// Set records a session's SET: the setting and the value asked for
// (numbers and booleans, no secrets), denied when it would have raised an
// operator's ceiling.
func (t Trail) Set(ctx context.Context, s *gql.Session, err error) {
	t.Audit(ctx, AuditEvent{Category: "settings", Action: "set", Outcome: OutcomeOf(err),
		Detail: fmt.Sprintf("%s=%v", strings.ToLower(s.Name), s.Value)})
}
