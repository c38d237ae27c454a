package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPartitionedLeaderWithNewNames: as TestPartitionedLeader…, but
// every commit creates a label and a property key of its own, so the
// cut-off leader registers catalog names its dropped commits alone
// carried, at ids the new leader gives to other names.
func TestPartitionedLeaderWithNewNames(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	for v := 1; v <= 5; v++ {
		c.commitWith(v, writeNamed)
	}
	old := c.leader()
	c.isolate(old.ID())
	// Commits the old leader takes now cannot reach a quorum.
	errc := make(chan error, 1)
	go func() { errc <- writeNamed(context.Background(), old, 1000) }()
	deadline := time.Now().Add(testDeadline)
	var nl *Node
	for nl == nil {
		if n := c.writable(); n != nil && n != old {
			nl = n
		}
		if time.Now().After(deadline) {
			t.Fatal("no new leader")
		}
		<-time.After(2 * time.Millisecond)
	}
	if err := <-errc; err == nil {
		t.Fatal("the cut-off leader acknowledged a commit")
	} else if k := code(err); k != "08007" && k != "25006" {
		t.Fatalf("the cut-off leader's commit: %v", err)
	}
	var bm uint64
	for v := 6; v <= 10; v++ {
		bm = c.commitWith(v, writeNamed)
	}
	c.heal(old.ID())
	c.checkSame(bm, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if err := old.Err(); err != nil {
		t.Fatalf("the old leader stopped following: %v", err)
	}
	// The names are the leader's on every member.
	for _, n := range c.live() {
		res, err := n.DB().Query(ctx, "MATCH (x:L7) RETURN x.k7", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := res.Next()
		if err != nil || b == nil || b.Rows() != 1 || fmt.Sprint(b.Cols[0].Get(b.Row(0))) != "7" {
			t.Fatalf("%s: L7 lookup: %v rows, %v", n.ID(), b, err)
		}
		res.Close()
	}
}

// writeNamed creates a :K:L<v> node with v and k<v> = v.
func writeNamed(ctx context.Context, n *Node, v int) error {
	res, err := n.DB().Query(ctx, fmt.Sprintf("CREATE (:K:L%d {v: %d, k%d: %d})", v, v, v, v), nil)
	if err != nil {
		return err
	}
	return res.Close()
}
