package http

import (
	"context"
	"errors"
	"io"
	nethttp "net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
)

// fakeCluster is a member whose role, leader and applied index the test
// sets; its database's writes are refused through the engine's hook
// while it does not lead (fakeReplication).
type fakeCluster struct {
	mu         sync.Mutex
	id, role   string
	leaderID   string
	leaderURL  string
	applied    uint64
	appliedNow chan struct{}
}

func (f *fakeCluster) Role() string     { f.mu.Lock(); defer f.mu.Unlock(); return f.role }
func (f *fakeCluster) MemberID() string { return f.id }
func (f *fakeCluster) Leader() (string, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leaderID, f.leaderURL
}
func (f *fakeCluster) Bookmark() uint64 { f.mu.Lock(); defer f.mu.Unlock(); return f.applied }
func (f *fakeCluster) WaitApplied(ctx context.Context, index uint64) error {
	for f.Bookmark() < index {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-f.appliedNow:
		}
	}
	return nil
}
func (f *fakeCluster) Linearizable(context.Context) error {
	if f.Role() != "leader" {
		return engine.NewError(engine.CodeNotLeader, engine.CatTransaction, "not the leader")
	}
	return nil
}
func (f *fakeCluster) Replication() string {
	if id, _ := f.Leader(); id == "" {
		return serving.ReplicationNoLeader
	}
	return "ok"
}
func (f *fakeCluster) Status() serving.ClusterStatus {
	id, url := f.Leader()
	return serving.ClusterStatus{MemberID: f.id, LeaderID: id, LeaderURL: url, Applied: f.Bookmark(), Commit: f.Bookmark(), Members: 3}
}

func (f *fakeCluster) apply(index uint64) {
	f.mu.Lock()
	f.applied = index
	f.mu.Unlock()
	select {
	case f.appliedNow <- struct{}{}:
	default:
	}
}

// followerDB refuses writes as the engine does on a member that does
// not lead (25006); reads run on the database.
type followerDB struct {
	*engine.DB
	c *fakeCluster
}

func (f followerDB) Run(ctx context.Context, m engine.Mode, text string, params engine.Params) (*engine.Result, error) {
	if strings.HasPrefix(text, "CREATE") && f.c.Role() != "leader" {
		return nil, engine.NewError(engine.CodeNotLeader, engine.CatTransaction, "this member is not the leader")
	}
	return f.DB.Run(ctx, m, text, params)
}

// A follower's HTTP answers, checked against the OpenAPI document:
// status and health report the member, writes are redirected (or the
// 25006 error), bookmarks wait, answers carry the member's bookmark.
func TestClusterFollowerAnswers(t *testing.T) {
	leaderDB, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer leaderDB.Close()
	leader := &fakeCluster{id: "n1", role: "leader", leaderID: "n1", applied: 5, appliedNow: make(chan struct{}, 1)}
	leaderURL := startServer(t, Config{Cluster: leader, RedirectWrites: true}, leaderDB)
	leader.leaderURL = leaderURL

	fc := &fakeCluster{id: "n2", role: "follower", leaderID: "n1", leaderURL: leaderURL, applied: 3, appliedNow: make(chan struct{}, 1)}
	mdb, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	db := followerDB{mdb, fc}
	redirecting := startServer(t, Config{Cluster: fc, RedirectWrites: true}, db)
	erroring := startServer(t, Config{Cluster: fc}, db)

	_, st, _ := call(t, "GET", redirecting+"/api/v1/status", "")
	if st["role"] != "follower" || st["cluster"].(map[string]any)["leader_url"] != leaderURL {
		t.Errorf("status = %v", st)
	}
	_, h, _ := call(t, "GET", redirecting+"/api/v1/health", "")
	if h["checks"].(map[string]any)["replication"] != "ok" {
		t.Errorf("health = %v", h)
	}

	// A write: 307 to the leader, which the standard client follows,
	// re-sending the body; the answer carries the leader's bookmark.
	status, out, hdr := call(t, "POST", redirecting+"/api/v1/query", `{"query":"CREATE (:A)"}`)
	if status != 200 || hdr.Get(BookmarkHeader) != "5" || leaderDB.Counts().Nodes != 1 {
		t.Fatalf("followed write: %d %v %v, leader holds %d nodes", status, out, hdr, leaderDB.Counts().Nodes)
	}
	noFollow := &nethttp.Client{CheckRedirect: func(*nethttp.Request, []*nethttp.Request) error { return nethttp.ErrUseLastResponse }}
	resp, err := noFollow.Post(redirecting+"/query?a=b", "application/json", strings.NewReader(`{"query":"CREATE (:A)"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 307 || resp.Header.Get("Location") != leaderURL+"/query?a=b" {
		t.Errorf("write on /query: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// The error form: 503, 25006, details.leader.
	status, out, _ = call(t, "POST", erroring+"/api/v1/query", `{"query":"CREATE (:A)"}`)
	e := out["error"].(map[string]any)
	if status != 503 || e["code"] != "25006" || e["details"].(map[string]any)["leader"].(map[string]any)["url"] != leaderURL {
		t.Errorf("write, error form: %d %v", status, out)
	}
	// No leader known: the error, whatever the mode.
	fc.mu.Lock()
	fc.leaderID, fc.leaderURL = "", ""
	fc.mu.Unlock()
	status, out, _ = call(t, "POST", redirecting+"/api/v1/transaction/begin", `{}`)
	e = out["error"].(map[string]any)
	if status != 503 || e["code"] != "25006" || e["details"].(map[string]any)["leader"].(map[string]any)["id"] != nil ||
		!strings.Contains(e["message"].(string), "no leader is known") {
		t.Errorf("BEGIN with no leader: %d %v", status, out)
	}
	_, h, _ = call(t, "GET", redirecting+"/api/v1/health", "")
	if h["checks"].(map[string]any)["replication"] != serving.ReplicationNoLeader || h["status"] != "degraded" {
		t.Errorf("health with no leader = %v", h)
	}

	// Reads run here, with this member's bookmark; a bookmark it has not
	// applied waits for it.
	status, _, hdr = call(t, "POST", redirecting+"/api/v1/query", `{"query":"RETURN 1 AS x"}`)
	if status != 200 || hdr.Get(BookmarkHeader) != "3" {
		t.Errorf("read: %d, bookmark %q", status, hdr.Get(BookmarkHeader))
	}
	go func() {
		time.Sleep(50 * time.Millisecond) // the request is waiting by then, or finds it applied: both pass
		fc.apply(9)
	}()
	status, _, hdr = call(t, "POST", redirecting+"/api/v1/query", `{"query":"RETURN 1 AS x","bookmark":9}`)
	if status != 200 || hdr.Get(BookmarkHeader) != "9" {
		t.Errorf("read after bookmark 9: %d, bookmark %q", status, hdr.Get(BookmarkHeader))
	}
	req, _ := nethttp.NewRequest("POST", redirecting+"/api/v1/query", strings.NewReader(`{"query":"RETURN 1 AS x","timeout":100}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(BookmarkHeader, strconv.Itoa(1000))
	resp, err = nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 408 || !strings.Contains(string(raw), "bookmark 1000") {
		t.Errorf("unapplied bookmark: %d %s", resp.StatusCode, raw)
	}
	// Status and health never wait for a bookmark.
	req, _ = nethttp.NewRequest("GET", redirecting+"/api/v1/health", nil)
	req.Header.Set(BookmarkHeader, "1000")
	if resp, err = nethttp.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("health with a bookmark: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// A linearizable read on a follower is routed as a write; on the
	// leader it runs.
	status, out, _ = call(t, "POST", erroring+"/api/v1/query", `{"query":"RETURN 1 AS x","consistency":"linearizable"}`)
	if status != 503 || out["error"].(map[string]any)["code"] != "25006" {
		t.Errorf("linearizable read on a follower: %d %v", status, out)
	}
	if status, out, _ = call(t, "POST", leaderURL+"/api/v1/query", `{"query":"RETURN 1 AS x","consistency":"linearizable"}`); status != 200 {
		t.Errorf("linearizable read on the leader: %d %v", status, out)
	}
	if !errors.Is(serving.WaitBookmark(context.Background(), nil, 7), nil) {
		t.Error("a single server waits for no bookmark")
	}
}
