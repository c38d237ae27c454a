package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/quiverdb/quiver/cluster"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// authCluster is three voters and a learner in this process, over
// raft's in-memory transport, each with its authentication service, as
// `quiver serve --auth-enabled` wires them.
type authCluster struct {
	t     *testing.T
	mu    sync.Mutex // guards nodes and svcs (stop)
	nodes map[string]*cluster.Node
	svcs  map[string]*auth.Service
	trans map[string]*raft.InmemTransport
}

const authClusterPassword = "admin-password-in-cluster"

func newAuthCluster(t *testing.T) *authCluster {
	t.Helper()
	c := &authCluster{t: t, nodes: map[string]*cluster.Node{}, svcs: map[string]*auth.Service{}, trans: map[string]*raft.InmemTransport{}}
	peers := []cluster.Peer{{ID: "n1", Address: "n1"}, {ID: "n2", Address: "n2"}, {ID: "n3", Address: "n3"}, {ID: "r1", Address: "r1", Learner: true}}
	for _, p := range peers {
		_, tr := raft.NewInmemTransport(raft.ServerAddress(p.ID))
		for id, o := range c.trans {
			tr.Connect(raft.ServerAddress(id), o)
			o.Connect(raft.ServerAddress(p.ID), tr)
		}
		c.trans[p.ID] = tr
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, p := range peers {
		hb := 300 * time.Millisecond
		n, err := cluster.Open(cluster.Config{ID: p.ID, Transport: c.trans[p.ID], DataDir: t.TempDir(), Peers: peers,
			HeartbeatTimeout: hb, ElectionTimeout: hb, LeaderLeaseTimeout: hb, CommitTimeout: 5 * time.Millisecond,
			RaftLog: io.Discard, Logger: quiet, Engine: engine.Options{CheckpointInterval: -1}})
		if err != nil {
			t.Fatal(err)
		}
		// Every member is given the same QUIVER_ADMIN_PASSWORD, as the
		// docs say; the first leader alone creates the admin.
		svc, err := auth.Open(auth.Config{DB: n.DB(), Enabled: true, AdminPassword: authClusterPassword,
			Hash: auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		c.nodes[p.ID], c.svcs[p.ID] = n, svc
	}
	t.Cleanup(func() {
		for id := range c.nodes {
			c.stop(id)
		}
	})
	return c
}

// stop closes member id, cut off from the others first.
func (c *authCluster) stop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodes[id]
	if n == nil {
		return
	}
	for other, o := range c.trans {
		if other != id {
			o.Disconnect(raft.ServerAddress(id))
		}
	}
	c.trans[id].DisconnectAll()
	c.svcs[id].Close()
	if err := n.Close(); err != nil {
		c.t.Errorf("closing %s: %v", id, err)
	}
	c.nodes[id], c.svcs[id] = nil, nil
}

// live are the open members, by id.
func (c *authCluster) live() map[string]*cluster.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]*cluster.Node{}
	for id, n := range c.nodes {
		if n != nil {
			out[id] = n
		}
	}
	return out
}

func (c *authCluster) svc(id string) *auth.Service {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.svcs[id]
}

// leader waits for one live member that leads and takes writes.
func (c *authCluster) leader() string {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for id, n := range c.live() {
			if n.Role() == "leader" && n.Writable() == nil {
				return id
			}
		}
		<-time.After(5 * time.Millisecond) // polling a condition with a deadline
	}
	c.t.Fatal("no leader")
	return ""
}

// synced waits until every live member applied what the leader has.
func (c *authCluster) synced(leader string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bm := c.live()[leader].Bookmark()
	for id, n := range c.live() {
		if err := n.WaitApplied(ctx, bm); err != nil {
			c.t.Fatalf("%s: %v", id, err)
		}
	}
}

func basicCreds(user, pw string) auth.Credentials {
	return auth.Credentials{Authorization: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))}
}

// call runs a procedure call on member id as principal p.
func (c *authCluster) call(id string, p *engine.Principal, text string) ([][]any, error) {
	ctx := engine.WithPrincipal(context.Background(), p)
	res, err := c.live()[id].DB().Query(ctx, text, nil)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var rows [][]any
	for {
		b, err := res.Next()
		if err != nil || b == nil {
			return rows, err
		}
		for i := 0; i < b.Rows(); i++ {
			row := make([]any, len(b.Cols))
			for j, col := range b.Cols {
				row[j] = col.Get(b.Row(i))
			}
			rows = append(rows, row)
		}
	}
}

func errCode(err error) string {
	if e, ok := engine.AsError(err); ok {
		return e.Code
	}
	return ""
}

// TestAuthReplicatedInProcess: users, keys, sessions and the token key
// made on the leader hold on every member, the learner too, once
// applied; writes of them on a follower fail with 25006 naming the
// leader; the admin is made once for the cluster; a token survives the
// leader's loss.
func TestAuthReplicatedInProcess(t *testing.T) {
	c := newAuthCluster(t)
	ctx := context.Background()
	c.leader()
	// The admin appears everywhere once the leader made it.
	var admin *engine.Principal
	deadline := time.Now().Add(30 * time.Second)
	for id := range c.live() {
		for {
			p, err := c.svc(id).Authenticate(ctx, basicCreds("admin", authClusterPassword))
			if err == nil {
				admin = p
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the admin never arrived: %v", id, err)
			}
			<-time.After(10 * time.Millisecond) // polling a condition with a deadline
		}
	}
	l := c.leader()
	if _, err := c.call(l, admin, "CALL dbms.security.createUser('ann', 'ann-password-1', ['editor'])"); err != nil {
		t.Fatal(err)
	}
	rows, err := c.call(l, admin, "CALL dbms.security.createApiKey('ann', 'ci')")
	if err != nil {
		t.Fatal(err)
	}
	keyID, apiKey := rows[0][0].(string), rows[0][1].(string)
	toks, _, err := c.svc(l).Login(ctx, "ann", "ann-password-1", "")
	if err != nil {
		t.Fatal(err)
	}
	c.synced(l)
	bearer := auth.Credentials{Authorization: "Bearer " + toks.AccessToken}
	for id, n := range c.live() {
		s := c.svc(id)
		if p, err := s.Authenticate(ctx, basicCreds("ann", "ann-password-1")); err != nil || p.Privileges != engine.PrivRead|engine.PrivWrite {
			t.Fatalf("%s (%s): ann's password: %+v %v", id, n.Role(), p, err)
		}
		if _, err := s.Authenticate(ctx, auth.Credentials{APIKey: apiKey}); err != nil {
			t.Fatalf("%s: ann's API key: %v", id, err)
		}
		if p, err := s.Authenticate(ctx, bearer); err != nil || p.Name != "ann" {
			t.Fatalf("%s: the leader's token: %+v %v", id, p, err)
		}
		rows, err := c.call(id, admin, "CALL dbms.security.listUsers()")
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s: users %v %v (the admin made once, and ann)", id, rows, err)
		}
		if id == l {
			continue
		}
		// Writes of auth state on a follower or the learner: 25006.
		_, err = c.call(id, admin, "CALL dbms.security.createUser('bob', 'bob-password-1', ['reader'])")
		if errCode(err) != engine.CodeNotLeader {
			t.Fatalf("%s: createUser on a follower: %v", id, err)
		}
		if _, _, err := s.Login(ctx, "ann", "ann-password-1", ""); errCode(err) != engine.CodeNotLeader || !strings.Contains(err.Error(), l) {
			t.Fatalf("%s: login on a follower: %v (want 25006 naming %s)", id, err, l)
		}
		if _, err := s.Refresh(ctx, toks.RefreshToken, ""); errCode(err) != engine.CodeNotLeader {
			t.Fatalf("%s: refresh on a follower: %v", id, err)
		}
	}

	// Revocations reach every member.
	if _, err := c.call(l, admin, fmt.Sprintf("CALL dbms.security.revokeApiKey('%s')", keyID)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(l, admin, "CALL dbms.security.setPassword('ann', 'ann-password-2')"); err != nil {
		t.Fatal(err)
	}
	c.synced(l)
	for id := range c.live() {
		s := c.svc(id)
		if _, err := s.Authenticate(ctx, auth.Credentials{APIKey: apiKey}); errCode(err) != engine.CodeAuth {
			t.Fatalf("%s: a revoked key: %v", id, err)
		}
		if _, err := s.Authenticate(ctx, bearer); errCode(err) != engine.CodeAuth {
			t.Fatalf("%s: a token of a changed password: %v", id, err)
		}
		if _, err := s.Authenticate(ctx, basicCreds("ann", "ann-password-1")); errCode(err) != engine.CodeAuth {
			t.Fatalf("%s: the old password: %v", id, err)
		}
	}

	// The leader goes: a token it issued works on the others, a login
	// on the new leader too, and the admin is not made again.
	toks, _, err = c.svc(l).Login(ctx, "ann", "ann-password-2", "")
	if err != nil {
		t.Fatal(err)
	}
	c.synced(l)
	c.stop(l)
	next := c.leader()
	bearer = auth.Credentials{Authorization: "Bearer " + toks.AccessToken}
	for id := range c.live() {
		if _, err := c.svc(id).Authenticate(ctx, bearer); err != nil {
			t.Fatalf("%s: a token of the old leader: %v", id, err)
		}
	}
	fresh, _, err := c.svc(next).Login(ctx, "ann", "ann-password-2", "")
	if err != nil {
		t.Fatalf("login on the new leader %s: %v", next, err)
	}
	// At once, without waiting for the others to apply: a member behind
	// the token's log position waits for its session.
	for id := range c.live() {
		if _, err := c.svc(id).Authenticate(ctx, auth.Credentials{Authorization: "Bearer " + fresh.AccessToken}); err != nil {
			t.Fatalf("%s: a token just issued by %s: %v", id, next, err)
		}
	}
	if _, err := c.call(next, admin, "CALL dbms.security.dropUser('ann')"); err != nil {
		t.Fatal(err)
	}
	c.synced(next)
	for id := range c.live() {
		if _, err := c.svc(id).Authenticate(ctx, bearer); errCode(err) != engine.CodeAuth {
			t.Fatalf("%s: a dropped user's token: %v", id, err)
		}
		rows, err := c.call(id, admin, "CALL dbms.security.listUsers()")
		if err != nil || len(rows) != 1 || rows[0][0] != "admin" {
			t.Fatalf("%s: users %v %v", id, rows, err)
		}
	}
}
