package cluster

import (
	"errors"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestReplicatesToFollowers: a three-member cluster elects one leader;
// its commits reach every follower, which read them once they applied
// the bookmark; a write on a follower fails with 25006 naming the leader
// and leaves nothing behind, not even a catalog name the log lacks.
func TestReplicatesToFollowers(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	var acked []int
	for v := 1; v <= 20; v++ {
		c.commit(v)
		acked = append(acked, v)
	}
	l := c.leader()
	bm := l.DB().AppliedIndex()
	if bm == 0 || bm != l.Bookmark() {
		t.Fatalf("bookmark %d, applied index %d", l.Bookmark(), bm)
	}
	c.checkSame(bm, acked)

	for _, f := range c.live() {
		if f == l {
			continue
		}
		// (A busy machine can move the lead meanwhile: only a member that
		// still follows the same leader is held to the answers below.)
		if r := f.Role(); r != "follower" && c.leader() == l {
			t.Fatalf("%s: role %s", f.ID(), r)
		}
		res, err := f.DB().Query(ctx, "CREATE (:OnFollower {x: 1})", nil)
		if err == nil {
			res.Close()
			if c.leader() == f {
				continue
			}
			t.Fatalf("%s took a write", f.ID())
		}
		var nl *engine.NotLeaderError
		if code(err) != "25006" || !errors.As(err, &nl) || (nl.LeaderID != l.ID() && c.leader() == l) || nl.LeaderAddress != nl.LeaderID {
			t.Fatalf("%s: write error %v (code %q), want 25006 naming %s", f.ID(), err, code(err), l.ID())
		}
	}
	// New names on the leader apply on followers that refused others.
	c.commit(21)
	res, err := c.leader().DB().Query(ctx, "CREATE (:Fresh {y: 2})", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	l = c.leader()
	c.checkSame(l.Bookmark(), append(acked, 21))
	for _, n := range c.live() {
		if err := n.Err(); err != nil {
			t.Fatalf("%s stopped following: %v", n.ID(), err)
		}
	}
	ms, err := l.Members()
	if err != nil || len(ms) != 3 {
		t.Fatalf("members %v, %v", ms, err)
	}
	for _, m := range ms {
		if (m.ID == l.ID()) != (m.Role == "leader") || !m.Voter {
			t.Fatalf("member %+v (leader %s)", m, l.ID())
		}
		if m.ID == l.ID() && (!m.Known || m.Applied < bm) {
			t.Fatalf("leader's own entry %+v", m)
		}
	}
}
