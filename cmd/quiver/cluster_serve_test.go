package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/internal/serverproc"
)

// Three `quiver serve --replication-mode raft` processes: they elect a
// leader, a write sent to a follower reaches it, the leader's kill -9
// leaves the two others serving writes with every acknowledged one, and
// a member stops cleanly on SIGTERM.
func TestServeCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers")
	}
	dir := t.TempDir()
	bin := serverproc.Build(t)
	ports := freePorts(t, 6)
	ids := []string{"n1", "n2", "n3"}
	var peers, httpAddrs []string
	for i, id := range ids {
		peers = append(peers, id+"="+ports[i])
		httpAddrs = append(httpAddrs, id+"=http://"+ports[3+i])
	}
	secret := filepath.Join(dir, "cluster-secret")
	if err := os.WriteFile(secret, []byte("the three members share this secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	servers := map[string]*crashServer{}
	for i, id := range ids {
		servers[id] = startCrashServer(t, bin, filepath.Join(dir, id), dir, id, []string{
			"--listen", ports[3+i], "--replication-mode", "raft", "--node-id", id, "--cluster-secret-file", secret,
			"--peers", strings.Join(peers, ","), "--peer-http", strings.Join(httpAddrs, ",")})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*clusterDeadline)
	defer cancel()
	role := func(id string) string {
		st, err := client.NewHTTP("http://" + servers[id].addr).Status(ctx)
		if err != nil {
			return ""
		}
		return st.Role
	}
	leader := func(among []string) string {
		var lead string
		poll(t, "a leader", func() bool {
			for _, id := range among {
				if role(id) == "leader" {
					lead = id
					return true
				}
			}
			return false
		})
		return lead
	}
	lead := leader(ids)
	var follower string
	for _, id := range ids {
		if id != lead {
			follower = id
			break
		}
	}
	// Writes through a member, retried while a leader settles.
	write := func(c *client.HTTPClient, v int) {
		t.Helper()
		var err error
		poll(t, fmt.Sprintf("write %d acknowledged", v), func() bool {
			_, err = c.Query(ctx, "CREATE (:V {v: $v})", map[string]any{"v": v})
			// Retried: no leader yet (503), or a redirect to the killed
			// leader that a follower still names (no connection).
			var ce *client.Error
			return err == nil || (errors.As(err, &ce) && ce.Status != 503)
		})
		must(t, err, "write %d", v)
	}
	fc := client.NewHTTP("http://" + servers[follower].addr)
	for v := range 5 {
		write(fc, v)
	}
	servers[lead].kill()
	var rest []string
	for _, id := range ids {
		if id != lead {
			rest = append(rest, id)
		}
	}
	newLead := leader(rest)
	other := rest[0]
	if other == newLead {
		other = rest[1]
	}
	oc := client.NewHTTP("http://" + servers[other].addr)
	oc.SetBookmark(fc.Bookmark())
	for v := 5; v < 10; v++ {
		write(oc, v)
	}
	for _, id := range rest {
		c := client.NewHTTP("http://" + servers[id].addr)
		c.SetBookmark(oc.Bookmark())
		r, err := c.Query(ctx, "MATCH (n:V) RETURN count(n) AS n, count(DISTINCT n.v) AS d", nil)
		must(t, err, "count on %s", id)
		if r.Rows[0][0] != int64(10) || r.Rows[0][1] != int64(10) {
			t.Errorf("%s holds %v nodes (%v distinct), want the 10 acknowledged", id, r.Rows[0][0], r.Rows[0][1])
		}
	}
	// A clean stop.
	s := servers[other]
	if err := s.proc.Term(clusterDeadline); err != nil {
		t.Errorf("exit after SIGTERM: %v; its log:\n%s", err, s.logTail(20))
	}
}
