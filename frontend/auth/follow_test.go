package auth

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Records written by someone else (on a cluster: the leader, applied on
// this member) reach the Service through the database's watch, with no
// call of the Service's own.
func TestFollowsRecordsWrittenElsewhere(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	h, err := f.s.hash.hash(ctx, "zed-password-1")
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(userRecord{Name: "zed", Roles: []string{"reader"}, Hash: h, Gen: 1})
	if err := f.db.SystemPut(ctx, []engine.SystemRecord{{Key: userPrefix + "zed", Value: rec}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{Username: "zed", Password: "zed-password-1"}); err != nil {
		t.Fatalf("a user stored elsewhere: %v", err)
	}
	tok := f.login("zed", "zed-password-1")
	// Its session's records deleted elsewhere: the token is revoked.
	var b batch
	f.s.mu.RLock()
	for _, ss := range f.s.mu.ix.userSessions("zed") {
		b.delSession(ss)
	}
	f.s.mu.RUnlock()
	if err := f.db.SystemPut(ctx, b.recs); err != nil {
		t.Fatal(err)
	}
	if _, err := f.bearer(tok.AccessToken); err == nil {
		t.Fatal("a token of a session deleted elsewhere still works")
	}
	// The user deleted elsewhere: its password (cached) no longer works.
	if err := f.db.SystemPut(ctx, []engine.SystemRecord{{Key: userPrefix + "zed"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{Username: "zed", Password: "zed-password-1"}); err == nil {
		t.Fatal("a user deleted elsewhere still authenticates")
	}
}

// Requests authenticate while records change under them (go test -race).
func TestFollowConcurrent(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	f.user("ann", "ann-password-1", "editor")
	tok := f.login("ann", "ann-password-1")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = f.bearer(tok.AccessToken)
				_, _ = f.s.Authenticate(ctx, Credentials{Username: "ann", Password: "ann-password-1"})
			}
		})
	}
	for range 20 {
		t2 := f.login("ann", "ann-password-1")
		if _, err := f.s.Refresh(ctx, t2.RefreshToken, ""); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if _, err := f.bearer(tok.AccessToken); err != nil {
		t.Fatalf("the first session after the others: %v", err)
	}
}
