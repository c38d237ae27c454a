package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// Real-process cluster tests (make test-cluster runs every
// TestClusterProcess*): three `quiver serve` members on loopback, their
// raft traffic through netfault links, under a write load, through a
// leader's kill -9, a partition of the leader, a paused member and a
// follower's restart. Afterwards every acknowledged write is on every
// member, no member holds a value never written, and the members' graphs
// are equal and pass quiver.storage.integrity().

// writeLoad is clients writing unique values over HTTP autocommit
// (CREATE (:W {v})), each to the members in turn, following redirects.
type writeLoad struct {
	c    *processCluster
	stop chan struct{}
	wg   sync.WaitGroup
	mu   struct {
		sync.Mutex
		acked     map[int64]bool
		attempted map[int64]bool
		ackTimes  []ackTime // acknowledged writes' start and answer times
	}
}

type ackTime struct{ start, end time.Time }

func startWriteLoad(c *processCluster, clients int) *writeLoad {
	w := &writeLoad{c: c, stop: make(chan struct{})}
	w.mu.acked, w.mu.attempted = map[int64]bool{}, map[int64]bool{}
	for k := range clients {
		// A short timeout: a request in flight to a paused or cut-off
		// leader hangs until it, and the write-unavailable window a
		// client sees includes that wait.
		client := &http.Client{Timeout: time.Second}
		w.wg.Go(func() {
			defer client.CloseIdleConnections()
			for seq := int64(1); ; seq++ {
				select {
				case <-w.stop:
					return
				default:
				}
				v := int64(k+1)*1_000_000_000 + seq
				member := (k + int(seq)) % len(c.procs)
				w.mu.Lock()
				w.mu.attempted[v] = true
				w.mu.Unlock()
				start := time.Now()
				r, err := c.query(context.Background(), client, member, "CREATE (:W {v: $v})", map[string]any{"v": v}, nil)
				if err == nil && r.status == http.StatusOK {
					w.mu.Lock()
					w.mu.acked[v] = true
					w.mu.ackTimes = append(w.mu.ackTimes, ackTime{start, time.Now()})
					w.mu.Unlock()
					continue
				}
				// No answer, a member down or no leader yet: back off a
				// little rather than spin on a dead port.
				client.CloseIdleConnections()
				select {
				case <-w.stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	}
	return w
}

// acks is the number of acknowledged writes so far.
func (w *writeLoad) acks() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.mu.acked)
}

// firstAckAfter is when the first write started after t was
// acknowledged (zero: none yet).
func (w *writeLoad) firstAckAfter(t time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first time.Time
	for _, a := range w.mu.ackTimes {
		if a.start.After(t) && (first.IsZero() || a.end.Before(first)) {
			first = a.end
		}
	}
	return first
}

// awaitAcksAfter waits until a write started after t is acknowledged
// and returns how long after t.
func (w *writeLoad) awaitAcksAfter(t time.Time) time.Duration {
	w.c.t.Helper()
	var first time.Time
	waitUntil(w.c.t, "an acknowledged write", func() bool { first = w.firstAckAfter(t); return !first.IsZero() })
	return first.Sub(t)
}

// awaitMoreAcks waits for n more acknowledged writes.
func (w *writeLoad) awaitMoreAcks(n int) {
	w.c.t.Helper()
	from := w.acks()
	waitUntil(w.c.t, fmt.Sprintf("%d more acknowledged writes", n), func() bool { return w.acks() >= from+n })
}

func (w *writeLoad) halt() {
	close(w.stop)
	w.wg.Wait()
}

// failoverTimes are the measurements of one failure.
type failoverTimes struct {
	name                  string
	election, unavailable time.Duration
}

func TestClusterProcessFailover(t *testing.T) {
	c := startProcessCluster(t, 3, true)
	w := startWriteLoad(c, 4)
	defer func() {
		select {
		case <-w.stop:
		default:
			w.halt()
		}
	}()
	w.awaitMoreAcks(50)
	var measured []failoverTimes

	// kill -9 the leader: the two others elect one and take writes; the
	// killed member restarts over its data directory and catches up.
	l := c.leader(-1)
	if l < 0 {
		l = c.awaitLeader(-1)
	}
	killed := time.Now()
	if err := c.procs[l].Kill9(); err != nil {
		t.Fatal(err)
	}
	nl := c.awaitLeader(l)
	election := time.Since(killed)
	unavailable := w.awaitAcksAfter(killed)
	measured = append(measured, failoverTimes{"leader killed (kill -9)", election, unavailable})
	t.Logf("kill -9 of leader %s: %s leads after %v; writes acknowledged again after %v", c.ids[l], c.ids[nl], election, unavailable)
	if err := c.procs[l].Restart(); err != nil {
		t.Fatal(err)
	}
	c.awaitRole(l, "follower")
	w.awaitMoreAcks(50)

	// The leader cut off from the majority (black holes both ways): the
	// majority elects a leader and takes writes; the old leader steps
	// down, and after the heal follows.
	l = c.awaitLeader(-1)
	cut := time.Now()
	c.net.Isolate(l)
	nl = c.awaitLeader(l)
	election = time.Since(cut)
	unavailable = w.awaitAcksAfter(cut)
	measured = append(measured, failoverTimes{"leader partitioned (black hole)", election, unavailable})
	t.Logf("leader %s partitioned: %s leads after %v; writes acknowledged again after %v", c.ids[l], c.ids[nl], election, unavailable)
	w.awaitMoreAcks(50)
	c.net.HealAll()
	c.awaitRole(l, "follower")
	w.awaitMoreAcks(50)

	// The leader paused (SIGSTOP) past the election timeout: the others
	// elect a leader; continued, the old one finds a newer term and
	// follows.
	l = c.awaitLeader(-1)
	paused := time.Now()
	if err := c.procs[l].Stop(); err != nil {
		t.Fatal(err)
	}
	nl = c.awaitLeader(l)
	election = time.Since(paused)
	unavailable = w.awaitAcksAfter(paused)
	measured = append(measured, failoverTimes{"leader paused (SIGSTOP)", election, unavailable})
	t.Logf("leader %s paused: %s leads after %v; writes acknowledged again after %v", c.ids[l], c.ids[nl], election, unavailable)
	w.awaitMoreAcks(50)
	if err := c.procs[l].Cont(); err != nil {
		t.Fatal(err)
	}
	c.awaitRole(l, "follower")
	w.awaitMoreAcks(50)

	// A follower stopped (SIGTERM) and started again: the writes go on
	// meanwhile, and it catches up.
	l = c.awaitLeader(-1)
	f := (l + 1) % 3
	if err := c.procs[f].Term(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	w.awaitMoreAcks(50)
	if err := c.procs[f].Restart(); err != nil {
		t.Fatal(err)
	}
	c.awaitRole(f, "follower")
	w.awaitMoreAcks(50)
	w.halt()

	for _, m := range measured {
		t.Logf("RESULT %s: election %v, writes unavailable %v", m.name, m.election.Round(time.Millisecond), m.unavailable.Round(time.Millisecond))
	}
	c.checkConverged(w)
}

// checkConverged checks, once the load stopped, that every member holds
// every acknowledged write and nothing never attempted, that their
// graphs are equal (the same values and the same content hash), and
// that each passes quiver.storage.integrity().
func (c *processCluster) checkConverged(w *writeLoad) {
	t := c.t
	t.Helper()
	// A last write through the leader: its bookmark is at or after every
	// acknowledged commit, and each member reads once it applied it.
	l := c.awaitLeader(-1)
	mark := c.mustQuery(l, "CREATE (:Mark)", nil).bookmark
	if mark == "" {
		t.Fatal("the leader's answer carries no bookmark")
	}
	w.mu.Lock()
	acked, attempted := w.mu.acked, w.mu.attempted
	w.mu.Unlock()
	var first []int64
	var firstHash string
	for i := range c.procs {
		got := int64Column(t, c.mustQuery(i, "MATCH (w:W) RETURN w.v AS v ORDER BY v", nil, "Quiver-Bookmark", mark).rows, "v")
		have := map[int64]bool{}
		for _, v := range got {
			if have[v] {
				t.Errorf("%s holds %d twice", c.ids[i], v)
			}
			have[v] = true
			if !attempted[v] {
				t.Errorf("%s holds %d, never written", c.ids[i], v)
			}
		}
		lost := 0
		for v := range acked {
			if !have[v] {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%s lacks %d of %d acknowledged writes", c.ids[i], lost, len(acked))
		}
		if i == 0 {
			first = got
		} else if !slices.Equal(first, got) {
			t.Errorf("%s holds %d values, %s %d: the graphs differ", c.ids[0], len(first), c.ids[i], len(got))
		}
		integ := c.mustQuery(i, "CALL quiver.storage.integrity()", nil, "Quiver-Bookmark", mark).rows
		if len(integ) != 1 || integ[0]["node_count_consistent"] != true || integ[0]["edge_count_consistent"] != true || fmt.Sprint(integ[0]["total_errors"]) != "0" {
			t.Errorf("%s: quiver.storage.integrity() = %v", c.ids[i], integ)
		}
		// The whole graph, not only the values: labels, properties and
		// ids (storage/contenthash.go).
		sum := c.mustQuery(i, "CALL quiver.storage.contentHash() YIELD hash, id_hash", nil, "Quiver-Bookmark", mark).rows
		if len(sum) != 1 {
			t.Fatalf("%s: quiver.storage.contentHash() = %v", c.ids[i], sum)
		}
		h := fmt.Sprint(sum[0]["hash"], "/", sum[0]["id_hash"])
		if i == 0 {
			firstHash = h
		} else if h != firstHash {
			t.Errorf("%s's content hash %s, %s's %s: the graphs differ", c.ids[0], firstHash, c.ids[i], h)
		}
	}
	t.Logf("%d writes attempted, %d acknowledged; every member holds %d values; content hash %s", len(attempted), len(acked), len(first), firstHash)
}
