package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// checkOutcome fails unless Authenticate answered either a valid
// principal and no error, or no principal and an engine 08001 error or a
// *LimitError.
func checkOutcome(t *testing.T, p *engine.Principal, err error) {
	t.Helper()
	if err == nil {
		if p == nil || p.Name == "" || p.Method == "" {
			t.Fatalf("no error but principal %+v", p)
		}
		return
	}
	if p != nil {
		t.Fatalf("error %v with principal %+v", err, p)
	}
	var le *LimitError
	if e, ok := engine.AsError(err); !(ok && e.Code == engine.CodeAuth) && !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is neither 08001 nor a *LimitError", err, err)
	}
}

func FuzzAuthorizationHeader(f *testing.F) {
	fx := newFixture(f, "")
	tok := fx.login("admin", "admin-password")
	for _, s := range []string{"", "Bearer", "Bearer " + tok.AccessToken, "Basic", basic("admin", "admin-password"),
		basic("admin", "x"), "Basic !!!", "Digest x", "bearer\t" + tok.AccessToken, "Basic " + tok.AccessToken, " \x00\xff"} {
		f.Add(s, "")
	}
	f.Add("", "qk_0123456789ab_AAAA")
	f.Fuzz(func(t *testing.T, header, key string) {
		fx.s.limiter = newLimiter() // the limiter would refuse everything after a while
		p, err := fx.s.Authenticate(context.Background(), Credentials{Authorization: header, APIKey: key, Address: "127.0.0.1:1"})
		checkOutcome(t, p, err)
	})
}

func FuzzAccessToken(f *testing.F) {
	fx := newFixture(f, "")
	tok := fx.login("admin", "admin-password")
	f.Add(tok.AccessToken)
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add(tok.AccessToken[:len(tok.AccessToken)-1])
	f.Fuzz(func(t *testing.T, s string) {
		c, err := fx.s.parseAccess(s)
		if (c == nil) == (err == nil) {
			t.Fatalf("parseAccess(%q) = %v, %v", s, c, err)
		}
		if err == nil && s != tok.AccessToken {
			// Any other accepted string must carry our claims intact.
			if c.Subject != "admin" || c.Issuer != issuer {
				t.Fatalf("accepted %q with claims %+v", s, c)
			}
		}
		p, err := fx.bearer(s)
		checkOutcome(t, p, err)
	})
}
