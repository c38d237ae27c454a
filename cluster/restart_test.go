package cluster

import (
	"slices"
	"testing"
	"time"
)

// TestRestartCatchesUpWithoutDoubleApply: a follower closed while the
// others commit reopens on its directories, skips the entries its
// checkpoint holds (raft hands it the whole log again) and applies the
// rest once each; a restart with nothing new changes nothing.
func TestRestartCatchesUpWithoutDoubleApply(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 0)
	var acked []int
	var bm uint64
	for v := 1; v <= 10; v++ {
		bm = c.commit(v)
		acked = append(acked, v)
	}
	ld := c.leader()
	var f string
	for _, n := range c.live() {
		if n != ld {
			f = n.ID()
		}
	}
	c.checkSame(bm, acked)
	before := c.nodes[f].Bookmark()
	c.stop(f)
	for v := 11; v <= 20; v++ {
		bm = c.commit(v)
		acked = append(acked, v)
	}
	n := c.start(f, c.peers)
	// Raft may hand it the missed entries as soon as it is open: what it
	// holds is its checkpoint's state or more of the log, never less.
	if got := n.Bookmark(); got < before {
		t.Fatalf("reopened at index %d, closed at %d", got, before)
	}
	if got := values(t, n); len(got) < 10 || !slices.Equal(got, acked[:len(got)]) {
		t.Fatalf("reopened holding %v, want its checkpoint's %v or a longer prefix of %v", got, acked[:10], acked)
	}
	c.checkSame(bm, acked)
	if got := values(t, n); !slices.Equal(got, acked) {
		t.Fatalf("caught up holding %v, want %v", got, acked)
	}
	// Twice more, with nothing committed in between.
	for range 2 {
		before := c.nodes[f].Bookmark()
		c.stop(f)
		n = c.start(f, c.peers)
		if got := n.Bookmark(); got < before {
			t.Fatalf("reopened with nothing new at index %d, closed at %d", got, before)
		}
		c.checkSame(bm, acked)
		bm = c.commit(len(acked) + 1)
		acked = append(acked, len(acked)+1)
		c.checkSame(bm, acked)
	}
	// The leader too: the others elect another, and it rejoins.
	ld = c.leader()
	c.stop(ld.ID())
	bm = c.commit(100)
	acked = append(acked, 100)
	c.start(ld.ID(), c.peers)
	c.checkSame(bm, acked)
	for _, n := range c.live() {
		if err := n.Err(); err != nil {
			t.Fatalf("%s: %v", n.ID(), err)
		}
	}
}

// TestLearnerReceivesAndNeverVotes: a learner of the initial
// configuration and one added later receive every commit and refuse
// writes; neither ever stands for election, and after the leader dies
// a voter leads.
func TestLearnerReceivesAndNeverVotes(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 1)
	ctx := ctxT(t)
	learner := c.nodes["n4"]
	stop := make(chan struct{})
	bad := make(chan string, 1)
	watch := func(n *Node) {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if r := n.Role(); r == "candidate" || r == "leader" {
				select {
				case bad <- n.ID() + " became " + r:
				default:
				}
				return
			}
			<-time.After(time.Millisecond) // the sampling rate
		}
	}
	go watch(learner)
	c.leader()
	if learner.Role() != "learner" {
		t.Fatalf("n4: role %s", learner.Role())
	}
	for v := 1; v <= 10; v++ {
		c.commit(v)
	}
	ld := c.leader()
	if err := write(ctx, learner, 99); code(err) != "25006" {
		t.Fatalf("a write on the learner: %v", err)
	}
	// A learner added to the running cluster catches up from the log.
	late := c.start("n5", nil)
	go watch(late)
	// A busy machine can cost the leader its lead: ask the current one.
	for err := ld.AddLearner(ctx, "n5", "n5"); err != nil; err = ld.AddLearner(ctx, "n5", "n5") {
		t.Logf("adding n5 through %s: %v", ld.ID(), err)
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		ld = c.leader()
	}
	want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	c.checkSame(c.leader().Bookmark(), want)
	ld = c.leader()
	ms, err := ld.Members()
	if err != nil {
		t.Fatal(err)
	}
	learners := 0
	for _, m := range ms {
		if !m.Voter {
			learners++
			if m.Role != "learner" || (m.ID != "n4" && m.ID != "n5") {
				t.Fatalf("member %+v", m)
			}
		}
	}
	if learners != 2 || late.Role() != "learner" {
		t.Fatalf("%d learners in %+v; n5 is %s", learners, ms, late.Role())
	}
	c.stop(ld.ID())
	nl := c.leader()
	if nl == learner || nl == late {
		t.Fatalf("learner %s leads", nl.ID())
	}
	c.checkSame(c.commit(11), append(want, 11))
	close(stop)
	select {
	case msg := <-bad:
		t.Fatal(msg)
	default:
	}
}
