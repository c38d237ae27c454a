package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/linearcheck"
)

// TestClusterProcessLinearizable: clients read registers with
// consistency "linearizable" and write them, each request to a random
// member (a follower redirects to the leader), while the test kills the
// leader with kill -9 and restarts it; porcupine must accept the
// recorded history. A write without a 200 is of unknown outcome (it may
// have committed before its member died or lost the lead); a refused
// read is left out.
func TestClusterProcessLinearizable(t *testing.T) {
	const (
		clients = 6
		keys    = 6
		ops     = 80 // per client
	)
	c := startProcessCluster(t, 3, true)
	l := c.awaitLeader(-1)
	for k := range keys {
		c.mustQuery(l, "CREATE (:Reg {k: $k})", map[string]any{"k": k})
	}

	rec := linearcheck.NewRecorder()
	var done atomic.Int64
	var wg sync.WaitGroup
	for cl := range clients {
		rng := rand.New(rand.NewPCG(uint64(cl), 33))
		client := &http.Client{Timeout: 3 * time.Second}
		wg.Go(func() {
			defer client.CloseIdleConnections()
			// An operation refused before it was sent (the member is
			// down) does not count toward the client's ops.
			for i, n := 0, 0; i < ops; n++ {
				if c.registerStep(rec, client, cl, rng.IntN(len(c.procs)), rng.IntN(keys), rng.IntN(2) == 0, int64(cl*10000+n+1)) {
					i++
					done.Add(1)
				}
			}
		})
	}
	waitUntil(t, "a third of the operations", func() bool { return done.Load() >= clients*ops/3 })
	l = c.awaitLeader(-1)
	killed := time.Now()
	if err := c.procs[l].Kill9(); err != nil {
		t.Fatal(err)
	}
	nl := c.awaitLeader(l)
	t.Logf("kill -9 of leader %s: %s leads after %v", c.ids[l], c.ids[nl], time.Since(killed))
	if err := c.procs[l].Restart(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	cnt := rec.Counts()
	// Refused: answered with an error, or not sent (the member was down).
	t.Logf("%d operations sent: %d answered, %d without an answer, %d refused or not sent", clients*ops, cnt.Done, cnt.Unknown, cnt.Failed)
	if cnt.Open != 0 || cnt.Done < clients*ops/2 {
		t.Fatalf("counts %+v", cnt)
	}
	rec.Require(t, linearcheck.Keyed, time.Minute)
}

// registerStep runs one read (linearizable) or write of register k on
// member i and records it; false when the request could not be sent.
func (c *processCluster) registerStep(rec *linearcheck.Recorder, client *http.Client, cl, i, k int, write bool, v int64) bool {
	key := fmt.Sprint(k)
	ctx := context.Background()
	if write {
		op := rec.BeginWrite(cl, key, v)
		r, err := c.query(ctx, client, i, registerWrite, map[string]any{"k": k, "v": v}, nil)
		switch {
		case err == nil && r.status == http.StatusOK:
			op.Wrote()
		case err == nil && r.code == "40001", notSent(err): // a serialization conflict, or never sent: not applied
			op.Failed()
		default: // no answer, or a leader that lost the lead mid-commit
			op.Unknown()
			backoff()
		}
		return !notSent(err)
	}
	op := rec.BeginRead(cl, key)
	r, err := c.query(ctx, client, i, registerRead, map[string]any{"k": k}, map[string]any{"consistency": "linearizable"})
	switch {
	case err != nil && !notSent(err):
		op.Unknown()
		backoff()
	case err != nil || r.status != http.StatusOK || len(r.rows) != 1:
		op.Failed()
		backoff()
	default:
		readRegister(op, r.rows)
	}
	return !notSent(err)
}

// backoff spaces a client's retries after a failure (a member down, no
// leader yet), so that a failover is not a burst of refusals.
func backoff() { <-time.After(20 * time.Millisecond) }

// notSent reports an error that happened before the request was sent:
// the member's port refused the connection (a member down), so nothing
// was applied.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
