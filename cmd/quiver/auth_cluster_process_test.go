package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestServeClusterAuth: three `quiver serve --auth-enabled` members.
// The first leader alone makes the admin; a user made on the leader
// authenticates on a follower; a login sent to a follower is redirected
// to the leader and its token works on the follower at once; a token
// from the leader works on a follower; a revoked API key and a dropped
// user are refused on a follower once it applied the change; a user
// creation sent to a follower is answered 307 to the leader.
func TestServeClusterAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three servers")
	}
	const adminPW = "the cluster admin's password"
	// Every member gets the same QUIVER_ADMIN_PASSWORD (the children
	// inherit the test's environment); only the first leader uses it.
	t.Setenv("QUIVER_ADMIN_PASSWORD", adminPW)
	bin := serverproc.Build(t)
	ids := []string{"n1", "n2", "n3"}
	raftAddrs, urls := map[string]string{}, map[string]string{}
	var peers, peerHTTP []string
	ports := freePorts(t, 2*len(ids))
	for i, id := range ids {
		raftAddrs[id], urls[id] = ports[2*i], "http://"+ports[2*i+1]
		peers = append(peers, id+"="+raftAddrs[id])
		peerHTTP = append(peerHTTP, id+"="+urls[id])
	}
	logDir := t.TempDir()
	for _, id := range ids {
		args := serverproc.ServeArgs(filepath.Join(t.TempDir(), id), "--listen", strings.TrimPrefix(urls[id], "http://"),
			"--replication-mode", "raft", "--node-id", id, "--raft-listen", raftAddrs[id],
			"--peers", strings.Join(peers, ","), "--peer-http", strings.Join(peerHTTP, ","), "--auth-enabled", "--rate-limit", "0")
		serverproc.Start(t, serverproc.Config{Bin: bin, Args: args, Dir: logDir, Name: id,
			Env: []string{envClusterSecret + "=" + processSecret}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*clusterDeadline)
	defer cancel()
	admin := map[string]*client.HTTPClient{}
	for _, id := range ids {
		admin[id] = client.NewHTTP(urls[id], client.WithBasicAuth("admin", adminPW))
	}
	// The admin reaches every member; one of them leads.
	lead := ""
	poll(t, "a leader, the admin on every member", func() bool {
		lead = ""
		for _, id := range ids {
			st, err := admin[id].Status(ctx)
			if err != nil {
				return false
			}
			if st.Role == "leader" {
				lead = id
			}
		}
		return lead != ""
	})
	follower := ids[0]
	if follower == lead {
		follower = ids[1]
	}
	query := func(c *client.HTTPClient, q string) (*client.Result, error) { return c.Query(ctx, q, nil) }
	status := func(err error) int {
		var e *client.Error
		if errors.As(err, &e) {
			return e.Status
		}
		return 0
	}
	// synced makes the follower apply what the leader's admin client
	// did: a read there with its bookmark waits for it.
	synced := func() {
		t.Helper()
		f := client.NewHTTP(urls[follower], client.WithBasicAuth("admin", adminPW))
		f.SetBookmark(admin[lead].Bookmark())
		_, err := query(f, "RETURN 1")
		must(t, err, "reading the leader's bookmark on %s", follower)
	}

	// A user made on the leader authenticates on the follower.
	_, err := query(admin[lead], "CALL dbms.security.createUser('ann', 'ann-password-1', ['editor'])")
	must(t, err, "createUser on the leader %s", lead)
	synced()
	annBasic := client.NewHTTP(urls[follower], client.WithBasicAuth("ann", "ann-password-1"))
	_, err = query(annBasic, "MATCH (n) RETURN count(n)")
	must(t, err, "ann's password on the follower %s", follower)

	// A login sent to the follower goes to the leader (307, followed by
	// the client); its token works on the follower at once.
	annTok := client.NewHTTP(urls[follower])
	_, err = annTok.Login(ctx, "ann", "ann-password-1")
	must(t, err, "login through the follower")
	_, err = query(annTok, "MATCH (n) RETURN count(n)")
	must(t, err, "a token issued a moment ago, on the follower")
	// A token from the leader works on the follower.
	fromLeader, err := client.NewHTTP(urls[lead]).Login(ctx, "ann", "ann-password-1")
	must(t, err, "login on the leader")
	_, err = query(client.NewHTTP(urls[follower], client.WithBearerToken(fromLeader.AccessToken)), "RETURN 1")
	must(t, err, "the leader's token on the follower")

	// An API key works on the follower until it is revoked.
	res, err := query(admin[lead], "CALL dbms.security.createApiKey('ann', 'ci')")
	must(t, err, "createApiKey")
	keyID, key := res.Rows[0][0].(string), res.Rows[0][1].(string)
	synced()
	annKey := client.NewHTTP(urls[follower], client.WithAPIKey(key))
	_, err = query(annKey, "RETURN 1")
	must(t, err, "the API key on the follower")
	_, err = query(admin[lead], fmt.Sprintf("CALL dbms.security.revokeApiKey('%s')", keyID))
	must(t, err, "revokeApiKey")
	synced()
	if _, err := query(annKey, "RETURN 1"); status(err) != http.StatusUnauthorized {
		t.Fatalf("a revoked key on the follower: %v", err)
	}

	// User creation sent to the follower: 307 to the leader.
	body := []byte(`{"query": "CALL dbms.security.createUser('bob', 'bob-password-1', ['reader'])"}`)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, urls[follower]+"/api/v1/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("admin:"+adminPW)))
	resp, err := noFollow.Do(req)
	must(t, err, "createUser on the follower")
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || !strings.HasPrefix(resp.Header.Get("Location"), urls[lead]) {
		t.Fatalf("createUser on the follower: %d to %q, want 307 to %s", resp.StatusCode, resp.Header.Get("Location"), urls[lead])
	}
	// The Go client follows it: bob is made by the leader.
	_, err = query(admin[follower], "CALL dbms.security.createUser('bob', 'bob-password-1', ['reader'])")
	must(t, err, "createUser through the follower")

	// A dropped user is refused on the follower: password and token.
	_, err = query(admin[lead], "CALL dbms.security.dropUser('ann')")
	must(t, err, "dropUser")
	synced()
	if _, err := query(annBasic, "RETURN 1"); status(err) != http.StatusUnauthorized {
		t.Fatalf("a dropped user's password on the follower: %v", err)
	}
	if _, err := query(annTok, "RETURN 1"); status(err) != http.StatusUnauthorized {
		t.Fatalf("a dropped user's token on the follower: %v", err)
	}

	// One admin for the cluster, the same users on every member.
	for _, id := range ids {
		c := client.NewHTTP(urls[id], client.WithBasicAuth("admin", adminPW))
		c.SetBookmark(max(admin[lead].Bookmark(), admin[follower].Bookmark()))
		res, err := query(c, "CALL dbms.security.listUsers() YIELD username RETURN username ORDER BY username")
		must(t, err, "listUsers on %s", id)
		var names []string
		for _, r := range res.Rows {
			names = append(names, fmt.Sprint(r[0]))
		}
		if strings.Join(names, ",") != "admin,bob" {
			t.Fatalf("%s: users %v, want admin and bob", id, names)
		}
	}
}
