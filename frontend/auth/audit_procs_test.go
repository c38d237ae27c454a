package auth

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// queryRows runs q and returns its column names and rows.
func auditQueryRows(db *engine.DB, q string, params engine.Params) ([]string, [][]vector.Value, error) {
	return auditQueryRowsAs(context.Background(), db, q, params)
}

func auditQueryRowsAs(ctx context.Context, db *engine.DB, q string, params engine.Params) ([]string, [][]vector.Value, error) {
	res, err := db.Query(ctx, q, params)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	var cols []string
	for _, c := range res.Columns() {
		cols = append(cols, c.Name)
	}
	var rows [][]vector.Value
	for {
		b, err := res.Next()
		if err != nil {
			return nil, nil, err
		}
		if b == nil {
			return cols, rows, nil
		}
		for i := range b.Rows() {
			r := b.Row(i)
			row := make([]vector.Value, len(b.Cols))
			for c, v := range b.Cols {
				row[c] = v.Get(r)
			}
			rows = append(rows, row)
		}
	}
}

// CALL audit.get_recent_events(n) yields the newest n events, newest
// first, in the documented columns; a count outside 1..MaxRecent is a
// 22023 data error.
func TestAuditProcedure(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := openTestAudit(t, t.TempDir(), AuditOptions{})
	if err := RegisterAuditProcedures(db, l); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		l.Audit(testAuditEvent(i))
	}
	cols, rows, err := auditQueryRows(db, "CALL audit.get_recent_events(3)", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"event_id", "timestamp", "category", "action", "outcome", "principal", "address", "detail"}
	if !slices.Equal(cols, wantCols) {
		t.Fatalf("columns %v, want %v", cols, wantCols)
	}
	recs := l.Recent(3)
	if len(rows) != 3 {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	for i, row := range rows {
		r := recs[i]
		want := []vector.Value{r.ID, r.Time.Format(time.RFC3339Nano), "authentication", "login", "failure",
			fmt.Sprintf("user%d", r.ID), "127.0.0.1:4000", fmt.Sprintf("attempt %d", r.ID)}
		if !slices.Equal(row, want) {
			t.Fatalf("row %d: %v, want %v", i, row, want)
		}
	}
	if rows[0][0] != int64(5) || rows[2][0] != int64(3) {
		t.Fatalf("not newest first: %v", rows)
	}
	// YIELD picks columns; more than there are returns what there is.
	_, rows, err = auditQueryRows(db, "CALL audit.get_recent_events(10000) YIELD event_id, outcome RETURN event_id, outcome", nil)
	if err != nil || len(rows) != 5 || rows[4][0] != int64(1) || rows[4][1] != "failure" {
		t.Fatalf("YIELD: %v, %v", rows, err)
	}
	for _, bad := range []string{"0", "-1", "10001", "null", "$n"} {
		_, _, err := auditQueryRows(db, "CALL audit.get_recent_events("+bad+")", engine.Params{"n": nil})
		if e, ok := engine.AsError(err); !ok || e.Code != "22023" || e.Category != engine.CatData {
			t.Errorf("count %s: %v", bad, err)
		}
	}
	// It needs the admin privilege.
	for _, c := range []struct {
		privs engine.Privilege
		code  string
	}{{engine.PrivRead | engine.PrivWrite, "42501"}, {engine.PrivAll, ""}} {
		ctx := engine.WithPrincipal(context.Background(), &engine.Principal{Name: "u", Privileges: c.privs})
		_, rows, err := auditQueryRowsAs(ctx, db, "CALL audit.get_recent_events(1)", nil)
		if c.code == "" && (err != nil || len(rows) != 1) {
			t.Errorf("privileges %v: %v, %v", c.privs, rows, err)
		}
		if e, ok := engine.AsError(err); c.code != "" && (!ok || e.Code != c.code) {
			t.Errorf("privileges %v: %v, want %s", c.privs, err, c.code)
		}
	}
	if err := RegisterAuditProcedures(db, nil); err == nil {
		t.Fatal("registering without a log succeeded")
	}
}
