package floodtest

import (
	"sync/atomic"
	"testing"
	"time"
)

// Gauge counts the connections a server admitted and has not closed: it
// is what the frontends' Config.Conns takes, so that a test sees the
// flood fill the connection ceiling before it measures anything.
type Gauge struct{ n atomic.Int64 }

// Opened and Closed are the server's calls.
func (g *Gauge) Opened() { g.n.Add(1) }
func (g *Gauge) Closed() { g.n.Add(-1) }

// N is the number of connections open now.
func (g *Gauge) N() int64 { return g.n.Load() }

// WaitFor polls cond, a state no event signals (the flood at the
// ceiling, health recovered), until it holds, and fails t after d.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
