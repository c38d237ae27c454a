package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/client"
)

// post sends a JSON body (and headers as key, value pairs) without
// following redirects, and decodes the answer.
func cpost(t *testing.T, url, body string, headers ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	must(t, err, "request")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := noFollow.Do(req)
	must(t, err, "POST %s", url)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		must(t, json.Unmarshal(raw, &out), "decoding %s", raw)
	}
	return resp, out
}

func cget(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := noFollow.Get(url)
	must(t, err, "GET %s", url)
	defer resp.Body.Close()
	var out map[string]any
	must(t, json.NewDecoder(resp.Body).Decode(&out), "decoding %s", url)
	return out
}

// Three members: status and health report the real roles, a follower
// redirects writes (307 to the leader, same path and query) or answers
// 25006 naming the leader, the Go client follows, and bookmarks give
// read-your-writes on every member.
func TestClusterHTTPRouting(t *testing.T) {
	t.Parallel()
	c := newHTTPCluster(t)
	lead, followers := c.leader()
	f := followers[0]

	// Status and health.
	poll(t, "every member's replication ok", func() bool {
		for _, m := range c.members {
			if h := cget(t, m.url+"/api/v1/health"); h["checks"].(map[string]any)["replication"] != "ok" || h["status"] != "healthy" {
				return false
			}
		}
		return true
	})
	st := cget(t, lead.url+"/api/v1/status")
	if st["role"] != "leader" {
		t.Errorf("leader's role = %v", st["role"])
	}
	if cl, _ := st["cluster"].(map[string]any); cl == nil || cl["member_id"] != lead.id || cl["leader_id"] != lead.id || cl["members"] != 3.0 {
		t.Errorf("leader's cluster status = %v", st["cluster"])
	}
	if st := cget(t, f.url+"/api/v1/status"); st["role"] != "follower" || st["cluster"].(map[string]any)["leader_url"] != lead.url {
		t.Errorf("follower's status = %v", st)
	}

	// A write on a follower: 307 to the leader's address, same path and
	// query; the error form names the leader.
	resp, _ := cpost(t, f.url+"/api/v1/query?x=1", `{"query":"CREATE (:P {v: 1})"}`)
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != lead.url+"/api/v1/query?x=1" {
		t.Fatalf("write on a follower: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A batch run as one transaction is routed as a whole.
	resp, _ = cpost(t, f.url+"/api/v1/batch", `{"queries":[{"query":"MATCH (n) RETURN count(n)"},{"query":"CREATE (:P {v: 1})"}],"transaction":true}`)
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != lead.url+"/api/v1/batch" {
		t.Fatalf("transactional batch on a follower: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// So is one without a transaction that holds a write, before any of
	// its statements runs; a read-only one runs on the follower.
	mixed := `{"queries":[{"query":"MATCH (n) RETURN count(n)"},{"query":"UNWIND [1, 2] AS v CREATE (:P {v: v})"}]}`
	resp, _ = cpost(t, f.url+"/api/v1/batch", mixed)
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != lead.url+"/api/v1/batch" {
		t.Fatalf("batch with a write on a follower: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := cpost(t, f.errURL+"/api/v1/batch", mixed)
	if e, _ := body["error"].(map[string]any); resp.StatusCode != http.StatusServiceUnavailable || e["code"] != "25006" || body["results"] != nil {
		t.Fatalf("batch with a write on a follower (error mode): %d %v", resp.StatusCode, body)
	}
	resp, body = cpost(t, f.errURL+"/api/v1/batch", `{"queries":[{"query":"MATCH (n) RETURN count(n) AS n"},{"query":"RETURN 1 AS x"}]}`)
	if rs, _ := body["results"].([]any); resp.StatusCode != http.StatusOK || len(rs) != 2 ||
		rs[0].(map[string]any)["status"] != "success" || rs[1].(map[string]any)["status"] != "success" {
		t.Fatalf("read-only batch on a follower: %d %v", resp.StatusCode, body)
	}
	resp, body = cpost(t, f.errURL+"/api/v1/query", `{"query":"CREATE (:P {v: 1})"}`)
	e, _ := body["error"].(map[string]any)
	if resp.StatusCode != http.StatusServiceUnavailable || e["code"] != "25006" ||
		!strings.Contains(e["message"].(string), lead.url) {
		t.Fatalf("write on a follower (error mode): %d %v", resp.StatusCode, body)
	}
	if l := e["details"].(map[string]any)["leader"].(map[string]any); l["id"] != lead.id || l["url"] != lead.url {
		t.Errorf("details.leader = %v", l)
	}
	// Nothing was written by either.
	if n := lead.node.DB().Counts().Nodes; n != 0 {
		t.Fatalf("the refused writes created %d nodes", n)
	}

	// The Go client follows the redirect, re-sending the body, and keeps
	// the commit's bookmark; a read on a follower then waits for it.
	ctx := context.Background()
	fc := client.NewHTTP(f.url)
	if _, err := fc.Query(ctx, "CREATE (:P {v: $v})", map[string]any{"v": 7}); err != nil {
		t.Fatalf("client write through a follower: %v", err)
	}
	if fc.Bookmark() == 0 {
		t.Fatal("the commit's answer carried no bookmark")
	}
	for _, m := range c.members {
		mc := client.NewHTTP(m.url)
		mc.SetBookmark(fc.Bookmark())
		r, err := mc.Query(ctx, "MATCH (p:P) RETURN count(p) AS n", nil)
		must(t, err, "read on %s", m.id)
		if n := r.Rows[0][0]; n != int64(1) {
			t.Errorf("%s after the bookmark: %v nodes, want 1", m.id, r.Rows[0][0])
		}
	}
	// The error form reaches the client as an *Error naming the leader.
	_, err := client.NewHTTP(f.errURL).Query(ctx, "CREATE (:P)", nil)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != client.CodeNotLeader || ce.LeaderID != lead.id || ce.LeaderAddress != lead.url {
		t.Errorf("client error on a follower = %#v", err)
	}

	// A bookmark no member has: the wait ends with the request's timeout.
	resp, body = cpost(t, f.url+"/api/v1/query", `{"query":"RETURN 1","timeout":200}`, "Quiver-Bookmark", "999999999")
	if resp.StatusCode != http.StatusRequestTimeout || body["error"].(map[string]any)["code"] != "40003" {
		t.Errorf("unreachable bookmark: %d %v", resp.StatusCode, body)
	}
	resp, _ = cpost(t, f.url+"/api/v1/query", `{"query":"RETURN 1","bookmark":"x"}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed bookmark: %d", resp.StatusCode)
	}
	// Answers carry the member's bookmark.
	resp, _ = cpost(t, lead.url+"/api/v1/query", `{"query":"RETURN 1"}`)
	if b, err := strconv.ParseUint(resp.Header.Get("Quiver-Bookmark"), 10, 64); err != nil || b < fc.Bookmark() {
		t.Errorf("the leader's bookmark %q, want at least %d", resp.Header.Get("Quiver-Bookmark"), fc.Bookmark())
	}

	// Linearizable reads: routed like a write on a follower, run on the
	// leader after its read index.
	resp, _ = cpost(t, f.url+"/api/v1/query", `{"query":"RETURN 1","consistency":"linearizable"}`)
	if resp.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("linearizable read on a follower: %d", resp.StatusCode)
	}
	resp, body = cpost(t, lead.url+"/api/v1/query", `{"query":"MATCH (p:P) RETURN count(p) AS n","consistency":"linearizable"}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("linearizable read on the leader: %d %v", resp.StatusCode, body)
	}
	resp, _ = cpost(t, f.url+"/api/v1/query", `{"query":"RETURN 1","consistency":"strong"}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown consistency: %d", resp.StatusCode)
	}

	// BEGIN on a follower is routed too, unless read_only; the client's
	// transaction then lives on the leader.
	resp, _ = cpost(t, f.url+"/api/v1/transaction/begin", `{}`)
	if resp.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("BEGIN on a follower: %d", resp.StatusCode)
	}
	resp, body = cpost(t, f.url+"/api/v1/transaction/begin", `{"read_only":true}`)
	if resp.StatusCode != http.StatusOK || body["transaction_id"] == nil {
		t.Errorf("read-only BEGIN on a follower: %d %v", resp.StatusCode, body)
	}
	tx, err := fc.Begin(ctx, "", 0)
	must(t, err, "client BEGIN through a follower")
	_, err = tx.Query(ctx, "CREATE (:P {v: 8})", nil)
	must(t, err, "write in the transaction")
	must(t, tx.Commit(ctx), "commit")
	r, err := fc.Query(ctx, "MATCH (p:P) RETURN count(p) AS n", nil)
	must(t, err, "read after the transaction")
	if n := r.Rows[0][0]; n != int64(2) {
		t.Errorf("after the transaction the follower reads %v nodes, want 2", r.Rows[0][0])
	}
}

// The dbms.cluster.* procedures: overview on any member, the changes on
// the leader only.
func TestClusterProcedures(t *testing.T) {
	t.Parallel()
	c := newHTTPCluster(t)
	lead, followers := c.leader()
	ctx := context.Background()
	r, err := client.NewHTTP(followers[0].url).Query(ctx, "CALL dbms.cluster.overview() YIELD id, address, role, appliedIndex, lag RETURN id, role, appliedIndex, lag ORDER BY id", nil)
	must(t, err, "overview")
	if len(r.Rows) != 3 {
		t.Fatalf("overview rows = %v", r.Rows)
	}
	for _, row := range r.Rows {
		want := "follower"
		if row[0] == lead.id {
			want = "leader"
		}
		if row[1] != want {
			t.Errorf("overview: %v is %v, want %s", row[0], row[1], want)
		}
		// The others' come from their status endpoints (peerApplied).
		if row[2] == nil || row[3] == nil {
			t.Errorf("overview: %v's applied index %v and lag %v, want both known", row[0], row[2], row[3])
		}
	}
	// A change on a follower: 25006 naming the leader.
	_, err = client.NewHTTP(followers[0].errURL).Query(ctx, "CALL dbms.cluster.removeMember('"+followers[1].id+"')", nil)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != client.CodeNotLeader || ce.LeaderID != lead.id {
		t.Fatalf("removeMember on a follower = %v", err)
	}
	_, err = client.NewHTTP(lead.url).Query(ctx, "CALL dbms.cluster.removeMember('n9')", nil)
	if !errors.As(err, &ce) || ce.Code != "02000" {
		t.Errorf("removing an unknown member = %v", err)
	}
	// Transfer the lead to a named follower.
	to := followers[1]
	r, err = client.NewHTTP(lead.url).Query(ctx, "CALL dbms.cluster.transferLeadership('"+to.id+"')", nil)
	must(t, err, "transferLeadership")
	if r.Rows[0][0] != lead.id {
		t.Errorf("transfer from %v, want %s", r.Rows[0][0], lead.id)
	}
	poll(t, to.id+" leading", func() bool { return to.node.Role() == "leader" && to.node.Writable() == nil })
	// The old leader's client follows to the new one.
	old := client.NewHTTP(lead.url)
	poll(t, "the old leader knowing the new one", func() bool { id, _ := lead.node.Leader(); return id == to.id })
	_, err = old.Query(ctx, "CREATE (:Q)", nil)
	must(t, err, "write through the old leader")
	if n := to.node.DB().Counts().Nodes; n != 1 {
		t.Errorf("the new leader holds %d nodes, want 1", n)
	}
	// Remove the old leader.
	_, err = client.NewHTTP(to.url).Query(ctx, "CALL dbms.cluster.removeMember('"+lead.id+"')", nil)
	must(t, err, "removeMember")
	r, err = client.NewHTTP(to.url).Query(ctx, "CALL dbms.cluster.overview() YIELD id RETURN count(id) AS n", nil)
	must(t, err, "overview after the removal")
	if n := r.Rows[0][0]; n != int64(2) {
		t.Errorf("after the removal: %v members", r.Rows[0][0])
	}
}

// The wire protocol on a follower: a write's ERROR names the leader, the
// Go client reconnects there once and runs it, and its bookmark makes a
// read on a follower see the write.
func TestClusterWire(t *testing.T) {
	t.Parallel()
	c := newHTTPCluster(t)
	lead, followers := c.leader()
	ctx := context.Background()
	addr := func(m *testMember) string { return strings.TrimPrefix(m.url, "http://") }

	s, err := client.DialTCP(ctx, addr(followers[0]), nil)
	must(t, err, "dialing a follower")
	defer s.Close()
	rows, err := s.Run(ctx, "CREATE (:W {v: 1})", nil)
	must(t, err, "write through a follower")
	must(t, rows.Close(), "closing the write's rows")
	if s.Addr() != addr(lead) {
		t.Errorf("the session is at %s, want the leader %s", s.Addr(), addr(lead))
	}
	if s.Bookmark() == 0 {
		t.Fatal("the write's SUCCESS carried no bookmark")
	}
	// Another session on the other follower, with the bookmark.
	r, err := client.DialTCP(ctx, addr(followers[1]), nil)
	must(t, err, "dialing the other follower")
	defer r.Close()
	r.SetBookmark(s.Bookmark())
	rows, err = r.Run(ctx, "MATCH (w:W) RETURN count(w) AS n", nil)
	must(t, err, "read with the bookmark")
	if !rows.Next() || rows.Values()[0] != int64(1) {
		t.Errorf("the follower read %v after the bookmark, want 1", rows.Values())
	}
	must(t, rows.Close(), "closing the read")
	if r.Addr() != addr(followers[1]) {
		t.Errorf("a read moved the session to %s", r.Addr())
	}
	// An ERROR names the leader to a client that does not follow: a
	// bookmark too far, then a linearizable read on a follower, as raw
	// messages.
	raw := dialRaw(t, addr(followers[1]))
	raw.send(`{"type":"HELLO","version":"1.0"}`)
	raw.expect("WELCOME")
	raw.send(`{"type":"BEGIN"}`)
	m := raw.expect("ERROR")
	l, _ := m["details"].(map[string]any)["leader"].(map[string]any)
	if m["code"] != "25006" || l["id"] != lead.id || l["address"] != addr(lead) || l["url"] != lead.url {
		t.Errorf("BEGIN on a follower: %v", m)
	}
	raw.send(`{"type":"BEGIN","read_only":true}`)
	raw.expect("SUCCESS")
	raw.send(`{"type":"ROLLBACK"}`)
	raw.expect("SUCCESS")
	raw.send(`{"type":"RUN_GQL","query":"RETURN 1","consistency":"linearizable"}`)
	if m := raw.expect("ERROR"); m["code"] != "25006" {
		t.Errorf("linearizable read on a follower: %v", m)
	}
	raw.send(`{"type":"RUN_GQL","query":"RETURN 1","bookmark":999999999,"options":{"timeout_ms":100}}`)
	if m := raw.expect("ERROR"); m["code"] != "40003" {
		t.Errorf("unreachable bookmark: %v", m)
	}
}

// A read replica (a raft learner) reports role learner, redirects
// writes to the leader and serves reads after a bookmark.
func TestClusterLearner(t *testing.T) {
	t.Parallel()
	c := newHTTPClusterWith(t, 1, nil)
	lead, _ := c.leader()
	r := c.members[3]
	// A learner does not bootstrap: it learns the membership from the
	// leader's log, a moment after the leader is elected.
	var st map[string]any
	waitUntil(t, "membership on the learner", func() bool {
		st = cget(t, r.url+"/api/v1/status")
		return st["cluster"].(map[string]any)["members"] == 4.0
	})
	if st["role"] != "learner" {
		t.Errorf("the learner's status = %v", st)
	}
	resp, _ := cpost(t, r.url+"/api/v1/query", `{"query":"CREATE (:L)"}`)
	if resp.StatusCode != http.StatusTemporaryRedirect || !strings.HasPrefix(resp.Header.Get("Location"), lead.url) {
		t.Fatalf("write on the learner: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	ctx := context.Background()
	rc := client.NewHTTP(r.url)
	_, err := rc.Query(ctx, "CREATE (:L)", nil)
	must(t, err, "write through the learner")
	res, err := rc.Query(ctx, "MATCH (l:L) RETURN count(l) AS n", nil)
	must(t, err, "read on the learner")
	if res.Rows[0][0] != int64(1) {
		t.Errorf("the learner reads %v, want 1", res.Rows[0][0])
	}
	res, err = client.NewHTTP(lead.url).Query(ctx, "CALL dbms.cluster.overview() YIELD id, role WHERE id = 'n4' RETURN role", nil)
	must(t, err, "overview")
	if len(res.Rows) != 1 || res.Rows[0][0] != "learner" {
		t.Errorf("overview of the learner = %v", res.Rows)
	}
}
