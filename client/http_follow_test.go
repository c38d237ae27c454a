package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/client"
)

// The client follows a follower's 307 to the leader itself: the same
// path, query and body, the credential and the bookmark with it; it keeps
// the answer's bookmark and sends it later; a transaction begun through
// a follower goes on at the leader.
func TestHTTPFollowsLeader(t *testing.T) {
	var mu sync.Mutex
	var seen []string // what the leader received: method path body auth bookmark
	leader := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+string(body)+" "+r.Header.Get("Authorization")+" "+r.Header.Get(client.BookmarkHeader))
		mu.Unlock()
		w.Header().Set(client.BookmarkHeader, "17")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/begin"):
			io.WriteString(w, `{"transaction_id":"t1","isolation_level":"READ_COMMITTED","expires_at":"2026-01-01T00:00:00.000Z","timeout":300000}`)
		case strings.HasSuffix(r.URL.Path, "/commit"):
			io.WriteString(w, `{"status":"committed","committed_at":"2026-01-01T00:00:00.000Z"}`)
		default:
			io.WriteString(w, `{"schema":{"fields":[]},"data":[],"metadata":{"rows_returned":0,"execution_time_ms":0}}`)
		}
	}))
	defer leader.Close()
	var followerBookmarks []string
	follower := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		followerBookmarks = append(followerBookmarks, r.Header.Get(client.BookmarkHeader))
		mu.Unlock()
		if strings.Contains(r.URL.Path, "/query") && r.Header.Get(client.BookmarkHeader) != "" && r.ContentLength > 0 && strings.Contains(readBody(r), "RETURN 1") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"schema":{"fields":[]},"data":[],"metadata":{"rows_returned":0,"execution_time_ms":0}}`)
			return
		}
		http.Redirect(w, r, leader.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer follower.Close()

	ctx := context.Background()
	c := client.NewHTTP(follower.URL, client.WithBearerToken("tok"))
	if _, err := c.Query(ctx, "CREATE (:A)", nil); err != nil {
		t.Fatal(err)
	}
	if c.Bookmark() != 17 {
		t.Errorf("bookmark = %d, want the leader's 17", c.Bookmark())
	}
	tx, err := c.Begin(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// A read the follower answers itself carries the bookmark.
	if _, err := c.Query(ctx, "RETURN 1", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 3 || !strings.HasPrefix(seen[0], `POST /api/v1/query {"query":"CREATE (:A)"} Bearer tok`) ||
		!strings.HasPrefix(seen[1], "POST /api/v1/transaction/begin {} Bearer tok 17") ||
		!strings.HasPrefix(seen[2], "POST /api/v1/transaction/t1/commit  Bearer tok 17") {
		t.Errorf("the leader received %q", seen)
	}
	// The query and BEGIN went through the follower, COMMIT straight to
	// the leader, the read to the follower with the bookmark.
	if len(seen) != 3 || len(followerBookmarks) != 3 || followerBookmarks[0] != "" || followerBookmarks[1] != "17" || followerBookmarks[2] != "17" {
		t.Errorf("the follower received the bookmarks %q; the leader %d requests", followerBookmarks, len(seen))
	}
}

// readBody reads a request's body and puts it back.
func readBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	return string(b)
}
