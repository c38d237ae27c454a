package cluster

import (
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestFollowerChangeFeed: a change feed on a follower receives the
// commits it applies, in log order, with their raft indexes, as one on
// the leader receives the leader's.
func TestFollowerChangeFeed(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	feeds := map[string]*engine.ChangeFeed{}
	for _, n := range c.live() {
		f, err := n.DB().SubscribeChanges(engine.SubscribeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		feeds[n.ID()] = f
	}
	var indexes []uint64
	for v := 1; v <= 3; v++ {
		indexes = append(indexes, c.commit(v))
	}
	for id, f := range feeds {
		for i, want := range indexes {
			b, err := f.Next(ctx)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if b.LSN != want || len(b.Changes) != 1 || b.Changes[0].Op != engine.ChangeCreated {
				t.Fatalf("%s: event %d: %+v, want the creation at index %d", id, i, b, want)
			}
		}
	}
}
