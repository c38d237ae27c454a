package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func TestRefreshRotationAndReplay(t *testing.T) {
	f := newFixture(t, "")
	f.user("cat", "cat-password", "reader")
	first := f.login("cat", "cat-password")
	ctx := context.Background()

	second, err := f.s.Refresh(ctx, first.RefreshToken, "127.0.0.1:7")
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Fatal("refresh did not rotate the tokens")
	}
	p1, err1 := f.bearer(first.AccessToken)
	p2, err2 := f.bearer(second.AccessToken)
	if err1 != nil || err2 != nil || p1.Session != p2.Session {
		t.Fatalf("both access tokens of the session work: %v %v", err1, err2)
	}
	third, err := f.s.Refresh(ctx, second.RefreshToken, "127.0.0.1:7")
	if err != nil {
		t.Fatal(err)
	}

	// Replaying the first (used) refresh token revokes the session.
	_, err = f.s.Refresh(ctx, first.RefreshToken, "10.9.9.9:1")
	if e := wantCode(t, err, engine.CodeAuth); !strings.Contains(e.Message, "already used") {
		t.Fatalf("replay: %q", e.Message)
	}
	for _, tok := range []string{first.AccessToken, second.AccessToken, third.AccessToken} {
		if _, err := f.bearer(tok); err == nil {
			t.Fatal("an access token of a revoked session still works")
		}
	}
	if _, err := f.s.Refresh(ctx, third.RefreshToken, ""); err == nil {
		t.Fatal("the session's latest refresh token still works after a replay")
	}
	if _, err := f.s.Current(p2); err == nil {
		t.Fatal("Current of a revoked session succeeded")
	}
	ev := f.events("refresh_token_reuse")
	if len(ev) != 1 || ev[0].Outcome != engine.OutcomeFailure || ev[0].Principal != "cat" || ev[0].Address != "10.9.9.9:1" {
		t.Fatalf("reuse audit: %+v", ev)
	}
	if n := len(f.events("token_refresh")); n < 3 {
		t.Fatalf("%d token_refresh events", n)
	}

	// Unknown, malformed and expired refresh tokens.
	for _, bad := range []string{"", "qr_nope", "xx_" + strings.Repeat("a", 43), strings.Repeat("q", 10000)} {
		_, err := f.s.Refresh(ctx, bad, "")
		wantCode(t, err, engine.CodeAuth)
	}
	fresh := f.login("cat", "cat-password")
	f.clk.Add(7*24*time.Hour + time.Second)
	_, err = f.s.Refresh(ctx, fresh.RefreshToken, "")
	if e := wantCode(t, err, engine.CodeAuth); !strings.Contains(e.Message, "expired") {
		t.Fatalf("expired refresh: %q", e.Message)
	}
}

func TestRotationKeepsRecordsBounded(t *testing.T) {
	f := newFixture(t, "")
	tok := f.login("admin", "admin-password")
	var used []string
	for range 3 * maxSessionRecords {
		used = append(used, tok.RefreshToken)
		next, err := f.s.Refresh(context.Background(), tok.RefreshToken, "")
		if err != nil {
			t.Fatal(err)
		}
		tok = next
	}
	f.s.mu.RLock()
	n := len(f.s.mu.ix.refresh)
	f.s.mu.RUnlock()
	if n > maxSessionRecords {
		t.Fatalf("%d refresh records kept for one session, want at most %d", n, maxSessionRecords)
	}
	// A recent used token is still recognised as a replay.
	_, err := f.s.Refresh(context.Background(), used[len(used)-1], "")
	if e := wantCode(t, err, engine.CodeAuth); !strings.Contains(e.Message, "already used") {
		t.Fatalf("replay: %q", e.Message)
	}
}

func TestSessionsPerUserBounded(t *testing.T) {
	f := newFixture(t, "")
	first := f.login("admin", "admin-password")
	for range maxSessions {
		f.login("admin", "admin-password")
	}
	if _, err := f.bearer(first.AccessToken); err == nil {
		t.Fatal("the oldest session survived past the per-user bound")
	}
	f.s.mu.RLock()
	n := len(f.s.mu.ix.userSessions("admin"))
	f.s.mu.RUnlock()
	if n != maxSessions {
		t.Fatalf("%d sessions, want %d", n, maxSessions)
	}
}

func TestLogout(t *testing.T) {
	f := newFixture(t, "")
	tok := f.login("admin", "admin-password")
	other := f.login("admin", "admin-password")
	p, err := f.bearer(tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.Logout(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := f.bearer(tok.AccessToken); err == nil {
		t.Fatal("access token works after logout")
	}
	if _, err := f.s.Refresh(context.Background(), tok.RefreshToken, ""); err == nil {
		t.Fatal("refresh token works after logout")
	}
	if _, err := f.bearer(other.AccessToken); err != nil {
		t.Fatalf("logout ended another session: %v", err)
	}
	err = f.s.Logout(context.Background(), f.admin())
	if e := wantCode(t, err, "22023"); !strings.Contains(e.Message, "this request used password") {
		t.Fatalf("logout of a password principal: %q", e.Message)
	}
	if ev := f.events("logout"); len(ev) != 1 || ev[0].Principal != "admin" {
		t.Fatalf("logout audit: %+v", ev)
	}
}

func TestPasswordChangeRevokesTokens(t *testing.T) {
	f := newFixture(t, "")
	f.user("dan", "dan-password", "editor")
	key := f.mustCall(f.admin(), "CALL dbms.security.createApiKey('dan', 'k')")[0][1].(string)
	tok := f.login("dan", "dan-password")
	dan, err := f.bearer(tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	pwPrincipal, err := f.s.Authenticate(context.Background(), Credentials{Username: "dan", Password: "dan-password"})
	if err != nil {
		t.Fatal(err)
	}
	f.mustCall(dan, "CALL dbms.security.changePassword('dan-password', 'dan-password-2')")
	if _, err := f.bearer(tok.AccessToken); err == nil {
		t.Fatal("access token survives a password change")
	}
	if _, err := f.s.Refresh(context.Background(), tok.RefreshToken, ""); err == nil {
		t.Fatal("refresh token survives a password change")
	}
	if _, err := f.s.Current(pwPrincipal); err == nil {
		t.Fatal("Current of a password principal survives a password change")
	}
	if _, err := f.s.Authenticate(context.Background(), Credentials{APIKey: key}); err != nil {
		t.Fatalf("API keys stay across a password change: %v", err)
	}
	f.login("dan", "dan-password-2")
	if _, _, err := f.s.Login(context.Background(), "dan", "dan-password", ""); err == nil {
		t.Fatal("old password still logs in")
	}
	// A wrong old password is refused.
	_, err = f.call(dan, "CALL dbms.security.changePassword('wrong-password', 'dan-password-3')")
	wantCode(t, err, engine.CodeAuth)
}

func TestCurrentFollowsRoles(t *testing.T) {
	f := newFixture(t, "")
	f.user("eve", "eve-password", "reader")
	tok := f.login("eve", "eve-password")
	p, err := f.bearer(tok.AccessToken)
	if err != nil || p.Privileges != engine.PrivRead {
		t.Fatalf("%+v %v", p, err)
	}
	admin := f.admin()
	f.mustCall(admin, "CALL dbms.security.addRole('eve', 'editor')")
	cur, err := f.s.Current(p)
	if err != nil || cur.Privileges != engine.PrivRead|engine.PrivWrite || len(cur.Roles) != 2 {
		t.Fatalf("after addRole: %+v %v", cur, err)
	}
	f.mustCall(admin, "CALL dbms.security.removeRole('eve', 'reader')")
	cur, _ = f.s.Current(p)
	if cur.Privileges != engine.PrivRead|engine.PrivWrite || len(cur.Roles) != 1 || cur.Roles[0] != "editor" {
		t.Fatalf("after removeRole: %+v", cur)
	}
	f.mustCall(admin, "CALL dbms.security.dropUser('eve')")
	if _, err := f.s.Current(p); err == nil {
		t.Fatal("Current of a dropped user succeeded")
	}
	if _, err := f.bearer(tok.AccessToken); err == nil {
		t.Fatal("a dropped user's token works")
	}
	if p, err := f.s.Current(nil); p != nil || err != nil {
		t.Fatal("Current(nil) is (nil, nil)")
	}
}

func TestConcurrentUse(t *testing.T) {
	f := newFixture(t, "")
	f.user("kim", "kim-password", "reader")
	ctx := context.Background()
	done := make(chan error, 16)
	for i := range 8 {
		go func() {
			var err error
			defer func() { done <- err }()
			for range 10 {
				var tok Tokens
				if tok, _, err = f.s.Login(ctx, "kim", "kim-password", "127.0.0.1:1"); err != nil {
					return
				}
				if tok, err = f.s.Refresh(ctx, tok.RefreshToken, ""); err != nil {
					return
				}
				var p *engine.Principal
				if p, err = f.bearer(tok.AccessToken); err != nil {
					return
				}
				if i%2 == 0 {
					if err = f.s.Logout(ctx, p); err != nil {
						return
					}
				}
				if _, err = f.s.Authenticate(ctx, Credentials{Authorization: basic("kim", "kim-password")}); err != nil {
					return
				}
			}
		}()
	}
	go func() {
		var err error
		defer func() { done <- err }()
		for range 5 {
			if _, err = f.call(f.admin(), "CALL dbms.security.addRole('kim', 'editor')"); err != nil {
				return
			}
			if _, err = f.call(f.admin(), "CALL dbms.security.removeRole('kim', 'editor')"); err != nil {
				return
			}
		}
	}()
	for range 9 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
