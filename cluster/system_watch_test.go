package cluster

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// TestSystemRecordsFollowed: system records stored on the leader are
// told to every member's watcher as the member applies them (what keeps
// the authentication service's users in step); a follower refuses to
// store one with 25006; the lead hook runs on the member that takes
// over when the leader goes.
func TestSystemRecordsFollowed(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	l := c.leader()
	var mu sync.Mutex
	told := map[string][]string{} // member → keys, with the value read in the call
	led := make(chan string, 8)
	for _, n := range c.live() {
		n, db := n, n.DB()
		db.WatchSystem("auth/", func(keys []string) {
			mu.Lock()
			defer mu.Unlock()
			for _, k := range keys {
				v, _ := db.SystemGet(k)
				told[n.ID()] = append(told[n.ID()], k+"="+string(v))
			}
		})
		db.OnLead(func() { led <- n.ID() })
	}
	if err := l.DB().SystemPut(ctx, []engine.SystemRecord{{Key: "auth/u", Value: []byte("1")}, {Key: "x", Value: []byte("2")}}); err != nil {
		t.Fatal(err)
	}
	created, err := l.DB().SystemPutIfAbsent(ctx, "auth/u", []engine.SystemRecord{{Key: "auth/u", Value: []byte("3")}})
	if err != nil || created {
		t.Fatalf("conditional put over an existing record: %v %v", created, err)
	}
	bm := l.Bookmark()
	for _, n := range c.live() {
		if err := n.WaitApplied(ctx, bm); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := slices.Clone(told[n.ID()])
		mu.Unlock()
		// The leader may be told its own commit twice (its state
		// machine, then its committer): the values are what counts.
		if len(got) == 0 || slices.IndexFunc(got, func(s string) bool { return s != "auth/u=1" }) >= 0 {
			t.Fatalf("%s was told %v, want auth/u=1", n.ID(), got)
		}
		if n == l {
			continue
		}
		err := n.DB().SystemPut(ctx, []engine.SystemRecord{{Key: "auth/v", Value: []byte("1")}})
		if code(err) != "25006" && c.leader() == l {
			t.Fatalf("%s stored a system record as a follower: %v", n.ID(), err)
		}
	}
	c.stop(l.ID())
	next := c.leader()
	for timeout := time.After(testDeadline); ; {
		select {
		case id := <-led:
			if id == next.ID() {
				return
			}
			// The first leader's own hook may have run after the test
			// registered it: any other member is wrong.
			if id != l.ID() {
				t.Fatalf("lead hook ran on %s, the leader is %s", id, next.ID())
			}
		case <-timeout:
			t.Fatal("the new leader's lead hook did not run")
		}
	}
}
