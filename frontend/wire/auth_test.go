package wire

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// authServer serves the wire protocol with authentication on: a real
// auth.Service (cheap hashing) with an admin, a reader "rita" and an
// editor "ed".
type authServer struct {
	t     *testing.T
	db    *engine.DB
	svc   *auth.Service
	audit *auth.AuditLog
	addr  string
}

const adminPassword = "admin-password"

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	db := openDB(t)
	al, err := auth.OpenAuditLog("", auth.AuditOptions{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { al.Close() })
	svc, err := auth.Open(auth.Config{DB: db, Audit: al, Enabled: true, AdminPassword: adminPassword, BootstrapOut: io.Discard,
		Hash: auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	_, addr := startTCP(t, Config{Auth: svc}, db)
	as := &authServer{t: t, db: db, svc: svc, audit: al, addr: addr}
	as.admin("CALL dbms.security.createUser('rita', 'rita-password', ['reader'])")
	as.admin("CALL dbms.security.createUser('ed', 'ed-password', ['editor'])")
	return as
}

// admin runs a statement as the admin, outside the wire protocol.
func (as *authServer) admin(q string) [][]any {
	as.t.Helper()
	p, err := as.svc.Authenticate(context.Background(), auth.Credentials{Username: "admin", Password: adminPassword})
	if err != nil {
		as.t.Fatal(err)
	}
	res, err := as.db.Query(engine.WithPrincipal(context.Background(), p), q, nil)
	if err != nil {
		as.t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	var rows [][]any
	for {
		b, err := res.Next()
		if err != nil {
			as.t.Fatal(err)
		}
		if b == nil {
			return rows
		}
		for r := 0; r < b.Rows(); r++ {
			var row []any
			for _, col := range b.Cols {
				row = append(row, col.Get(b.Row(r)))
			}
			rows = append(rows, row)
		}
	}
}

// hello connects and sends a HELLO with the given auth object (JSON, or
// "" for none).
func (as *authServer) hello(t *testing.T, authJSON string) *tconn {
	t.Helper()
	c := dialRaw(t, as.addr)
	msg := `{"type":"HELLO","version":"1.0"`
	if authJSON != "" {
		msg += `,"auth":` + authJSON
	}
	c.send(msg + "}")
	return c
}

// refused runs a statement that must fail with code, and returns the
// ERROR.
func refused(t *testing.T, c *tconn, q, code string) map[string]any {
	t.Helper()
	r := c.run(q, nil)
	if r.err == nil || r.err["code"] != code {
		t.Fatalf("%s: %+v, want ERROR %s", q, r.err, code)
	}
	return r.err
}

// Refused HELLOs: each gets its ERROR and the connection closes.
func TestAuthHelloRefused(t *testing.T) {
	as := newAuthServer(t)
	for _, tc := range []struct{ name, auth, code, says string }{
		{"no auth", "", engine.CodeAuth, "authentication is required"},
		{"empty auth", `{}`, engine.CodeAuth, "username"},
		{"wrong password", `{"username":"rita","password":"wrong-password"}`, engine.CodeAuth, ""},
		{"unknown user", `{"username":"nobody","password":"whatever-pw"}`, engine.CodeAuth, ""},
		{"unknown method", `{"username":"rita","password":"rita-password","method":"kerberos"}`, engine.CodeAuth, "kerberos"},
		{"bearer without token", `{"method":"bearer"}`, engine.CodeAuth, "access token"},
		{"bad bearer token", `{"method":"bearer","password":"not.a.token"}`, engine.CodeAuth, ""},
		{"bad API key", `{"method":"api_key","password":"qk_nope"}`, engine.CodeAuth, ""},
		{"username not a string", `{"username":1,"password":"x"}`, engine.CodeData, "username"},
		{"password not a string", `{"username":"rita","password":["x"]}`, engine.CodeData, "password"},
		{"method not a string", `{"username":"rita","password":"x","method":{}}`, engine.CodeData, "method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := as.hello(t, tc.auth)
			m := c.expectError(tc.code)
			if !strings.Contains(m["message"].(string), tc.says) {
				t.Errorf("message %q, want it to say %q", m["message"], tc.says)
			}
			if tc.code == engine.CodeAuth && m["category"] != engine.CatAuth {
				t.Errorf("category %v", m["category"])
			}
			c.expectClosed()
		})
	}
}

// Each method authenticates; the session acts as its user: a reader
// reads and is refused a write (42501, the session goes on), an editor
// writes and is refused a schema change.
func TestAuthHelloMethods(t *testing.T) {
	as := newAuthServer(t)
	tokens, _, err := as.svc.Login(context.Background(), "ed", "ed-password", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	key := as.admin("CALL dbms.security.createApiKey('rita', 'test')")[0][1].(string)

	for _, tc := range []struct{ name, auth string }{
		{"basic, no method", `{"username":"rita","password":"rita-password"}`},
		{"basic", `{"username":"rita","password":"rita-password","method":"basic"}`},
		{"api_key", `{"method":"api_key","password":"` + key + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := as.hello(t, tc.auth)
			c.expect("WELCOME")
			c.ok("MATCH (n) RETURN count(n) AS c")
			if m := refused(t, c, "CREATE (:X)", engine.CodePermission); m["category"] != engine.CatPermission {
				t.Errorf("%v", m)
			}
			c.ok("RETURN 1 AS one") // the session goes on
			c.send(`{"type":"BEGIN"}`)
			c.expect("SUCCESS")
			refused(t, c, "CREATE (:X)", engine.CodePermission)
			c.send(`{"type":"ROLLBACK"}`)
			c.expect("SUCCESS")
			// EXPLAIN of a write is a read.
			if r := c.run("EXPLAIN CREATE (:X)", nil); r.explain == nil || r.err != nil {
				t.Errorf("EXPLAIN of a write by a reader: %+v", r)
			}
		})
	}
	c := as.hello(t, `{"method":"bearer","password":"`+tokens.AccessToken+`"}`)
	c.expect("WELCOME")
	c.ok("CREATE (:X)")
	refused(t, c, "CREATE INDEX FOR (n:X) ON (n.p)", engine.CodePermission)
	if r := c.ok("MATCH (n:X) RETURN count(n) AS c"); num(t, r.rows[0]["c"]) != 1 {
		t.Errorf("the editor's write: %v", r.rows)
	}
	c.send(`{"type":"PING"}`)
	c.expect("SUCCESS")
}

// A session learns of changes to its user at its next statement: a role
// granted applies at once; a password changed or an API key revoked ends
// the session with 08001.
func TestAuthSessionRevoked(t *testing.T) {
	as := newAuthServer(t)
	rita := as.hello(t, `{"username":"rita","password":"rita-password"}`)
	rita.expect("WELCOME")
	refused(t, rita, "CREATE (:Y)", engine.CodePermission)
	as.admin("CALL dbms.security.addRole('rita', 'editor')")
	rita.ok("CREATE (:Y)")

	as.admin("CALL dbms.security.setPassword('rita', 'new-rita-password')")
	refused(t, rita, "RETURN 1", engine.CodeAuth)
	rita.expectClosed()

	rows := as.admin("CALL dbms.security.createApiKey('ed', 'k')")
	keyID, key := rows[0][0].(string), rows[0][1].(string)
	ed := as.hello(t, `{"method":"api_key","password":"`+key+`"}`)
	ed.expect("WELCOME")
	ed.ok("RETURN 1 AS x")
	as.admin("CALL dbms.security.revokeApiKey('" + keyID + "')")
	ed.send(`{"type":"BEGIN"}`)
	ed.expectError(engine.CodeAuth)
	ed.expectClosed()

	as.admin("CALL dbms.security.dropUser('ed')")
	gone := as.hello(t, `{"username":"ed","password":"ed-password"}`)
	gone.expectError(engine.CodeAuth)
	gone.expectClosed()
}

// Failed logins hit the limiter: then even the right password gets
// RATE_LIMIT_EXCEEDED with retry_after, and the connection closes.
func TestAuthRateLimited(t *testing.T) {
	as := newAuthServer(t)
	var last map[string]any
	for i := 0; i < 50 && (last == nil || last["code"] != codeRateLimit); i++ {
		c := as.hello(t, `{"username":"rita","password":"wrong-password"}`)
		last = c.recv()
		c.expectClosed()
	}
	if last["code"] != codeRateLimit {
		t.Fatalf("no rate limit after 50 failures: %v", last)
	}
	c := as.hello(t, `{"username":"rita","password":"rita-password"}`)
	m := c.expectError(codeRateLimit)
	if n, err := m["retry_after"].(interface{ Int64() (int64, error) }).Int64(); err != nil || n < 1 {
		t.Errorf("retry_after %v", m["retry_after"])
	}
	c.expectClosed()
	found := false
	for _, r := range as.audit.Recent(100) {
		if r.Category == "authentication" && r.Outcome != engine.OutcomeSuccess && strings.HasPrefix(r.Address, "127.0.0.1") {
			found = true
		}
	}
	if !found {
		t.Error("no failed authentication with the client's address in the audit trail")
	}
}

// With authentication off, auth is not looked at beyond its shape.
func TestAuthOffIgnoresCredentials(t *testing.T) {
	_, addr := startTCP(t, Config{}, openDB(t))
	c := dialRaw(t, addr)
	c.send(`{"type":"HELLO","version":"1.0","auth":{"username":"x","password":"y","method":"kerberos"}}`)
	c.expect("WELCOME")
	c.ok("CREATE (:Z)")
}
