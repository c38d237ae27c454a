package auth

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTokenCache: a token verified once is answered from the cache, yet
// everything verification decides still holds on a hit: a changed
// token text is verified afresh (and refused), expiry is checked against
// the clock, and a logout or password change revokes a cached token.
func TestTokenCache(t *testing.T) {
	f := newFixture(t, "")
	f.user("ann", "ann-password", "reader")
	toks := f.login("ann", "ann-password")
	if _, err := f.bearer(toks.AccessToken); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.s.tokens.get(toks.AccessToken, f.clk.Now()); !ok {
		t.Fatal("a verified token is not cached")
	}
	// A tampered copy: the last signature character changed.
	tok := toks.AccessToken
	last := tok[len(tok)-1]
	swap := byte('A')
	if last == 'A' {
		swap = 'B'
	}
	tampered := tok[:len(tok)-1] + string(swap)
	wantCode(t, func() error { _, err := f.bearer(tampered); return err }(), "08001")
	if _, ok := f.s.tokens.get(tampered, f.clk.Now()); ok {
		t.Error("a refused token was cached")
	}
	// A cached token still expires.
	f.clk.Add(time.Hour)
	_, err := f.bearer(toks.AccessToken)
	if e := wantCode(t, err, "08001"); e != nil && !strings.Contains(e.Message, "expired") {
		t.Errorf("an expired cached token: %v", e.Message)
	}
	// A cached token is revoked by a logout of its session.
	toks = f.login("ann", "ann-password")
	p, err := f.bearer(toks.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.Logout(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	wantCode(t, func() error { _, err := f.bearer(toks.AccessToken); return err }(), "08001")
	// And by a password change of its user.
	toks = f.login("ann", "ann-password")
	if _, err := f.bearer(toks.AccessToken); err != nil {
		t.Fatal(err)
	}
	f.mustCall(f.admin(), "CALL dbms.security.setPassword('ann', 'a-new-password')")
	wantCode(t, func() error { _, err := f.bearer(toks.AccessToken); return err }(), "08001")
}

// TestTokenCacheBounded: the cache never holds more than maxCachedTokens.
func TestTokenCacheBounded(t *testing.T) {
	c := newTokenCache()
	exp := time.Now().Add(time.Hour)
	for i := 0; i < maxCachedTokens+100; i++ {
		c.put(strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String(), cachedClaims{exp: exp})
	}
	if n := len(c.entries); n > maxCachedTokens {
		t.Fatalf("%d cached tokens, more than %d", n, maxCachedTokens)
	}
}
