package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/storage"
)

// TestBookmarksAndReadIndex: a bookmark taken on the leader after a
// commit makes any member's read see it once WaitApplied returns; the
// leader's read barrier covers every acknowledged commit, and a
// follower's names the leader; a bookmark no member reached times out.
func TestBookmarksAndReadIndex(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	for v := 1; v <= 5; v++ {
		bm := c.commit(v)
		for _, n := range c.live() {
			if err := n.WaitApplied(ctx, bm); err != nil {
				t.Fatal(err)
			}
			if got := values(t, n); len(got) != v || got[v-1] != v {
				t.Fatalf("%s after bookmark %d holds %v", n.ID(), bm, got)
			}
		}
	}
	ld := c.leader()
	idx, err := ld.LinearizableBarrier(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if idx < ld.Bookmark() {
		t.Fatalf("read index %d below the last commit's bookmark %d", idx, ld.Bookmark())
	}
	for _, n := range c.live() {
		if n == ld {
			continue
		}
		_, err := n.LinearizableBarrier(ctx)
		var nl *storage.NotLeaderError
		if !errors.As(err, &nl) || nl.LeaderID != ld.ID() {
			t.Fatalf("%s: barrier error %v", n.ID(), err)
		}
		// A membership entry is not a commit: waiting for its index ends
		// once the commits before it are applied.
	}
	if err := ld.RemoveServer(ctx, "n-none"); err != nil {
		t.Fatalf("removing an unknown member: %v", err)
	}
	last := ld.Raft().LastIndex()
	for _, n := range c.live() {
		if err := n.WaitApplied(ctx, last); err != nil {
			t.Fatalf("%s: waiting for a non-commit entry: %v", n.ID(), err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := ld.WaitApplied(short, last+1000); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for an index nobody has: %v", err)
	}
}
