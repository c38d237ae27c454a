package cluster

import (
	"testing"
	"time"
)

// TestSnapshotInstall: with snapshots every few entries and a short log
// kept behind them, a follower closed while the leader commits comes
// back to a log that no longer holds what it missed, and so does a
// learner added afterwards: both install the leader's snapshot (its
// checkpoint, streamed) and then follow the log. Every member restarts
// on what it installed without applying anything twice.
func TestSnapshotInstall(t *testing.T) {
	t.Parallel()
	reopened := map[string]chan struct{}{}
	for _, id := range []string{"n1", "n2", "n3", "n4"} {
		reopened[id] = make(chan struct{}, 16)
	}
	c := newTunedCluster(t, 3, 0, func(cfg *Config) {
		cfg.SnapshotThreshold = 16
		cfg.SnapshotInterval = 20 * time.Millisecond
		cfg.TrailingLogs = 4
		ch := reopened[cfg.ID]
		cfg.Reopened = func() { ch <- struct{}{} }
	})
	ctx := ctxT(t)
	var acked []int
	commit := func(v int) {
		t.Helper()
		c.commit(v)
		acked = append(acked, v)
	}
	for v := 1; v <= 10; v++ {
		commit(v)
	}
	ld := c.leader()
	var f string
	for _, n := range c.live() {
		if n != ld {
			f = n.ID()
		}
	}
	c.checkSame(ld.Bookmark(), acked)
	behind := c.nodes[f].Raft().LastIndex()
	c.stop(f)
	for v := 11; v <= 80; v++ {
		commit(v)
	}
	// Wait until every live member's log starts past what f holds.
	compacted := func() bool {
		for _, n := range c.live() {
			first, err := n.logs.FirstIndex()
			if err != nil || first <= behind+1 {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(testDeadline)
	for !compacted() {
		if time.Now().After(deadline) {
			t.Fatal("the log was not compacted")
		}
		commit(len(acked) + 1) // snapshots follow appended entries
		<-time.After(5 * time.Millisecond)
	}
	n := c.start(f, c.peers)
	c.checkSame(c.leader().Bookmark(), acked)
	if n.installs.Load() == 0 {
		t.Fatalf("%s caught up without installing a snapshot", f)
	}
	// A learner that joins now starts from a snapshot too.
	late := c.start("n4", nil)
	if err := late.RegisterProcedures(); err != nil {
		t.Fatal(err)
	}
	ld = c.leader()
	for err := ld.AddLearner(ctx, "n4", "n4"); err != nil; err = ld.AddLearner(ctx, "n4", "n4") {
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		ld = c.leader()
	}
	commit(len(acked) + 1)
	c.checkSame(c.leader().Bookmark(), acked)
	if late.installs.Load() == 0 {
		t.Fatal("n4 caught up without installing a snapshot")
	}
	// Whoever holds n4's database is told it was reopened, and the
	// reopened one has the cluster's procedures again.
	select {
	case <-reopened["n4"]:
	case <-ctx.Done():
		t.Fatal("n4 reopened its database without telling")
	}
	res, err := late.DB().Query(ctx, "CALL dbms.cluster.overview() YIELD id RETURN id", nil)
	if err != nil {
		t.Fatalf("dbms.cluster.overview on the reopened database: %v", err)
	}
	res.Close()
	// The snapshot's checkpoint may hold commits past raft's snapshot
	// index, the configuration entry that adds n4 among them: n4 applies
	// it when raft hands it the entries after the snapshot.
	deadline = time.Now().Add(testDeadline)
	for late.Role() != "learner" {
		if time.Now().After(deadline) {
			t.Fatalf("n4 is %s", late.Role())
		}
		<-time.After(5 * time.Millisecond)
	}
	// Restarts reload the installed checkpoints and skip what they hold.
	c.stop(f)
	c.stop("n4")
	c.start(f, c.peers)
	c.start("n4", nil)
	commit(len(acked) + 1)
	c.checkSame(c.leader().Bookmark(), acked)
	for _, n := range c.live() {
		if err := n.Err(); err != nil {
			t.Fatalf("%s: %v", n.ID(), err)
		}
	}
}
