package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/quiverdb/quiver/cluster"
	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/wire"
)

// testMember is one member of an in-process cluster with its HTTP API
// served twice: url redirects a follower's writes, errURL answers them
// with the 25006 error.
type testMember struct {
	id          string
	node        *cluster.Node
	mem         *member
	url, errURL string
}

// testCluster is three voters over raft's in-memory transport, each with
// real HTTP servers on loopback ports.
type testCluster struct {
	t       *testing.T
	members []*testMember
	trans   map[string]*raft.InmemTransport
	tune    func(*cluster.Config)
	// peerHTTP are the members' client URLs, which overview asks
	// (peerApplied).
	peerHTTP map[string]string
}

const clusterDeadline = 30 * time.Second

func newHTTPCluster(t *testing.T) *testCluster { return newHTTPClusterWith(t, 0, nil) }

// newHTTPClusterWith is three voters and learners read replicas (n4, …);
// tune, when set, adjusts each member's configuration.
func newHTTPClusterWith(t *testing.T, learners int, tune func(*cluster.Config)) *testCluster {
	t.Helper()
	c := &testCluster{t: t, trans: map[string]*raft.InmemTransport{}, tune: tune}
	ids := []string{"n1", "n2", "n3"}
	for i := range learners {
		ids = append(ids, fmt.Sprintf("n%d", 4+i))
	}
	var peers []cluster.Peer
	for i, id := range ids {
		peers = append(peers, cluster.Peer{ID: id, Address: id, Learner: i >= 3})
		c.transport(id)
	}
	// Listeners first: every member's redirects need the others' URLs.
	lns := map[string][2]net.Listener{}
	peerHTTP := map[string]string{}
	for _, id := range ids {
		var pair [2]net.Listener
		for i := range pair {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			pair[i] = ln
		}
		lns[id] = pair
		peerHTTP[id] = "http://" + pair[0].Addr().String()
	}
	c.peerHTTP = peerHTTP
	for _, id := range ids {
		n := c.open(id, peers, nil)
		m := &testMember{id: id, node: n, mem: &member{n: n, peerHTTP: peerHTTP}}
		var servers []*qhttp.Server
		ws := wire.New(wire.Config{Version: "test", Logger: quietLog, Cluster: m.mem}, n.DB())
		for i, redirect := range []bool{true, false} {
			s := qhttp.New(qhttp.Config{Cluster: m.mem, RedirectWrites: redirect, Logger: quietLog, Version: "test", NodeID: id, RateLimit: 0}, n.DB())
			ln := lns[id][i]
			if i == 0 {
				ln = ws.Split(ln) // the wire protocol on the same port, as serve has it
			}
			go s.Serve(ln)
			servers = append(servers, s)
		}
		m.url, m.errURL = peerHTTP[id], "http://"+lns[id][1].Addr().String()
		c.members = append(c.members, m)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for _, s := range servers {
				s.Shutdown(ctx)
			}
			ws.Shutdown(ctx)
			if err := n.Close(); err != nil {
				t.Errorf("closing %s: %v", id, err)
			}
		})
	}
	return c
}

// quietLog discards the members' logs.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// transport is id's in-memory transport, wired both ways to every one
// made before.
func (c *testCluster) transport(id string) *raft.InmemTransport {
	_, tr := raft.NewInmemTransport(raft.ServerAddress(id))
	for other, o := range c.trans {
		tr.Connect(raft.ServerAddress(other), o)
		o.Connect(raft.ServerAddress(id), tr)
	}
	c.trans[id] = tr
	return tr
}

// open opens member id (its transport made first) with the dbms.cluster
// procedures; the caller closes it. reopened is its Config.Reopened.
func (c *testCluster) open(id string, peers []cluster.Peer, reopened func()) *cluster.Node {
	c.t.Helper()
	tr := c.trans[id]
	if tr == nil {
		tr = c.transport(id)
	}
	cfg := cluster.Config{ID: id, Transport: tr, DataDir: c.t.TempDir(), Peers: peers, Reopened: reopened, MemberApplied: peerApplied(c.peerHTTP),
		// raft's timeouts stay the defaults: a shared, busy machine
		// must not depose a leader in the middle of a test.
		CommitTimeout: 5 * time.Millisecond, RaftLog: io.Discard, Logger: quietLog, Engine: engine.Options{CheckpointInterval: -1}}
	if c.tune != nil {
		c.tune(&cfg)
	}
	n, err := cluster.Open(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := n.RegisterProcedures(); err != nil {
		n.Close()
		c.t.Fatal(err)
	}
	return n
}

// leader waits for a leader that takes writes, and returns it with the
// followers.
func (c *testCluster) leader() (*testMember, []*testMember) {
	c.t.Helper()
	deadline := time.Now().Add(clusterDeadline)
	for time.Now().Before(deadline) {
		var lead *testMember
		var followers []*testMember
		for _, m := range c.members {
			if m.node.Role() == "leader" && m.node.Writable() == nil {
				lead = m
			} else {
				followers = append(followers, m)
			}
		}
		// Every follower knows the leader too (it redirects to it).
		known := lead != nil
		for _, f := range followers {
			if id, _ := f.node.Leader(); lead == nil || id != lead.id {
				known = false
			}
		}
		if known {
			return lead, followers
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatal("no leader elected")
	return nil, nil
}

// noFollow is an HTTP client that reports redirects instead of
// following them.
var noFollow = &http.Client{Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// poll waits until cond holds.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(clusterDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func must(t *testing.T, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}
