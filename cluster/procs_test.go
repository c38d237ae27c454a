package cluster

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// On a single server the overview lists it alone, role primary, and the
// membership procedures fail saying it is no cluster member.
func TestPrimaryProcedures(t *testing.T) {
	t.Parallel()
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

// dbms.cluster.overview() reports every member's applied index and lag
// as the members answer Config.MemberApplied: a follower cut off from
// the leader lags by what it missed, a stopped one is unknown (null).
func TestOverviewLag(t *testing.T) {
	t.Parallel()
	var c *testCluster
	var mu sync.Mutex // guards c until newTunedCluster returns
	mu.Lock()
	c = newTunedCluster(t, 3, 0, func(cfg *Config) {
		cfg.MemberApplied = func(ctx context.Context, id string) (uint64, error) {
			mu.Lock()
			tc := c
			mu.Unlock()
			tc.mu.Lock()
			n := tc.nodes[id]
			tc.mu.Unlock()
			if n == nil {
				return 0, errors.New("not running")
			}
			return n.AppliedIndex(), nil
		}
	})
	mu.Unlock()
	for _, n := range c.live() {
		if err := n.RegisterProcedures(); err != nil {
			t.Fatal(err)
		}
	}
	for v := 1; v <= 3; v++ {
		c.commit(v)
	}
	ld := c.leader()
	var fs []string
	for _, n := range c.live() {
		if n != ld {
			fs = append(fs, n.ID())
		}
	}
	overview := func(n *Node) map[string][]any {
		t.Helper()
		out := map[string][]any{}
		for _, r := range rows(t, n, "CALL dbms.cluster.overview() YIELD id, role, appliedIndex, lag RETURN id, role, appliedIndex, lag") {
			out[r[0].(string)] = r[1:]
		}
		return out
	}
	// Caught up: every member's applied index is the leader's, lag 0.
	deadline := time.Now().Add(testDeadline)
	for {
		rows, want := overview(ld), int64(ld.AppliedIndex())
		same := len(rows) == 3
		for _, r := range rows {
			same = same && r[1] == want && r[2] == int64(0)
		}
		if same {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("overview on the leader %s = %v, want every member at %d with lag 0", ld.ID(), rows, want)
		}
		<-time.After(10 * time.Millisecond)
	}
	// Cut off, a follower falls behind by what it misses.
	c.isolate(fs[0])
	for v := 4; v <= 6; v++ {
		c.commit(v)
	}
	ld = c.leader()
	if r := overview(ld)[fs[0]]; r == nil || r[2] == nil || r[2].(int64) < 3 {
		t.Errorf("the isolated %s in the leader's overview: %v, want a lag of 3 or more", fs[0], r)
	}
	c.heal(fs[0])
	// Stopped, a member is unknown; the live ones are known.
	c.stop(fs[1])
	ld = c.leader()
	seen := overview(ld)
	if r := seen[fs[1]]; r == nil || r[1] != nil || r[2] != nil {
		t.Errorf("the stopped %s in the overview: %v, want null applied index and lag", fs[1], r)
	}
	for _, n := range c.live() {
		if r := seen[n.ID()]; r == nil || r[1] == nil || r[2] == nil {
			t.Errorf("the live %s in the overview: %v, want its applied index and lag", n.ID(), r)
		}
	}
}
