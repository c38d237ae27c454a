package cluster

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// On a single server the overview lists it alone, role primary, and the
// membership procedures fail saying it is no cluster member.
func TestPrimaryProcedures(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := RegisterPrimaryProcedures(db, "node-1", "127.0.0.1:3141"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := db.Query(ctx, "CALL dbms.cluster.overview() YIELD id, address, role, appliedIndex, lag RETURN id, address, role, lag", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var rows [][]any
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		for i := 0; i < b.Rows(); i++ {
			var row []any
			for _, c := range b.Cols {
				row = append(row, c.Get(b.Row(i)))
			}
			rows = append(rows, row)
		}
	}
	if len(rows) != 1 || rows[0][0] != "node-1" || rows[0][1] != "127.0.0.1:3141" || rows[0][2] != "primary" || rows[0][3] != int64(0) {
		t.Errorf("overview = %v", rows)
	}
	for _, q := range []string{"CALL dbms.cluster.addMember('n2', '127.0.0.1:7002')", "CALL dbms.cluster.removeMember('n2')", "CALL dbms.cluster.transferLeadership()"} {
		_, err := db.Query(ctx, q, nil)
		e, ok := engine.AsError(err)
		if !ok || e.Code != "0A000" || !strings.Contains(e.Message, "not a member of a cluster") {
			t.Errorf("%s: %v", q, err)
		}
	}
}
