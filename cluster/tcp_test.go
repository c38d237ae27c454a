package cluster

import (
	"io"
	"log/slog"
	"testing"
)

// TestTCPTransportAndMembership: members over raft's TCP transport on
// loopback ports chosen by the system. The first bootstraps alone; the
// leader adds the others as voters, one as a learner, and removes one;
// every commit reaches every member still in the configuration.
func TestTCPTransportAndMembership(t *testing.T) {
	ctx := ctxT(t)
	open := func(id string, peers []Peer) *Node {
		t.Helper()
		n, err := Open(Config{ID: id, Address: "127.0.0.1:0", DataDir: t.TempDir(), Peers: peers,
			HeartbeatTimeout: testHeartbeat, ElectionTimeout: testHeartbeat, LeaderLeaseTimeout: testHeartbeat / 2,
			RaftLog: io.Discard, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		return n
	}
	n1 := open("n1", []Peer{{ID: "n1", Address: "127.0.0.1:0"}})
	c := &testCluster{t: t, nodes: map[string]*Node{"n1": n1}}
	ld := c.leader()
	n2, n3, n4 := open("n2", nil), open("n3", nil), open("n4", nil)
	for _, n := range []*Node{n2, n3} {
		if err := ld.AddVoter(ctx, n.ID(), n.Address()); err != nil {
			t.Fatal(err)
		}
	}
	if err := ld.AddLearner(ctx, n4.ID(), n4.Address()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.nodes["n2"], c.nodes["n3"], c.nodes["n4"] = n2, n3, n4
	c.mu.Unlock()
	var acked []int
	for v := 1; v <= 10; v++ {
		if err := write(ctx, ld, v); err != nil {
			t.Fatal(err)
		}
		acked = append(acked, v)
	}
	c.checkSame(ld.Bookmark(), acked)
	if n4.Role() != "learner" || n2.Role() != "follower" {
		t.Fatalf("roles: n2 %s, n4 %s", n2.Role(), n4.Role())
	}
	if err := ld.RemoveServer(ctx, "n3"); err != nil {
		t.Fatal(err)
	}
	// The removed member may never hear of its removal (the leader stops
	// sending to it): close it, as an operator would.
	n3.Close()
	c.mu.Lock()
	delete(c.nodes, "n3")
	c.mu.Unlock()
	if err := write(ctx, ld, 11); err != nil {
		t.Fatal(err)
	}
	c.checkSame(ld.Bookmark(), append(acked, 11))
	ms, err := ld.Members()
	if err != nil || len(ms) != 3 {
		t.Fatalf("members after the removal: %+v %v", ms, err)
	}
}
