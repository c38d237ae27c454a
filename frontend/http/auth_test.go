package http

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	nethttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// authFixture is a server with authentication on over a real engine and
// a real auth.Service (cheap hashing): the admin, a reader "rita" and an
// editor "ed".
type authFixture struct {
	t    *testing.T
	db   *engine.DB
	svc  *auth.Service
	base string
}

const testAdminPassword = "admin-secret-pw"

func newAuthFixture(t *testing.T, cfg Config, mod ...func(*auth.Config)) *authFixture {
	t.Helper()
	db := openDB(t, engine.Options{})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	trail, err := auth.OpenAuditLog("", auth.AuditOptions{Logger: quiet}) // in memory
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.RegisterAuditProcedures(db, trail); err != nil {
		t.Fatal(err)
	}
	acfg := auth.Config{DB: db, Enabled: true, AdminPassword: testAdminPassword, BootstrapOut: io.Discard,
		Hash: auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}, Logger: quiet, Audit: trail}
	for _, m := range mod {
		m(&acfg)
	}
	svc, err := auth.Open(acfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		trail.Close()
	})
	cfg.Auth = svc
	f := &authFixture{t: t, db: db, svc: svc}
	f.base = startServer(t, cfg, db)
	f.admin("CALL dbms.security.createUser('rita', 'rita-password', ['reader'])")
	f.admin("CALL dbms.security.createUser('ed', 'ed-password', ['editor'])")
	return f
}

// admin runs a statement as the admin, outside HTTP, and returns the
// first row's values.
func (f *authFixture) admin(q string) []any {
	f.t.Helper()
	p, err := f.svc.Authenticate(context.Background(), auth.Credentials{Username: "admin", Password: testAdminPassword})
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := f.db.Query(engine.WithPrincipal(context.Background(), p), q, nil)
	if err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	b, err := res.Next()
	if err != nil {
		f.t.Fatal(err)
	}
	if b == nil || b.Rows() == 0 {
		return nil
	}
	var row []any
	for _, col := range b.Cols {
		row = append(row, col.Get(b.Row(0)))
	}
	return row
}

// answer is a decoded response.
type answer struct {
	status int
	body   map[string]any
	raw    string
	header nethttp.Header
}

// errorCode is the body's error.code, "" when there is none.
func (a answer) errorCode() string {
	e, _ := a.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// send sends a request with the given headers ("Name: value").
func (f *authFixture) send(method, path, body string, headers ...string) answer {
	f.t.Helper()
	req, err := nethttp.NewRequest(method, f.base+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, raw: string(raw), header: resp.Header}
	if len(raw) > 0 && raw[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&a.body); err != nil {
			f.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return a
}

func basic(user, pw string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))
}

func bearer(tok string) string { return "Authorization: Bearer " + tok }

// login gets tokens over HTTP.
func (f *authFixture) login(user, pw string) (access, refresh string) {
	f.t.Helper()
	a := f.send("POST", "/api/v1/auth/token", jsonString(map[string]string{"username": user, "password": pw}))
	if a.status != 200 {
		f.t.Fatalf("login %s: %d %s", user, a.status, a.raw)
	}
	access, _ = a.body["access_token"].(string)
	refresh, _ = a.body["refresh_token"].(string)
	if access == "" || refresh == "" || a.body["token_type"] != "Bearer" || a.body["expires_in"] == nil {
		f.t.Fatalf("login %s: %s", user, a.raw)
	}
	if a.header.Get("Cache-Control") != "no-store" {
		f.t.Errorf("token answer's Cache-Control %q", a.header.Get("Cache-Control"))
	}
	return access, refresh
}

// want401 checks an AUTH_FAILED answer with its challenge.
func want401(t *testing.T, what string, a answer) {
	t.Helper()
	e, _ := a.body["error"].(map[string]any)
	if a.status != 401 || a.errorCode() != engine.CodeAuth || e["category"] != engine.CatAuth ||
		a.header.Get("WWW-Authenticate") != `Bearer realm="quiver"` {
		t.Errorf("%s: want 401 08001 AUTH_FAILED with WWW-Authenticate, got %d %q %s", what, a.status, a.header.Get("WWW-Authenticate"), a.raw)
	}
}

func TestAuthEveryRouteNeedsCredentials(t *testing.T) {
	f := newAuthFixture(t, Config{Metrics: func(w io.Writer) { io.WriteString(w, "x 1\n") }})
	open := map[string]int{
		"/api/v1/health":       200,
		"/api/v1/auth/token":   400, // no username: the body is the credential
		"/api/v1/auth/refresh": 400,
		"/api/v1/stream":       404, // no stream configured: the WebSocket authenticates itself
		openAPIPath:            200, // the API's description, not its data
	}
	paths := []string{"/api/v1/transaction/abc/query", "/api/v1/transaction/abc/commit", "/api/v1/transaction/abc/rollback", "/api/v1/nothing-here"}
	for p := range routes {
		paths = append(paths, p)
	}
	for _, p := range paths {
		method := "POST"
		if r, ok := lookupRoute(p); ok {
			method = r.method
		}
		body := ""
		if method == "POST" {
			body = `{"query":"RETURN 1"}`
		}
		a := f.send(method, p, body)
		if want, ok := open[p]; ok {
			if a.status != want {
				t.Errorf("%s %s without credentials: %d %s, want %d", method, p, a.status, a.raw, want)
			}
			continue
		}
		want401(t, method+" "+p+" without credentials", a)
		// A user name per path: the login limiter refuses a name after a
		// few failures.
		want401(t, method+" "+p+" with a wrong password", f.send(method, p, body, basic("ghost"+p, "wrong")))
		want401(t, method+" "+p+" with a forged token", f.send(method, p, body, bearer("forged.token.here")))
	}
	// A CORS preflight carries no credentials and is answered.
	a := f.send("OPTIONS", "/api/v1/query", "", "Origin: https://app.example.com", "Access-Control-Request-Method: POST")
	if a.status != 204 || a.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("preflight: %d %v", a.status, a.header)
	}
	// With authentication on, any origin is echoed on a real request too.
	a = f.send("POST", "/api/v1/query", `{"query":"RETURN 1"}`, "Origin: https://app.example.com")
	if a.status != 401 || a.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("cross-origin request: %d %v", a.status, a.header)
	}
}

func TestAuthSchemes(t *testing.T) {
	f := newAuthFixture(t, Config{})
	const q = `{"query":"RETURN 41 + 1 AS x"}`
	ok := func(what string, a answer) {
		t.Helper()
		if a.status != 200 || !strings.Contains(a.raw, "42") {
			t.Errorf("%s: %d %s", what, a.status, a.raw)
		}
	}
	access, _ := f.login("rita", "rita-password")
	ok("bearer", f.send("POST", "/api/v1/query", q, bearer(access)))
	ok("basic", f.send("POST", "/api/v1/query", q, basic("rita", "rita-password")))
	row := f.admin("CALL dbms.security.createApiKey('ed', 'ci')")
	key, _ := row[1].(string)
	if key == "" {
		t.Fatalf("createApiKey: %v", row)
	}
	ok("API key", f.send("POST", "/api/v1/query", q, "X-API-Key: "+key))
	want401(t, "a wrong API key", f.send("POST", "/api/v1/query", q, "X-API-Key: "+key+"x"))
	want401(t, "an unknown scheme", f.send("POST", "/api/v1/query", q, "Authorization: Digest abc"))
	// A revoked key stops working.
	f.admin("CALL dbms.security.revokeApiKey('" + row[0].(string) + "')")
	want401(t, "a revoked API key", f.send("POST", "/api/v1/query", q, "X-API-Key: "+key))

	// A failed login: 401, and the password is not echoed.
	a := f.send("POST", "/api/v1/auth/token", `{"username":"rita","password":"not-her-password"}`)
	want401(t, "a wrong password's login", a)
	if strings.Contains(a.raw, "not-her-password") {
		t.Errorf("the answer echoes the password: %s", a.raw)
	}
}

func TestAuthTokenRequestErrors(t *testing.T) {
	f := newAuthFixture(t, Config{})
	for _, c := range []struct{ path, body string }{
		{"/api/v1/auth/token", `{}`},
		{"/api/v1/auth/token", `{"username":"rita"}`},
		{"/api/v1/auth/token", `{"username":"rita","password":7}`},
		{"/api/v1/auth/token", `{"username":"","password":"x"}`},
		{"/api/v1/auth/token", `[1,2]`},
		{"/api/v1/auth/token", `{"username":`},
		{"/api/v1/auth/refresh", `{}`},
		{"/api/v1/auth/refresh", `{"refresh_token":null}`},
		{"/api/v1/auth/refresh", `{"refresh_token":["x"]}`},
	} {
		a := f.send("POST", c.path, c.body)
		if a.status != 400 || a.errorCode() != engine.CodeData {
			t.Errorf("%s %s: %d %s, want 400 %s", c.path, c.body, a.status, a.raw, engine.CodeData)
		}
	}
	// A body that is not declared JSON gets 415, as on every endpoint.
	req, _ := nethttp.NewRequest("POST", f.base+"/api/v1/auth/token", strings.NewReader(`{"username":"a","password":"b"}`))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Errorf("text/plain login: %d", resp.StatusCode)
	}
	want401(t, "an unknown refresh token", f.send("POST", "/api/v1/auth/refresh", `{"refresh_token":"nonsense"}`))
}

func TestAuthPrivileges(t *testing.T) {
	f := newAuthFixture(t, Config{Metrics: func(w io.Writer) { io.WriteString(w, "x 1\n") }})
	rita := basic("rita", "rita-password")
	ed := basic("ed", "ed-password")
	const write = `{"query":"CREATE (:P {n: 1})"}`
	a := f.send("POST", "/api/v1/query", write, rita)
	if a.status != 403 || a.errorCode() != engine.CodePermission {
		t.Errorf("a reader's write: %d %s", a.status, a.raw)
	}
	for _, c := range []struct{ path, body string }{
		{"/api/v1/query/explain", write},
		{"/api/v1/query", `{"query":"EXPLAIN CREATE (:P {n: 1})"}`},
		{"/api/v1/query", `{"query":"CREATE (:P {n: 1})","explain":true}`},
	} {
		if a := f.send("POST", c.path, c.body, rita); a.status != 200 || a.body["plan"] == nil {
			t.Errorf("a reader's EXPLAIN of a write (%s %s): %d %s", c.path, c.body, a.status, a.raw)
		}
	}
	if a := f.send("POST", "/api/v1/query/profile", write, rita); a.status != 403 {
		t.Errorf("a reader's PROFILE of a write: %d %s", a.status, a.raw)
	}
	if a := f.send("POST", "/api/v1/query", write, ed); a.status != 200 {
		t.Errorf("an editor's write: %d %s", a.status, a.raw)
	}
	// Batches: every statement runs as the user.
	if a := f.send("POST", "/api/v1/batch", batchBody(true, "MATCH (p:P) RETURN count(p) AS n", "CREATE (:P)"), rita); a.status != 403 || a.errorCode() != engine.CodePermission {
		t.Errorf("a reader's transactional batch with a write: %d %s", a.status, a.raw)
	}
	a = f.send("POST", "/api/v1/batch", batchBody(false, "MATCH (p:P) RETURN count(p) AS n", "CREATE (:P)"), rita)
	if es := entries(t, a.body); a.status != 200 || len(es) != 2 || es[0]["status"] != "success" || es[1]["status"] != "error" {
		t.Errorf("a reader's auto-commit batch with a write: %d %s", a.status, a.raw)
	}
	// The write was not applied.
	if a := f.send("POST", "/api/v1/query", `{"query":"MATCH (p:P) RETURN count(p) AS n"}`, rita); !strings.Contains(a.raw, `"data":[{"n":1}]`) {
		t.Errorf("count after the refused writes: %s", a.raw)
	}
	// Status and metrics need the read privilege, which every built-in
	// role grants (TestAuthStatusNeedsRead covers a principal without).
	for _, p := range []string{"/api/v1/status", "/api/v1/metrics"} {
		if a := f.send("GET", p, "", rita); a.status != 200 {
			t.Errorf("a reader's %s: %d %s", p, a.status, a.raw)
		}
	}
	// An admin statement needs admin.
	if a := f.send("POST", "/api/v1/query", `{"query":"CALL dbms.security.listUsers()"}`, ed); a.status != 403 {
		t.Errorf("an editor's listUsers: %d %s", a.status, a.raw)
	}
	if a := f.send("POST", "/api/v1/query", `{"query":"CALL dbms.security.listUsers()"}`, basic("admin", testAdminPassword)); a.status != 200 {
		t.Errorf("the admin's listUsers: %d %s", a.status, a.raw)
	}
}

func TestAuthTransactionOwner(t *testing.T) {
	f := newAuthFixture(t, Config{})
	ed := basic("ed", "ed-password")
	rita := basic("rita", "rita-password")
	a := f.send("POST", "/api/v1/transaction/begin", "", ed)
	id, _ := a.body["transaction_id"].(string)
	if a.status != 200 || id == "" {
		t.Fatalf("begin: %d %s", a.status, a.raw)
	}
	if tx, err := f.db.Transaction(id); err != nil || tx.Owner() != "ed" {
		t.Fatalf("the transaction's owner: %v %v", tx, err)
	}
	if a := f.send("POST", "/api/v1/transaction/"+id+"/query", `{"query":"CREATE (:T)"}`, ed); a.status != 200 {
		t.Fatalf("the owner's statement: %d %s", a.status, a.raw)
	}
	const unknown = "00000000000000000000000000000000"
	for _, c := range []struct{ action, body string }{
		{"query", `{"query":"MATCH (t:T) RETURN count(t) AS n"}`},
		{"rollback", ""},
		{"commit", ""},
	} {
		other := f.send("POST", "/api/v1/transaction/"+id+"/"+c.action, c.body, rita)
		none := f.send("POST", "/api/v1/transaction/"+unknown+"/"+c.action, c.body, rita)
		if other.status != 404 || other.status != none.status || strings.ReplaceAll(other.raw, id, "ID") != strings.ReplaceAll(none.raw, unknown, "ID") {
			t.Errorf("%s of another user's transaction:\n%d %s\nunknown id:\n%d %s", c.action, other.status, other.raw, none.status, none.raw)
		}
	}
	// The owner's transaction is untouched by the attempts.
	if a := f.send("POST", "/api/v1/transaction/"+id+"/commit", "", ed); a.status != 200 || a.body["status"] != "committed" {
		t.Fatalf("the owner's commit: %d %s", a.status, a.raw)
	}
	// Once it ended, its owner learns how; another user still learns
	// nothing, not even that it existed.
	if a := f.send("POST", "/api/v1/transaction/"+id+"/commit", "", ed); a.status != 404 || !strings.Contains(a.raw, "it was committed") {
		t.Errorf("the owner's second commit: %d %s", a.status, a.raw)
	}
	other := f.send("POST", "/api/v1/transaction/"+id+"/commit", "", rita)
	none := f.send("POST", "/api/v1/transaction/"+unknown+"/commit", "", rita)
	if other.status != 404 || strings.ReplaceAll(other.raw, id, "ID") != strings.ReplaceAll(none.raw, unknown, "ID") {
		t.Errorf("commit of another user's ended transaction:\n%d %s\nunknown id:\n%d %s", other.status, other.raw, none.status, none.raw)
	}
}

func TestAuthRefreshAndLogout(t *testing.T) {
	f := newAuthFixture(t, Config{})
	const q = `{"query":"RETURN 1 AS x"}`
	access, refresh := f.login("rita", "rita-password")
	a := f.send("POST", "/api/v1/auth/refresh", jsonString(map[string]string{"refresh_token": refresh}))
	access2, _ := a.body["access_token"].(string)
	refresh2, _ := a.body["refresh_token"].(string)
	if a.status != 200 || access2 == "" || refresh2 == "" || refresh2 == refresh || a.body["token_type"] != "Bearer" {
		t.Fatalf("refresh: %d %s", a.status, a.raw)
	}
	if a := f.send("POST", "/api/v1/query", q, bearer(access2)); a.status != 200 {
		t.Errorf("the refreshed token: %d %s", a.status, a.raw)
	}
	// Logout ends the session: both access tokens and the refresh token
	// stop working.
	a = f.send("POST", "/api/v1/auth/logout", "", bearer(access2))
	if a.status != 200 || a.body["logged_out"] != true {
		t.Fatalf("logout: %d %s", a.status, a.raw)
	}
	want401(t, "the access token after logout", f.send("POST", "/api/v1/query", q, bearer(access2)))
	want401(t, "the first access token after logout", f.send("POST", "/api/v1/query", q, bearer(access)))
	want401(t, "the refresh token after logout", f.send("POST", "/api/v1/auth/refresh", jsonString(map[string]string{"refresh_token": refresh2})))

	// Replaying a used refresh token fails and revokes its session.
	access, refresh = f.login("rita", "rita-password")
	if a := f.send("POST", "/api/v1/auth/refresh", jsonString(map[string]string{"refresh_token": refresh})); a.status != 200 {
		t.Fatalf("refresh: %d %s", a.status, a.raw)
	}
	want401(t, "a used refresh token", f.send("POST", "/api/v1/auth/refresh", jsonString(map[string]string{"refresh_token": refresh})))
	want401(t, "the session's access token after a replay", f.send("POST", "/api/v1/query", q, bearer(access)))

	// Logout needs a bearer token: another scheme has no session.
	a = f.send("POST", "/api/v1/auth/logout", "", basic("rita", "rita-password"))
	if a.status != 400 || a.errorCode() != "22023" {
		t.Errorf("logout with Basic: %d %s", a.status, a.raw)
	}
	want401(t, "logout without credentials", f.send("POST", "/api/v1/auth/logout", ""))
}

func TestAuthLoginLimiter(t *testing.T) {
	f := newAuthFixture(t, Config{})
	body := jsonString(map[string]string{"username": "ed", "password": "wrong"})
	var a answer
	for i := 0; i < 10; i++ {
		if a = f.send("POST", "/api/v1/auth/token", body); a.status == 429 {
			break
		}
		want401(t, "a wrong password", a)
	}
	if a.status != 429 || a.errorCode() != codeRateLimit || a.header.Get("Retry-After") == "" {
		t.Fatalf("the login limiter: %d %v %s", a.status, a.header, a.raw)
	}
	e, _ := a.body["error"].(map[string]any)
	if ra, _ := e["retry_after"].(json.Number); ra.String() != a.header.Get("Retry-After") {
		t.Errorf("retry_after %v, Retry-After %q", e["retry_after"], a.header.Get("Retry-After"))
	}
	// Even the right password waits, over HTTP Basic too.
	if a := f.send("POST", "/api/v1/auth/token", jsonString(map[string]string{"username": "ed", "password": "ed-password"})); a.status != 429 {
		t.Errorf("the right password while limited: %d %s", a.status, a.raw)
	}
	if a := f.send("POST", "/api/v1/query", `{"query":"RETURN 1"}`, basic("ed", "ed-password")); a.status != 429 || a.header.Get("Retry-After") == "" {
		t.Errorf("Basic while limited: %d %s", a.status, a.raw)
	}
}

// sendFrom is send from a client bound to the loopback address ip (any
// of 127.0.0.0/8 reaches the server on 127.0.0.1).
func (f *authFixture) sendFrom(ip, method, path, body string, headers ...string) answer {
	f.t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &nethttp.Transport{DialContext: d.DialContext}
	defer tr.CloseIdleConnections()
	saved := nethttp.DefaultClient
	nethttp.DefaultClient = &nethttp.Client{Transport: contractCheck{base: tr}}
	defer func() { nethttp.DefaultClient = saved }()
	return f.send(method, path, body, headers...)
}

// Wrong passwords for the admin from several addresses lock those
// addresses out, not the admin: the right password from an address that
// has not failed logs in, and the audit trail shows the attack.
func TestAuthLockoutFromOtherAddresses(t *testing.T) {
	// The Service's clock stands still, so no lock ends while the test
	// runs, however slowly.
	now := time.Now()
	f := newAuthFixture(t, Config{}, func(c *auth.Config) { c.Now = func() time.Time { return now } })
	wrong := jsonString(map[string]string{"username": "admin", "password": "wrong"})
	right := jsonString(map[string]string{"username": "admin", "password": testAdminPassword})
	attackers := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}
	for _, ip := range attackers {
		limited := false
		for i := 0; i < 20 && !limited; i++ {
			a := f.sendFrom(ip, "POST", "/api/v1/auth/token", wrong)
			if limited = a.status == 429; !limited {
				want401(t, "a wrong password from "+ip, a)
			}
		}
		if !limited {
			t.Fatalf("%s was never limited", ip)
		}
		if a := f.sendFrom(ip, "POST", "/api/v1/auth/token", right); a.status != 429 || a.header.Get("Retry-After") == "" {
			t.Errorf("the right password from the failing %s: %d %s", ip, a.status, a.raw)
		}
	}
	a := f.sendFrom("127.0.0.5", "POST", "/api/v1/auth/token", right)
	if a.status != 200 {
		t.Fatalf("the right password from an address that never failed: %d %s", a.status, a.raw)
	}
	access, _ := a.body["access_token"].(string)
	if a := f.sendFrom("127.0.0.6", "POST", "/api/v1/query", `{"query":"RETURN 1"}`, basic("admin", testAdminPassword)); a.status != 200 {
		t.Errorf("Basic from an address that never failed: %d %s", a.status, a.raw)
	}
	a = f.send("POST", "/api/v1/query", `{"query":"CALL audit.get_recent_events(1000)"}`, bearer(access))
	if a.status != 200 {
		t.Fatalf("audit: %d %s", a.status, a.raw)
	}
	seen := map[string]int{}
	for _, r := range a.body["data"].([]any) {
		e := r.(map[string]any)
		host := fmt.Sprint(e["address"]) // HTTP's: the host, without the port
		seen[fmt.Sprint(e["action"], " ", host)]++
		if e["action"] == "lockout" && !strings.HasPrefix(fmt.Sprint(e["detail"]), "user admin from "+host+":") {
			t.Errorf("lockout event %v", e)
		}
	}
	for _, ip := range attackers {
		if seen["login "+ip] == 0 || seen["lockout "+ip] != 1 || seen["rate_limited "+ip] == 0 {
			t.Errorf("the trail of %s: %v", ip, seen)
		}
	}
}

func TestAuthRateLimitPerUser(t *testing.T) {
	f := newAuthFixture(t, Config{RateLimit: 100})
	remaining := func(a answer) string { return a.header.Get("X-RateLimit-Remaining") }
	ed := basic("ed", "ed-password")
	for i := 0; i < 3; i++ {
		f.send("POST", "/api/v1/query", `{"query":"RETURN 1"}`, ed)
	}
	if a := f.send("POST", "/api/v1/query", `{"query":"RETURN 1"}`, ed); remaining(a) != "96" {
		t.Errorf("ed's fourth request: remaining %q", remaining(a))
	}
	// rita, from the same address, has her own window.
	if a := f.send("POST", "/api/v1/query", `{"query":"RETURN 1"}`, basic("rita", "rita-password")); remaining(a) != "99" {
		t.Errorf("rita's first request: remaining %q", remaining(a))
	}
	// Unauthenticated requests count against the address: a window of
	// its own, untouched by the users'.
	if a := f.send("GET", "/api/v1/health", ""); remaining(a) != "100" {
		t.Errorf("the address's window: remaining %q", remaining(a))
	}
}

func TestAuthOffTokenEndpoints(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	for _, p := range []string{"/api/v1/auth/token", "/api/v1/auth/refresh", "/api/v1/auth/logout"} {
		status, out, _ := call(t, "POST", base+p, `{"username":"a","password":"b","refresh_token":"c"}`)
		e, _ := out["error"].(map[string]any)
		if status != 400 || e["code"] != engine.CodeNotSupported || e["category"] != "FEATURE_NOT_SUPPORTED" ||
			!strings.Contains(e["message"].(string), "--auth-enabled") {
			t.Errorf("%s with authentication off: %d %v", p, status, out)
		}
	}
	// Everything else works without credentials.
	if status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"RETURN 1 AS x"}`); status != 200 {
		t.Errorf("query with authentication off: %d %v", status, out)
	}
}

// TestAuthStatusNeedsRead runs the status and metrics handlers for a
// principal without the read privilege (no built-in role is one, so the
// request is made by hand).
func TestAuthStatusNeedsRead(t *testing.T) {
	f := newAuthFixture(t, Config{})
	s := New(Config{Auth: f.svc, Metrics: func(w io.Writer) { io.WriteString(w, "x 1\n") }}, f.db)
	for _, h := range []func(*fasthttp.RequestCtx){s.handleStatus, s.handleMetrics} {
		for _, c := range []struct {
			priv engine.Privilege
			want int
		}{{0, 403}, {engine.PrivWrite, 403}, {engine.PrivRead, 200}} {
			var ctx fasthttp.RequestCtx
			ctx.SetUserValue(principalKey{}, &engine.Principal{Name: "custom", Privileges: c.priv})
			h(&ctx)
			if got := ctx.Response.StatusCode(); got != c.want {
				t.Errorf("privileges %v: %d %s, want %d", c.priv, got, ctx.Response.Body(), c.want)
			}
			if c.want == 403 && !bytes.Contains(ctx.Response.Body(), []byte(engine.CodePermission)) {
				t.Errorf("privileges %v: %s", c.priv, ctx.Response.Body())
			}
		}
	}
}
