package cluster

import (
	"reflect"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// TestCDCPositionsSameOnEveryMember: with change capture on, every
// member records the commits it applies with the same positions and
// the same content (committed_at is when each member recorded it), and
// a follower that restarts goes on where it stopped.
func TestCDCPositionsSameOnEveryMember(t *testing.T) {
	t.Parallel()
	c := newTunedCluster(t, 3, 0, func(cfg *Config) {
		cfg.Engine.CDCRetention = engine.CDCRetention{MaxAge: time.Hour}
	})
	ctx := ctxT(t)
	for v := 1; v <= 5; v++ {
		c.commit(v)
	}
	leader := c.leader()
	var follower string
	for _, n := range c.live() {
		if n != leader {
			follower = n.ID()
		}
	}
	c.stop(follower)
	for v := 6; v <= 8; v++ {
		c.commit(v)
	}
	c.start(follower, c.peers)
	bookmark := c.commit(9)
	const q = "CALL cdc.earliest() YIELD position AS e CALL cdc.changes(e) YIELD position, operation, entity, id, after RETURN position, operation, entity, id, after"
	var want [][]any
	for _, n := range c.live() {
		if err := n.WaitApplied(ctx, bookmark); err != nil {
			t.Fatal(err)
		}
		got := rows(t, n, q)
		if len(got) != 9 {
			t.Fatalf("%s: %d changes, want 9: %v", n.ID(), len(got), got)
		}
		if want == nil {
			want = got
		} else if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v\nother member: %v", n.ID(), got, want)
		}
	}
}
