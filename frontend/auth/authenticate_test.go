package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/quiverdb/quiver/engine"
)

func basic(user, pw string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))
}

func TestAuthenticateOff(t *testing.T) {
	f := newFixture(t, "", func(c *Config) { c.Enabled = false })
	p, err := f.s.Authenticate(context.Background(), Credentials{})
	if p != nil || err != nil {
		t.Fatalf("auth off: got %v, %v; want nil, nil", p, err)
	}
	if n := len(f.mustCall(nil, "CALL dbms.security.listUsers()")); n != 0 {
		t.Fatalf("auth off creates no admin, got %d users", n)
	}
}

func TestAuthenticateSchemes(t *testing.T) {
	f := newFixture(t, "")
	f.user("ann", "ann-password", "editor")
	admin := f.admin()
	key := f.mustCall(admin, "CALL dbms.security.createApiKey('ann', 'ci')")[0][1].(string)
	tok := f.login("ann", "ann-password")
	ctx := context.Background()

	accepted := []struct {
		name   string
		c      Credentials
		method string
	}{
		{"bearer", Credentials{Authorization: "Bearer " + tok.AccessToken}, "bearer"},
		{"bearer lower-case scheme", Credentials{Authorization: "bearer  " + tok.AccessToken}, "bearer"},
		{"basic", Credentials{Authorization: basic("ann", "ann-password")}, "basic"},
		{"api key", Credentials{APIKey: key}, "api_key"},
		{"api key wins over a bad header", Credentials{APIKey: key, Authorization: "Bogus"}, "api_key"},
		{"password", Credentials{Username: "ann", Password: "ann-password"}, "password"},
	}
	for _, c := range accepted {
		p, err := f.s.Authenticate(ctx, c.c)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Name != "ann" || p.Method != c.method || p.Privileges != engine.PrivRead|engine.PrivWrite || len(p.Roles) != 1 || p.Roles[0] != "editor" {
			t.Fatalf("%s: principal %+v", c.name, p)
		}
	}

	refused := []struct {
		name string
		c    Credentials
		msg  string
	}{
		{"none", Credentials{}, "authentication required"},
		{"bearer without token", Credentials{Authorization: "Bearer"}, "no token"},
		{"bearer blank", Credentials{Authorization: "Bearer    "}, "no token"},
		{"bearer garbage", Credentials{Authorization: "Bearer abc.def.ghi"}, "invalid"},
		{"basic bad base64", Credentials{Authorization: "Basic %%%"}, "base64"},
		{"basic without colon", Credentials{Authorization: "Basic " + base64.StdEncoding.EncodeToString([]byte("ann"))}, "user:password"},
		{"basic empty", Credentials{Authorization: "Basic"}, "no credentials"},
		{"unknown scheme", Credentials{Authorization: "Digest abc"}, "unsupported Authorization scheme"},
		{"too long", Credentials{Authorization: "Bearer " + strings.Repeat("a", 9000)}, "too long"},
		{"wrong password", Credentials{Authorization: basic("ann", "wrong-password")}, "invalid user name or password"},
		{"unknown user", Credentials{Authorization: basic("nobody", "ann-password")}, "invalid user name or password"},
		{"password login wrong", Credentials{Username: "ann", Password: "nope-nope"}, "invalid user name or password"},
		{"malformed key", Credentials{APIKey: "not-a-key"}, "malformed"},
		{"right id wrong secret", Credentials{APIKey: key[:len(key)-4] + "AAAA"}, "invalid or has been revoked"},
		{"unknown key id", Credentials{APIKey: "qk_000000000000_" + strings.Repeat("A", 43)}, "invalid or has been revoked"},
	}
	for _, c := range refused {
		c.c.Address = "10.0.0.9:1234" // the per-address limit (30) is not reached by this table
		p, err := f.s.Authenticate(ctx, c.c)
		if p != nil {
			t.Fatalf("%s: got principal %+v", c.name, p)
		}
		e := wantCode(t, err, engine.CodeAuth)
		if !strings.Contains(e.Message, c.msg) {
			t.Fatalf("%s: message %q, want it to contain %q", c.name, e.Message, c.msg)
		}
	}
	if n := len(f.events("authenticate")); n < len(refused) {
		t.Fatalf("audit: %d authenticate events, want at least %d", n, len(refused))
	}
	for _, e := range f.audit.Recent(MaxRecent) {
		for _, secret := range []string{"ann-password", "wrong-password", key, tok.AccessToken, tok.RefreshToken} {
			if strings.Contains(e.Detail, secret) || strings.Contains(e.Principal, secret) {
				t.Fatalf("audit event %+v holds a secret", e)
			}
		}
	}
}

func TestRevokedAPIKey(t *testing.T) {
	f := newFixture(t, "")
	admin := f.admin()
	row := f.mustCall(admin, "CALL dbms.security.createApiKey('admin', 'ops')")[0]
	id, key := row[0].(string), row[1].(string)
	p, err := f.s.Authenticate(context.Background(), Credentials{APIKey: key})
	if err != nil || p.Name != "admin" || p.Method != "api_key" {
		t.Fatalf("key: %+v %v", p, err)
	}
	list := f.mustCall(admin, "CALL dbms.security.listApiKeys()")
	if len(list) != 1 || list[0][0] != id || list[0][1] != "admin" || list[0][2] != "ops" {
		t.Fatalf("listApiKeys: %v", list)
	}
	f.mustCall(admin, "CALL dbms.security.revokeApiKey('"+id+"')")
	_, err = f.s.Authenticate(context.Background(), Credentials{APIKey: key})
	wantCode(t, err, engine.CodeAuth)
	if _, err := f.s.Current(p); err == nil {
		t.Fatal("Current of a revoked key's principal succeeded")
	}
	if ev := f.events("revoke_api_key"); len(ev) != 1 || ev[0].Outcome != engine.OutcomeSuccess || ev[0].Principal != "admin" {
		t.Fatalf("revoke audit: %+v", ev)
	}
}

func TestAccessTokenAttacks(t *testing.T) {
	f := newFixture(t, "")
	f.user("bob", "bob-password", "reader")
	tok := f.login("bob", "bob-password")
	if p, err := f.bearer(tok.AccessToken); err != nil || p.Name != "bob" || p.Session == "" {
		t.Fatalf("valid token: %+v %v", p, err)
	}
	parts := strings.Split(tok.AccessToken, ".")
	var claims map[string]any
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if err := json.Unmarshal(raw, &claims); err != nil {
		t.Fatal(err)
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	admin := map[string]any{}
	for k, v := range claims {
		admin[k] = v
	}
	admin["sub"] = "admin"
	sign := func(m jwt.SigningMethod, key any, c map[string]any) string {
		s, err := jwt.NewWithClaims(m, jwt.MapClaims(c)).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	otherKey := []byte(strings.Repeat("k", 32))
	cases := map[string]string{
		"modified payload":   parts[0] + "." + enc(admin) + "." + parts[2],
		"modified signature": parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2])),
		"alg none":           base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".",
		"alg none signed":    sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims),
		"HS512 with our key": sign(jwt.SigningMethodHS512, f.s.signingKey(), claims),
		"RS256 header":       base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + parts[1] + "." + parts[2],
		"other server's key": sign(jwt.SigningMethodHS256, otherKey, claims),
		"other issuer":       sign(jwt.SigningMethodHS256, f.s.signingKey(), with(claims, "iss", "evil")),
		"no expiry":          sign(jwt.SigningMethodHS256, f.s.signingKey(), with(claims, "exp", nil)),
		"issued in future":   sign(jwt.SigningMethodHS256, f.s.signingKey(), with(claims, "iat", f.clk.Now().Add(time.Hour).Unix())),
		"two parts":          parts[0] + "." + parts[1],
	}
	for name, bad := range cases {
		p, err := f.bearer(bad)
		if p != nil {
			t.Fatalf("%s: accepted as %+v", name, p)
		}
		e := wantCode(t, err, engine.CodeAuth)
		if e.Message != "the access token is invalid" {
			t.Fatalf("%s: message %q", name, e.Message)
		}
	}
	// Signed with our key but naming a session that does not exist, or an
	// old password generation: revoked.
	for name, c := range map[string]map[string]any{"unknown session": with(claims, "sid", "nope"), "old gen": with(claims, "gen", 0)} {
		_, err := f.bearer(sign(jwt.SigningMethodHS256, f.s.signingKey(), c))
		if e := wantCode(t, err, engine.CodeAuth); !strings.Contains(e.Message, "revoked") {
			t.Fatalf("%s: %q", name, e.Message)
		}
	}

	f.clk.Add(time.Hour + time.Second)
	_, err := f.bearer(tok.AccessToken)
	if e := wantCode(t, err, engine.CodeAuth); e.Message != "the access token has expired" {
		t.Fatalf("expired: %q", e.Message)
	}
	if tok.ExpiresIn != 3600 || tok.TokenType != "Bearer" || !strings.HasPrefix(tok.RefreshToken, "qr_") {
		t.Fatalf("tokens: %+v", tok)
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for x, y := range m {
		out[x] = y
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func TestDummyHashForUnknownUser(t *testing.T) {
	f := newFixture(t, "")
	before, dummies := f.s.hash.hashes.Load(), f.s.hash.dummies.Load()
	_, err := f.s.Authenticate(context.Background(), Credentials{Authorization: basic("ghost", "some-password")})
	wantCode(t, err, engine.CodeAuth)
	if f.s.hash.dummies.Load() != dummies+1 || f.s.hash.hashes.Load() != before+1 {
		t.Fatalf("unknown user: %d hashes, %d dummies; want one dummy hash", f.s.hash.hashes.Load()-before, f.s.hash.dummies.Load()-dummies)
	}
	// Same message as a known user with the wrong password.
	_, err2 := f.s.Authenticate(context.Background(), Credentials{Authorization: basic("admin", "some-password")})
	if e1, e2 := wantCode(t, err, engine.CodeAuth), wantCode(t, err2, engine.CodeAuth); e1.Message != e2.Message {
		t.Fatalf("messages differ: %q vs %q", e1.Message, e2.Message)
	}
}

func TestBasicCache(t *testing.T) {
	f := newFixture(t, "")
	c := Credentials{Authorization: basic("admin", "admin-password"), Address: "127.0.0.1:9"}
	if _, err := f.s.Authenticate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	n := f.s.hash.hashes.Load()
	for range 3 {
		if _, err := f.s.Authenticate(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.s.hash.hashes.Load() - n; got != 0 {
		t.Fatalf("cached Basic ran %d hashes", got)
	}
	// One success event: only the verification that hashed is audited.
	succ := 0
	for _, e := range f.events("authenticate") {
		if e.Outcome == engine.OutcomeSuccess && e.Principal == "admin" && strings.Contains(e.Detail, "basic") {
			succ++
		}
	}
	if succ != 1 {
		t.Fatalf("%d basic success events, want 1", succ)
	}
	// A wrong password is never served from the cache, and the cache ends
	// after its time.
	if _, err := f.s.Authenticate(context.Background(), Credentials{Authorization: basic("admin", "admin-passworx")}); err == nil {
		t.Fatal("wrong password accepted")
	}
	f.clk.Add(cacheTTL)
	n = f.s.hash.hashes.Load()
	if _, err := f.s.Authenticate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if f.s.hash.hashes.Load() != n+1 {
		t.Fatal("an expired cache entry was used")
	}
	// A password change drops the entry: the old password fails.
	f.mustCall(f.admin(), "CALL dbms.security.setPassword('admin', 'new-admin-password')")
	if _, err := f.s.Authenticate(context.Background(), c); err == nil {
		t.Fatal("the old password still works through the cache")
	}
}

func TestDefaultHashParams(t *testing.T) {
	h, err := newHasher(HashParams{})
	if err != nil {
		t.Fatal(err)
	}
	phc, err := h.hash(context.Background(), "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(phc, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("PHC %q", phc)
	}
	// A hasher with other parameters verifies it: the cost is read from
	// the string.
	c, _ := newHasher(cheap)
	for pw, want := range map[string]bool{"correct horse": true, "correct horsf": false} {
		if ok, err := c.verify(context.Background(), pw, phc); err != nil || ok != want {
			t.Fatalf("verify %q: %v %v", pw, ok, err)
		}
	}
}

func TestParsePHCRefusesBadStrings(t *testing.T) {
	for _, s := range []string{
		"", "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=99999999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$!!$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=64,t=1,x=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
	} {
		if _, _, _, err := parsePHC(s); err == nil {
			t.Fatalf("parsePHC(%q) accepted", s)
		}
	}
}
