package client_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/quiverdb/quiver/client"
)

const testAdminPassword = "admin-test-password"

// authServer starts `quiver serve --auth-enabled` (with more flags) and
// returns its address.
func authServer(t *testing.T, flags ...string) string {
	t.Helper()
	addr, stop, err := startQuiverWith(t.TempDir(), []string{"QUIVER_ADMIN_PASSWORD=" + testAdminPassword},
		append([]string{"--auth-enabled", "--rate-limit", "0"}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

// firstString is the first row's column as a string.
func firstString(t *testing.T, res *client.Result, col string) string {
	t.Helper()
	if len(res.Rows) == 0 {
		t.Fatalf("no rows for %s", col)
	}
	s, _ := res.Map(0)[col].(string)
	if s == "" {
		t.Fatalf("%s: %v", col, res.Map(0))
	}
	return s
}

func TestHTTPCredentials(t *testing.T) {
	base := "http://" + authServer(t)
	ctx := httpCtx(t)

	anon := client.NewHTTP(base)
	if _, err := anon.Health(ctx); err != nil {
		t.Fatalf("health needs no credentials: %v", err)
	}
	_, err := anon.Query(ctx, "RETURN 1 AS x", nil)
	asError(t, "a query without credentials", err, 401, "08001")
	_, err = anon.Login(ctx, "admin", "not-the-password")
	asError(t, "a wrong password", err, 401, "08001")

	admin := client.NewHTTP(base)
	tok, err := admin.Login(ctx, "admin", testAdminPassword)
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.ExpiresIn <= 0 || tok.RefreshToken == "" || tok.ExpiresAt.IsZero() {
		t.Fatalf("tokens: %+v", tok)
	}
	if _, err := admin.Query(ctx, "CALL dbms.security.createUser('rita', 'rita-password', ['reader'])", nil); err != nil {
		t.Fatal(err)
	}
	res, err := admin.Query(ctx, "CALL dbms.security.createApiKey('rita', 'ci')", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := firstString(t, res, "api_key")

	// The three schemes, each as the reader: reads run, writes are 403.
	for name, c := range map[string]*client.HTTPClient{
		"api key": client.NewHTTP(base, client.WithAPIKey(key)),
		"basic":   client.NewHTTP(base, client.WithBasicAuth("rita", "rita-password")),
		"bearer":  client.NewHTTP(base),
	} {
		if name == "bearer" {
			if _, err := c.Login(ctx, "rita", "rita-password"); err != nil {
				t.Fatal(err)
			}
		}
		res, err := c.Query(ctx, "CALL dbms.security.currentUser()", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if u := firstString(t, res, "username"); u != "rita" {
			t.Errorf("%s: current user %q", name, u)
		}
		_, err = c.Query(ctx, "CREATE (:X)", nil)
		asError(t, name+": a reader's write", err, 403, "42501")
	}
	// WithHeader's Authorization is replaced by the client's credential.
	c := client.NewHTTP(base, client.WithHeader("Authorization", "Bearer stale"), client.WithBasicAuth("rita", "rita-password"))
	if _, err := c.Query(ctx, "RETURN 1 AS x", nil); err != nil {
		t.Errorf("WithBasicAuth over WithHeader: %v", err)
	}
}

func TestHTTPRefreshAndLogout(t *testing.T) {
	base := "http://" + authServer(t)
	ctx := httpCtx(t)
	c := client.NewHTTP(base)
	first, err := c.Login(ctx, "admin", testAdminPassword)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Refresh(ctx, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.AccessToken == "" {
		t.Fatalf("refresh did not rotate: %+v", second)
	}
	if _, err := c.Query(ctx, "RETURN 1 AS x", nil); err != nil {
		t.Fatalf("after refresh: %v", err)
	}
	// A spent refresh token is refused (and revokes the session).
	_, err = client.NewHTTP(base).Refresh(ctx, first.RefreshToken)
	asError(t, "a spent refresh token", err, 401, "08001")

	// Logout ends the session and the client's credential.
	login, err := c.Login(ctx, "admin", testAdminPassword)
	if err != nil {
		t.Fatal(err)
	}
	third, err := c.Refresh(ctx, login.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = client.NewHTTP(base, client.WithBearerToken(third.AccessToken)).Query(ctx, "RETURN 1 AS x", nil)
	asError(t, "an access token after logout", err, 401, "08001")
	_, err = c.Query(ctx, "RETURN 1 AS x", nil)
	asError(t, "the client after logout", err, 401, "08001")
	_, err = client.NewHTTP(base).Refresh(ctx, third.RefreshToken)
	asError(t, "a refresh token after logout", err, 401, "08001")
	// Logout with Basic has no session to end.
	err = client.NewHTTP(base, client.WithBasicAuth("admin", testAdminPassword)).Logout(ctx)
	asError(t, "logout with Basic", err, 400, "22023")
}

// TestHTTPSAndWireTLS serves with --tls-cert: HTTPS with the CA file,
// and the wire protocol inside TLS on the same port, authenticated with
// the token the HTTP login gave.
func TestHTTPSAndWireTLS(t *testing.T) {
	certFile, keyFile, err := client.WriteSelfSignedCert(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	addr := authServer(t, "--tls-cert", certFile, "--tls-key", keyFile)
	ctx := httpCtx(t)
	tc, err := client.TLSConfigFromCA(certFile)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewHTTP("https://"+addr, client.WithTLSConfig(tc))
	if _, err := c.Health(ctx); err != nil {
		t.Fatalf("HTTPS health: %v", err)
	}
	tok, err := c.Login(ctx, "admin", testAdminPassword)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Query(ctx, "RETURN 1 AS x", nil); err != nil {
		t.Fatalf("HTTPS query: %v", err)
	}
	// A client that does not trust the certificate is refused by TLS.
	var e *client.Error
	if _, err := client.NewHTTP("https://" + addr).Health(ctx); err == nil || errors.As(err, &e) {
		t.Errorf("an untrusting client: %v", err)
	}
	// WithTLSConfig keeps WithHTTPClient's other settings.
	hc := &http.Client{Timeout: 30 * time.Second}
	if _, err := client.NewHTTP("https://"+addr, client.WithHTTPClient(hc), client.WithTLSConfig(tc)).Health(ctx); err != nil {
		t.Errorf("WithHTTPClient then WithTLSConfig: %v", err)
	}

	s, err := client.DialTCP(ctx, addr, &client.WireOptions{TLS: tc, AuthMethod: client.WireAuthBearer, Password: tok.AccessToken})
	if err != nil {
		t.Fatalf("wire over TLS with a bearer token: %v", err)
	}
	defer s.Close()
	rows, err := s.Run(ctx, "CALL dbms.security.currentUser()", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() || rows.Row()["username"] != "admin" {
		t.Errorf("wire current user: %v %v", rows.Row(), rows.Err())
	}
	rows.Close()
	_, err = client.DialTCP(ctx, addr, &client.WireOptions{TLS: tc, Username: "admin", Password: "wrong"})
	if !errors.As(err, &e) || e.Code != "08001" {
		t.Errorf("wire with a wrong password: %v", err)
	}
}
