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
	t.Parallel()
	ctx := ctxT(t)
	open := func(id string, peers []Peer) *Node {
		t.Helper()
		n, err := Open(Config{ID: id, Address: "127.0.0.1:0", DataDir: t.TempDir(), Peers: peers,
			Auth:             MemberAuth{Secret: []byte("the members of this test share it")},
			HeartbeatTimeout: testHeartbeat, ElectionTimeout: testHeartbeat, LeaderLeaseTimeout: testHeartbeat,
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
	// Membership changes go to the leader, which a busy machine can move.
	change := func(f func(*Node) error) {
		t.Helper()
		for err := f(ld); err != nil; err = f(ld) {
			if ctx.Err() != nil {
				t.Fatal(err)
			}
			ld = c.leader()
		}
	}
	for _, n := range []*Node{n2, n3} {
		change(func(l *Node) error { return l.AddVoter(ctx, n.ID(), n.Address()) })
		c.mu.Lock()
		c.nodes[n.ID()] = n
		c.mu.Unlock()
	}
	change(func(l *Node) error { return l.AddLearner(ctx, n4.ID(), n4.Address()) })
	c.mu.Lock()
	c.nodes["n4"] = n4
	c.mu.Unlock()
	var acked []int
	var bm uint64
	for v := 1; v <= 10; v++ {
		bm = c.commit(v)
		acked = append(acked, v)
	}
	c.checkSame(bm, acked)
	if n4.Role() != "learner" {
		t.Fatalf("n4 is %s", n4.Role())
	}
	// Remove a voter that does not lead.
	victim := n3
	if c.leader() == n3 {
		victim = n2
	}
	change(func(l *Node) error { return l.RemoveServer(ctx, victim.ID()) })
	// The removed member may never hear of its removal (the leader stops
	// sending to it): close it, as an operator would.
	victim.Close()
	c.mu.Lock()
	delete(c.nodes, victim.ID())
	c.mu.Unlock()
	c.checkSame(c.commit(11), append(acked, 11))
	ms, err := c.leader().Members()
	if err != nil || len(ms) != 3 {
		t.Fatalf("members after the removal: %+v %v", ms, err)
	}
}
