package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// auditRecentSignature is CALL audit.get_recent_events(count): the
// spec's columns (event_id, timestamp, category, action, outcome) in its
// order, then who, from where and the detail. timestamp is a STRING in
// RFC 3339 with nanoseconds, UTC, as in the file: procedure outputs have
// no temporal type, and a string reads the same on every protocol.
var auditRecentSignature = engine.ProcedureSignature{
	Name:   "audit.get_recent_events",
	Inputs: []engine.ProcedureField{{Name: "count", Type: "INTEGER"}},
	Outputs: []engine.ProcedureField{
		{Name: "event_id", Type: "INTEGER"},
		{Name: "timestamp", Type: "STRING"},
		{Name: "category", Type: "STRING"},
		{Name: "action", Type: "STRING"},
		{Name: "outcome", Type: "STRING"},
		{Name: "principal", Type: "STRING"},
		{Name: "address", Type: "STRING"},
		{Name: "detail", Type: "STRING"},
	},
	Requires: engine.PrivAdmin,
}

// RegisterAuditProcedures makes l readable with CALL
// audit.get_recent_events(count): the newest count events (1 to
// MaxRecent), newest first. It needs the admin privilege.
func RegisterAuditProcedures(db *engine.DB, l *AuditLog) error {
	if l == nil {
		return fmt.Errorf("cannot register the audit procedures: no audit log")
	}
	err := db.RegisterProcedure(auditRecentSignature, func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
		n, ok := args[0].(int64)
		if !ok || n < 1 || n > MaxRecent {
			return nil, engine.NewError("22023", engine.CatData,
				"audit.get_recent_events: count must be an integer from 1 to %d, got %s", MaxRecent, describeCount(args[0]))
		}
		recs := l.Recent(int(n))
		rows := make([][]vector.Value, len(recs))
		for i := range recs {
			r := &recs[i]
			rows[i] = []vector.Value{
				r.ID, r.Time.UTC().Format(time.RFC3339Nano),
				r.Category, r.Action, r.Outcome, r.Principal, r.Address, r.Detail,
			}
		}
		return rows, nil
	})
	if err != nil {
		return fmt.Errorf("cannot register audit.get_recent_events: %w", err)
	}
	return nil
}

// describeCount names a rejected count for the error message.
func describeCount(v vector.Value) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}
