package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/linearcheck"
	"github.com/quiverdb/quiver/internal/netfault"
	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestSingleNodeLinearizable is the single server's baseline for the
// cluster's linearizability check: clients write and read registers (a
// property of one node per key) over HTTP, half of them through a link
// that the test drops twice under load, so that some writes end with no
// answer and may or may not have been applied; porcupine must accept the
// history. It is also the template of the cluster tests' use of
// serverproc, netfault and linearcheck together.
func TestSingleNodeLinearizable(t *testing.T) {
	const (
		clients = 8
		keys    = 8
		ops     = 60 // per client
	)
	p := serverproc.Start(t, serverproc.Config{Bin: serverproc.Build(t), Args: serverproc.ServeArgs(t.TempDir()), Name: "single"})
	link, err := netfault.Listen(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { link.Close() })
	direct := &registerClient{http: &http.Client{Timeout: crashRequestTimeout}, url: p.URL()}
	for k := range keys {
		if r, err := direct.post(context.Background(), "CREATE (:Reg {k: $k})", map[string]any{"k": k}); err != nil || r.status != http.StatusOK {
			t.Fatalf("creating register %d: %+v, %v", k, r, err)
		}
	}

	rec := linearcheck.NewRecorder()
	var done, directDone atomic.Int64 // operations ended: all clients, the direct ones
	var wg sync.WaitGroup
	for c := range clients {
		cl := direct
		if c%2 == 1 {
			cl = &registerClient{http: &http.Client{Timeout: crashRequestTimeout}, url: "http://" + link.Addr(), link: link}
		}
		rng := rand.New(rand.NewPCG(uint64(c), 33))
		wg.Go(func() {
			for i := range ops {
				cl.step(rec, c, rng.IntN(keys), rng.IntN(2) == 0, int64(c*1000+i+1))
				done.Add(1)
				if cl == direct {
					directDone.Add(1)
				}
			}
		})
	}
	// Two drops under load, each healed once the direct clients have
	// made progress past it (or have finished): the clients through the
	// link lose the requests in flight, and wait for the heal.
	for _, at := range []int64{clients * ops / 4, clients * ops / 2} {
		waitUntil(t, fmt.Sprintf("%d operations", at), func() bool { return done.Load() >= at })
		link.Cut(netfault.Drop)
		from := directDone.Load()
		waitUntil(t, "the direct clients' progress", func() bool {
			n := directDone.Load()
			return n >= from+clients || n == clients/2*ops
		})
		link.Heal()
	}
	wg.Wait()
	c := rec.Counts()
	t.Logf("%d operations: %d answered, %d without an answer, %d refused; link %+v", clients*ops, c.Done, c.Unknown, c.Failed, link.Stats())
	if c.Done+c.Unknown+c.Failed != clients*ops || c.Done < clients*ops/2 {
		t.Fatalf("counts %+v", c)
	}
	if link.Stats().Reset == 0 {
		t.Fatal("no connection was dropped: the test did not cut the link under load")
	}
	rec.Require(t, linearcheck.Keyed, time.Minute)
}

// waitUntil polls cond, progress no event signals, for up to
// crashStartTimeout.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(crashStartTimeout); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("no %s within %v", what, crashStartTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// registerClient reads and writes registers over POST /api/v1/query,
// directly or through a link.
type registerClient struct {
	http *http.Client
	url  string
	link *netfault.Link // nil when direct
}

// post runs query on the server, directly or through the link.
func (c *registerClient) post(ctx context.Context, query string, params map[string]any) (queryReply, error) {
	return postQuery(ctx, c.http, c.url, map[string]any{"query": query, "parameters": params})
}

// step runs one read or write of register k and records it. A request
// with no answer is unknown; a client through a dropped link then waits
// for the link to heal, so that the cut costs each such client one
// unknown operation rather than a burst.
func (c *registerClient) step(rec *linearcheck.Recorder, client, k int, write bool, v int64) {
	key := fmt.Sprint(k)
	ctx := context.Background()
	if write {
		op := rec.BeginWrite(client, key, v)
		r, err := c.post(ctx, registerWrite, map[string]any{"k": k, "v": v})
		switch {
		case err != nil:
			op.Unknown()
			c.awaitHeal()
		case r.status == http.StatusOK:
			op.Wrote()
		default: // a serialization conflict (40001) or another refusal: not applied
			op.Failed()
		}
		return
	}
	op := rec.BeginRead(client, key)
	r, err := c.post(ctx, registerRead, map[string]any{"k": k})
	switch {
	case err != nil:
		op.Unknown()
		c.awaitHeal()
	case r.status != http.StatusOK || len(r.rows) != 1:
		op.Failed()
	default:
		readRegister(op, r.rows)
	}
}

func (c *registerClient) awaitHeal() {
	if c.link == nil {
		return
	}
	for c.link.Mode() != netfault.Pass {
		time.Sleep(time.Millisecond)
	}
	c.http.CloseIdleConnections() // the pooled ones were reset
}
