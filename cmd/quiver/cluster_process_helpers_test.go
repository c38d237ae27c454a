package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/netfault"
	"github.com/quiverdb/quiver/internal/serverproc"
)

// The real-process cluster tests' harness: members are `quiver serve`
// children (serverproc) on loopback; member i reaches member j's raft
// port only through the netfault link (i→j), and clients reach each
// member's HTTP port directly.

// processSecret is the cluster secret the test's members share.
const processSecret = "the process tests' cluster secret"

// processCluster is n members of one cluster.
type processCluster struct {
	t     *testing.T
	net   *netfault.Net // nil when the members talk directly
	procs []*serverproc.Proc
	ids   []string
	urls  []string // each member's HTTP base URL (a fixed port, kept across restarts)
	http  *http.Client
}

// freePorts reserves n loopback TCP ports and frees them: a member's
// raft and client addresses must be known before the members start, for
// --peers and --peer-http. Each is bound at port 0 first, so two tests
// never pick the same one; the short window before the server binds it
// again is the price.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var lns []net.Listener
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err, "reserving a port")
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// startProcessCluster starts n voters, through netfault links when
// proxied, each with extra flags, and waits until one leads.
func startProcessCluster(t *testing.T, n int, proxied bool, extra ...string) *processCluster {
	t.Helper()
	bin := serverproc.Build(t)
	c := &processCluster{t: t, http: &http.Client{Timeout: 5 * time.Second}}
	t.Cleanup(c.http.CloseIdleConnections)
	// Fixed ports, kept across a member's restarts.
	ports := freePorts(t, 2*n)
	raftAddrs, httpAddrs := ports[:n], ports[n:]
	for i := range n {
		c.ids = append(c.ids, fmt.Sprintf("n%d", i+1))
		c.urls = append(c.urls, "http://"+httpAddrs[i])
	}
	if proxied {
		nt, err := netfault.NewNet(n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nt.Close() })
		for j := range n {
			nt.SetTarget(j, raftAddrs[j])
		}
		c.net = nt
	}
	var peerHTTP []string
	for j := range n {
		peerHTTP = append(peerHTTP, c.ids[j]+"="+c.urls[j])
	}
	logDir := t.TempDir()
	for i := range n {
		addrs := raftAddrs
		if c.net != nil {
			addrs = c.net.Peers(i, raftAddrs[i])
		}
		var peers []string
		for j, a := range addrs {
			peers = append(peers, c.ids[j]+"="+a)
		}
		args := serverproc.ServeArgs(filepath.Join(t.TempDir(), c.ids[i]), append([]string{
			"--listen", httpAddrs[i], "--replication-mode", "raft", "--node-id", c.ids[i],
			"--raft-listen", raftAddrs[i], "--peers", strings.Join(peers, ","), "--peer-http", strings.Join(peerHTTP, ",")}, extra...)...)
		c.procs = append(c.procs, serverproc.Start(t, serverproc.Config{Bin: bin, Args: args, Dir: logDir, Name: c.ids[i],
			Env: []string{envClusterSecret + "=" + processSecret}}))
	}
	c.awaitLeader(-1)
	return c
}

// memberStatus is what a member's GET /api/v1/status says of the cluster.
type memberStatus struct {
	Role    string `json:"role"`
	Cluster struct {
		LeaderID string `json:"leader_id"`
		Applied  uint64 `json:"applied_index"`
		Commit   uint64 `json:"commit_index"`
	} `json:"cluster"`
}

func (c *processCluster) status(i int) (memberStatus, error) {
	var st memberStatus
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.urls[i]+"/api/v1/status", nil)
	resp, err := c.http.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st, err
}

// leader is the member that says it leads, -1 if none does; with
// several (an old leader cut off not yet stepped down), the one the
// others name.
func (c *processCluster) leader(except int) int {
	found := -1
	for i := range c.procs {
		if i == except {
			continue
		}
		if st, err := c.status(i); err == nil && st.Role == "leader" {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// awaitLeader waits until a member other than except leads, and returns
// it.
func (c *processCluster) awaitLeader(except int) int {
	c.t.Helper()
	var l int
	waitUntil(c.t, "leader", func() bool { l = c.leader(except); return l >= 0 })
	return l
}

// awaitRole waits until member i reports role.
func (c *processCluster) awaitRole(i int, role string) {
	c.t.Helper()
	waitUntil(c.t, fmt.Sprintf("%s as %s", c.ids[i], role), func() bool {
		st, err := c.status(i)
		return err == nil && st.Role == role
	})
}

// query posts a query to member i (following redirects) with the body's
// extra fields and headers (key, value pairs).
func (c *processCluster) query(ctx context.Context, client *http.Client, i int, q string, params map[string]any, extra map[string]any, headers ...string) (queryReply, error) {
	body := map[string]any{"query": q, "parameters": params}
	for k, v := range extra {
		body[k] = v
	}
	return postQuery(ctx, client, c.urls[i], body, headers...)
}

// mustQuery is query that fails the test unless the answer is 200. It
// retries 25006 (no leader known, or a new leader not yet taking commits:
// status says "leader" from the election, writes wait for its first
// entry) until a deadline.
func (c *processCluster) mustQuery(i int, q string, params map[string]any, headers ...string) queryReply {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		r, err := c.query(ctx, c.http, i, q, params, nil, headers...)
		if err == nil && r.status == http.StatusOK {
			return r
		}
		if err != nil || r.code != "25006" || ctx.Err() != nil {
			c.t.Fatalf("%s: %s: %+v, %v", c.ids[i], q, r, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// int64Column reads column col of rows as integers.
func int64Column(t *testing.T, rows []map[string]any, col string) []int64 {
	t.Helper()
	out := make([]int64, 0, len(rows))
	for _, r := range rows {
		n, ok := r[col].(json.Number)
		if !ok {
			t.Fatalf("%s is %#v, not a number", col, r[col])
		}
		v, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
