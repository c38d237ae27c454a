package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// testCluster is a few members in one process over raft's in-memory
// transport.
type testCluster struct {
	t testing.TB
	// mu guards trans and nodes (writers read them while a test stops
	// and starts members).
	mu    sync.Mutex
	peers []Peer
	dirs  map[string]string
	trans map[string]*raft.InmemTransport
	nodes map[string]*Node // nil: closed
	// tune, when set, adjusts each member's configuration.
	tune func(*Config)
}

// Test timeouts: short, so elections take a fraction of a second even
// under the race detector on a busy machine.
const (
	testHeartbeat = 300 * time.Millisecond
	testDeadline  = 30 * time.Second
)

func newTestCluster(t testing.TB, voters, learners int) *testCluster {
	t.Helper()
	return newTunedCluster(t, voters, learners, nil)
}

func newTunedCluster(t testing.TB, voters, learners int, tune func(*Config)) *testCluster {
	t.Helper()
	c := &testCluster{t: t, dirs: map[string]string{}, trans: map[string]*raft.InmemTransport{}, nodes: map[string]*Node{}, tune: tune}
	for i := 1; i <= voters+learners; i++ {
		id := fmt.Sprintf("n%d", i)
		c.peers = append(c.peers, Peer{ID: id, Address: id, Learner: i > voters})
		c.dirs[id] = t.TempDir()
	}
	for _, p := range c.peers {
		c.start(p.ID, c.peers)
	}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for id, n := range c.nodes {
			if n != nil {
				if err := n.Close(); err != nil {
					t.Errorf("closing %s: %v", id, err)
				}
			}
		}
	})
	return c
}

// start opens member id (again) on its directory, with a fresh
// in-memory transport wired to every other one.
func (c *testCluster) start(id string, peers []Peer) *Node {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs[id] == "" {
		c.dirs[id] = c.t.TempDir()
	}
	_, tr := raft.NewInmemTransport(raft.ServerAddress(id))
	for other, ot := range c.trans {
		if other != id {
			tr.Connect(raft.ServerAddress(other), ot)
			ot.Connect(raft.ServerAddress(id), tr)
		}
	}
	c.trans[id] = tr
	cfg := Config{ID: id, Transport: tr, DataDir: c.dirs[id], Peers: peers,
		HeartbeatTimeout: testHeartbeat, ElectionTimeout: testHeartbeat, LeaderLeaseTimeout: testHeartbeat,
		CommitTimeout: 5 * time.Millisecond, RaftLog: io.Discard,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Engine: engine.Options{CheckpointInterval: -1}}
	if c.tune != nil {
		c.tune(&cfg)
	}
	n, err := Open(cfg)
	if err != nil {
		c.t.Fatalf("opening %s: %v", id, err)
	}
	c.nodes[id] = n
	return n
}

// stop closes member id, cut off from the others first so that it
// finishes nothing it had started (a crash, as far as the others see).
func (c *testCluster) stop(id string) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for other, ot := range c.trans {
		if other != id {
			ot.Disconnect(raft.ServerAddress(id))
		}
	}
	c.trans[id].DisconnectAll()
	if err := c.nodes[id].Close(); err != nil {
		c.t.Errorf("closing %s: %v", id, err)
	}
	c.nodes[id] = nil
	delete(c.trans, id)
}

func (c *testCluster) live() []*Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Node
	for _, id := range slices.Sorted(maps.Keys(c.nodes)) {
		if n := c.nodes[id]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

// leader waits until exactly one live member leads and takes writes.
func (c *testCluster) leader() *Node {
	c.t.Helper()
	deadline := time.Now().Add(testDeadline)
	for time.Now().Before(deadline) {
		var leaders []*Node
		for _, n := range c.live() {
			if n.Role() == "leader" {
				leaders = append(leaders, n)
			}
		}
		if len(leaders) == 1 && leaders[0].Writable() == nil {
			return leaders[0]
		}
		<-time.After(5 * time.Millisecond) // polling a condition, not a synchronisation
	}
	c.t.Fatalf("no single leader after %v", testDeadline)
	return nil
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

// write creates a :K node holding v on n.
func write(ctx context.Context, n *Node, v int) error {
	res, err := n.DB().Query(ctx, fmt.Sprintf("CREATE (:K {v: %d})", v), nil)
	if err != nil {
		return err
	}
	return res.Close()
}

// contentHash is n's quiver.storage.contentHash(): hash and id_hash.
func contentHash(t testing.TB, n *Node) string {
	t.Helper()
	res, err := n.DB().Query(context.Background(), "CALL quiver.storage.contentHash() YIELD hash, id_hash", nil)
	if err != nil {
		t.Fatalf("%s: %v", n.ID(), err)
	}
	defer res.Close()
	b, err := res.Next()
	if err != nil || b == nil || b.Rows() != 1 {
		t.Fatalf("%s: contentHash: %v", n.ID(), err)
	}
	return fmt.Sprint(b.Cols[0].Get(b.Row(0)), "/", b.Cols[1].Get(b.Row(0)))
}

// values returns the sorted v of every :K node on n.
func values(t testing.TB, n *Node) []int {
	t.Helper()
	res, err := n.DB().Query(context.Background(), "MATCH (k:K) RETURN k.v", nil)
	if err != nil {
		t.Fatalf("%s: %v", n.ID(), err)
	}
	defer res.Close()
	var out []int
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatalf("%s: %v", n.ID(), err)
		}
		if b == nil {
			break
		}
		for i := 0; i < b.Rows(); i++ {
			v, err := strconv.Atoi(fmt.Sprint(b.Cols[0].Get(b.Row(i))))
			if err != nil {
				t.Fatalf("%s: value %v: %v", n.ID(), b.Cols[0].Get(b.Row(i)), err)
			}
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// code is the engine error code of err ("" when none).
func code(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// checkSame checks that every live member applied bookmark and holds
// the same values, with no duplicate, a valid graph of the same content
// hash, and every acknowledged value.
func (c *testCluster) checkSame(bookmark uint64, acked []int) []int {
	c.t.Helper()
	ctx := ctxT(c.t)
	var want []int
	var wantHash string
	for i, n := range c.live() {
		if err := n.WaitApplied(ctx, bookmark); err != nil {
			c.t.Fatalf("%s: %v", n.ID(), err)
		}
		if err := n.DB().Check(); err != nil {
			c.t.Fatalf("%s: %v", n.ID(), err)
		}
		got, hash := values(c.t, n), contentHash(c.t, n)
		if i == 0 {
			want, wantHash = got, hash
		} else if !slices.Equal(got, want) {
			c.t.Fatalf("%s holds %v, %s holds %v", n.ID(), got, c.live()[0].ID(), want)
		} else if hash != wantHash {
			c.t.Fatalf("%s's content hash is %s, %s's %s: the graphs differ", n.ID(), hash, c.live()[0].ID(), wantHash)
		}
		if len(slices.Compact(slices.Clone(got))) != len(got) {
			c.t.Fatalf("%s holds a value twice: %v", n.ID(), got)
		}
		for _, v := range acked {
			if _, ok := slices.BinarySearch(got, v); !ok {
				c.t.Fatalf("%s lost the acknowledged commit of %d (holds %v)", n.ID(), v, got)
			}
		}
	}
	return want
}

// isolate cuts member id off from the others, both ways; heal joins it
// back.
func (c *testCluster) isolate(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for other, ot := range c.trans {
		if other != id {
			ot.Disconnect(raft.ServerAddress(id))
		}
	}
	c.trans[id].DisconnectAll()
}

func (c *testCluster) heal(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tr := c.trans[id]
	for other, ot := range c.trans {
		if other != id {
			tr.Connect(raft.ServerAddress(other), ot)
			ot.Connect(raft.ServerAddress(id), tr)
		}
	}
}

// commit writes v on the current leader until it is committed exactly
// once, and returns the leader's bookmark after it. A busy machine can
// move the lead in the middle of a test: 25006 committed nothing, so it
// is retried; after 08007 the next leader, which holds every committed
// entry once it takes writes, tells whether v made it.
func (c *testCluster) commit(v int) uint64 {
	c.t.Helper()
	return c.commitWith(v, write)
}

// commitWith is commit with another statement creating the :K node of v.
func (c *testCluster) commitWith(v int, write func(context.Context, *Node, int) error) uint64 {
	c.t.Helper()
	ctx := ctxT(c.t)
	for {
		n := c.leader()
		err := write(ctx, n, v)
		if err == nil {
			return n.Bookmark()
		}
		switch code(err) {
		case "25006":
			continue
		case "08007":
			n = c.leader()
			if slices.Contains(values(c.t, n), v) {
				return n.Bookmark()
			}
		default:
			c.t.Fatalf("write %d: %v", v, err)
		}
	}
}

// rows runs q on n and returns its rows.
func rows(t testing.TB, n *Node, q string) [][]any {
	t.Helper()
	res, err := n.DB().Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %s: %v", n.ID(), q, err)
	}
	defer res.Close()
	var out [][]any
	for {
		b, err := res.Next()
		if err != nil {
			t.Fatalf("%s: %s: %v", n.ID(), q, err)
		}
		if b == nil {
			return out
		}
		for i := 0; i < b.Rows(); i++ {
			row := make([]any, len(b.Cols))
			for j, c := range b.Cols {
				row[j] = c.Get(b.Row(i))
			}
			out = append(out, row)
		}
	}
}
