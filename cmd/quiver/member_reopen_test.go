package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/cluster"
	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
)

// A learner that joins after the leader compacted its log installs a
// snapshot while it is served: serveInTurn, woken by Config.Reopened,
// restarts the HTTP frontend on the reopened database, and requests on
// the member's address are answered from it. The restart follows the
// reopen at once: serve used to look for a new database every 250 ms.
func TestServeMemberReopened(t *testing.T) {
	t.Parallel()
	c := newHTTPClusterWith(t, 0, func(cfg *cluster.Config) {
		cfg.SnapshotThreshold = 16
		cfg.SnapshotInterval = 20 * time.Millisecond
		cfg.TrailingLogs = 4
	})
	lead, _ := c.leader()
	ctx, cancel := context.WithTimeout(context.Background(), clusterDeadline)
	defer cancel()
	written := 0
	write := func() {
		t.Helper()
		written++
		res, err := lead.node.DB().Query(ctx, "CREATE (:S {v: $v})", engine.Params{"v": int64(written)})
		must(t, err, "write %d", written)
		res.Close()
	}
	// Until the leader's log no longer starts at its first entry: a new
	// member can only install a snapshot.
	poll(t, "a snapshot and a compacted log on the leader", func() bool {
		write()
		i, _ := strconv.ParseUint(lead.node.Raft().Stats()["last_snapshot_index"], 10, 64)
		return i > 4+8
	})

	var reopenedAt atomic.Int64 // unix nanoseconds
	w := newReopenWatch()
	n4 := c.open("n4", nil, func() {
		reopenedAt.Store(time.Now().UnixNano())
		w.notify()
	})
	w.node = n4
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err, "listening")
	addr := ln.Addr().String()
	mem := &member{n: n4, peerHTTP: map[string]string{}}
	var served atomic.Int32
	var swapDelay atomic.Int64
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- serveInTurn(n4.DB(), w, func(db *engine.DB, swapped <-chan struct{}) (bool, error) {
			if served.Add(1) > 1 {
				var err error
				if ln, err = net.Listen("tcp", addr); err != nil {
					return false, err
				}
			}
			s := qhttp.New(qhttp.Config{Cluster: mem, Logger: quietLog, Version: "test", NodeID: "n4"}, db)
			go s.Serve(ln)
			defer s.Shutdown(context.Background())
			select {
			case <-stop:
				return false, nil
			case <-swapped:
				swapDelay.Store(time.Now().UnixNano() - reopenedAt.Load())
				return true, nil
			}
		}, func(*engine.DB) error { return nil })
	}()
	t.Cleanup(func() {
		close(stop)
		if err := <-done; err != nil {
			t.Errorf("serving n4: %v", err)
		}
		if err := n4.Close(); err != nil {
			t.Errorf("closing n4: %v", err)
		}
	})

	for err := lead.node.AddLearner(ctx, "n4", "n4"); err != nil; err = lead.node.AddLearner(ctx, "n4", "n4") {
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		lead, _ = c.leader()
	}
	write()
	hc := client.NewHTTP("http://" + addr)
	poll(t, fmt.Sprintf("n4 answering with the %d nodes written", written), func() bool {
		r, err := hc.Query(ctx, "MATCH (n:S) RETURN count(n) AS n", nil)
		return err == nil && r.Rows[0][0] == int64(written)
	})
	if served.Load() < 2 || reopenedAt.Load() == 0 {
		t.Fatalf("n4 was served %d times, reopened at %d: it caught up without a snapshot install", served.Load(), reopenedAt.Load())
	}
	// The swap is woken by the reopen: well under the 250 ms poll it
	// replaced, even on a busy machine.
	t.Logf("the frontends restarted %v after the reopen", time.Duration(swapDelay.Load()))
	if d := time.Duration(swapDelay.Load()); d <= 0 || d >= 250*time.Millisecond {
		t.Errorf("the frontends restarted %v after the reopen", d)
	}
	if n4.DB().Counts().Nodes != int64(written) {
		t.Errorf("n4's database holds %d nodes, want %d", n4.DB().Counts().Nodes, written)
	}
}
