package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// The auth matrix: every way in × every kind of caller, each cell
// asserting the exact answer (status and ISO code) and the exact audit
// events it left (docs/security.md). Columns are the kinds of caller;
// each comes from a source address of its own (127.0.0.x), so the login
// limiter, which counts failures per address, never mixes columns.

type column int

const (
	colNone column = iota
	colMalformed
	colWrongPassword
	colExpired
	colRevokedKey
	colReader
	colEditor
	colAdmin
	numColumns
)

var columnNames = [numColumns]string{"no credentials", "malformed", "wrong password", "expired token", "revoked key", "reader", "editor", "admin"}

func (c column) String() string { return columnNames[c] }

// privileges of the role columns, as docs/security.md's role table says.
const (
	needRead = 1 << iota
	needWrite
	needAdmin
)

func (c column) holds(need int) bool {
	switch c {
	case colReader:
		return need&^needRead == 0
	case colEditor:
		return need&^(needRead|needWrite) == 0
	case colAdmin:
		return true
	}
	return false
}

// auditKey is what a cell asserts of an audit event.
type auditKey struct{ category, action, outcome string }

func (a auditKey) String() string { return a.category + "/" + a.action + "/" + a.outcome }

var (
	auditAuthFailed = auditKey{"authentication", "authenticate", "failure"}
	auditDenied     = auditKey{"authorization", "permission_denied", "denied"}
)

// securedServer is a real `quiver serve --auth-enabled` on loopback.
type securedServer struct {
	cmd                    *exec.Cmd
	addr, metrics, dataDir string
	adminPassword          string
	readerTok, editorTok   string
	adminTok               string
	revokedKey, expiredTok string
	lastEvent              int64
	cells                  int // cells checked, for the log
	http                   [numColumns]*http.Client
	dialer                 [numColumns]*net.Dialer
	// wrongUsers are users the wrong-password cells try, one per cell,
	// so the per-user login limiter never locks a cell out.
	wrongUsers []string
	wrongNext  int
}

const matrixAdminPassword = "matrix-admin-pass-1"

func startSecured(t *testing.T, bin, dataDir string, extra ...string) *securedServer {
	t.Helper()
	// The signing key is a system record; a data directory from before
	// kept it in auth/token.key, which the server adopts. Planting one
	// lets forgeExpired sign with the server's key.
	keyFile := filepath.Join(dataDir, "auth", "token.key")
	if _, err := os.Stat(keyFile); errors.Is(err, fs.ErrNotExist) {
		key := make([]byte, 32)
		_, _ = rand.Read(key)
		if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keyFile, key, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"--listen", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "0", "--auth-enabled"}, extra...)
	srv := startServeWith(t, bin, []string{"QUIVER_METRICS_PORT=0", "QUIVER_ADMIN_PASSWORD=" + matrixAdminPassword}, args...)
	s := &securedServer{cmd: srv.cmd, addr: srv.addr, metrics: srv.metrics, dataDir: dataDir, adminPassword: matrixAdminPassword}
	if s.metrics == "" {
		t.Fatal("no metrics listener address in the log")
	}
	for c := column(0); c < numColumns; c++ {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(20+c))}, Timeout: 10 * time.Second}
		s.dialer[c] = d
		s.http[c] = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	}
	return s
}

// answer is an HTTP reply: status, the error's code, and the JSON body.
type answer struct {
	status int
	code   string
	body   map[string]any
	header http.Header
}

func (s *securedServer) do(t *testing.T, c column, method, url string, hdr map[string]string, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := s.http[c].Do(req)
	if err != nil {
		t.Fatalf("%s %s as %s: %v", method, url, c, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	if json.Unmarshal(raw, &a.body) == nil {
		if e, ok := a.body["error"].(map[string]any); ok {
			a.code, _ = e["code"].(string)
		}
	}
	return a
}

func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// asAdmin runs a statement as the admin (bearer token) and returns its rows.
func (s *securedServer) asAdmin(t *testing.T, query string, params map[string]any) []map[string]any {
	t.Helper()
	a := s.do(t, colAdmin, "POST", "http://"+s.addr+"/api/v1/query",
		map[string]string{"Authorization": "Bearer " + s.adminTok}, map[string]any{"query": query, "parameters": params})
	if a.status != 200 {
		t.Fatalf("as admin: %s: %d %v", query, a.status, a.body)
	}
	var rows []map[string]any
	data, _ := a.body["data"].([]any)
	for _, r := range data {
		m, _ := r.(map[string]any)
		rows = append(rows, m)
	}
	return rows
}

// login gets a token pair from POST /api/v1/auth/token.
func (s *securedServer) login(t *testing.T, user, password string) (access, refresh string) {
	t.Helper()
	a := s.do(t, colAdmin, "POST", "http://"+s.addr+"/api/v1/auth/token", nil, map[string]any{"username": user, "password": password})
	if a.status != 200 {
		t.Fatalf("login %s: %d %v", user, a.status, a.body)
	}
	access, _ = a.body["access_token"].(string)
	refresh, _ = a.body["refresh_token"].(string)
	if access == "" || refresh == "" || a.body["token_type"] != "Bearer" {
		t.Fatalf("login %s: %v", user, a.body)
	}
	return access, refresh
}

// newEvents returns the audit events appended since the last call, oldest
// first, read as the admin (reading them is not itself an event).
func (s *securedServer) newEvents(t *testing.T) []auditKey {
	t.Helper()
	rows := s.asAdmin(t, "CALL audit.get_recent_events(200) YIELD event_id, category, action, outcome RETURN event_id, category, action, outcome", nil)
	var out []auditKey
	last := s.lastEvent
	for i := len(rows) - 1; i >= 0; i-- {
		id := int64(rows[i]["event_id"].(float64))
		if id <= s.lastEvent {
			continue
		}
		out = append(out, auditKey{fmt.Sprint(rows[i]["category"]), fmt.Sprint(rows[i]["action"]), fmt.Sprint(rows[i]["outcome"])})
		if id > last {
			last = id
		}
	}
	s.lastEvent = last
	return out
}

// forgeExpired re-signs a real access token with the server's own key
// (read from the data directory) with an expiry in the past: a token
// that is right in every way but time.
func (s *securedServer) forgeExpired(t *testing.T, token string) string {
	t.Helper()
	key, err := os.ReadFile(filepath.Join(s.dataDir, "auth", "token.key"))
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims["iat"] = now.Add(-2 * time.Hour).Unix()
	claims["exp"] = now.Add(-time.Hour).Unix()
	forged, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return forged
}

// headers are the HTTP credentials of a column.
func (s *securedServer) headers(t *testing.T, c column) map[string]string {
	t.Helper()
	switch c {
	case colNone:
		return nil
	case colMalformed:
		return map[string]string{"Authorization": "Basic %%%-not-base64"}
	case colWrongPassword:
		if s.wrongNext == len(s.wrongUsers) {
			t.Fatal("the matrix needs more wrong-password users")
		}
		u := s.wrongUsers[s.wrongNext]
		s.wrongNext++
		return map[string]string{"Authorization": basic(u, "not-the-password")}
	case colExpired:
		return map[string]string{"Authorization": "Bearer " + s.expiredTok}
	case colRevokedKey:
		return map[string]string{"X-API-Key": s.revokedKey}
	case colReader:
		return map[string]string{"Authorization": "Bearer " + s.readerTok}
	case colEditor:
		return map[string]string{"Authorization": "Bearer " + s.editorTok}
	}
	return map[string]string{"Authorization": "Bearer " + s.adminTok}
}

// setUp creates the matrix's users and credentials: a reader, an editor,
// the bootstrap admin, users for the wrong-password cells, an expired
// token and a revoked API key.
func (s *securedServer) setUp(t *testing.T) {
	t.Helper()
	s.adminTok, _ = s.login(t, "admin", s.adminPassword)
	for _, u := range [][2]string{{"rita", "reader"}, {"eddie", "editor"}} {
		s.asAdmin(t, "CALL dbms.security.createUser($u, $p, [$r])", map[string]any{"u": u[0], "p": u[0] + "-password", "r": u[1]})
	}
	for i := 0; i < 32; i++ {
		u := fmt.Sprintf("wrong%02d", i)
		s.asAdmin(t, "CALL dbms.security.createUser($u, 'right-password', ['admin'])", map[string]any{"u": u})
		s.wrongUsers = append(s.wrongUsers, u)
	}
	s.readerTok, _ = s.login(t, "rita", "rita-password")
	s.editorTok, _ = s.login(t, "eddie", "eddie-password")
	s.expiredTok = s.forgeExpired(t, s.adminTok)
	rows := s.asAdmin(t, "CALL dbms.security.createApiKey('admin', 'matrix')", nil)
	if len(rows) != 1 {
		t.Fatalf("createApiKey: %v", rows)
	}
	s.revokedKey = rows[0]["api_key"].(string)
	// The key works before it is revoked, so the cells test revocation.
	if a := s.do(t, colAdmin, "GET", "http://"+s.addr+"/api/v1/status", map[string]string{"X-API-Key": s.revokedKey}, nil); a.status != 200 {
		t.Fatalf("a fresh API key: %d %v", a.status, a.body)
	}
	s.asAdmin(t, "CALL dbms.security.revokeApiKey($k)", map[string]any{"k": rows[0]["key_id"]})
	s.newEvents(t) // the set-up's own events
}

// expect is a cell's expected answer and audit events.
type expect struct {
	status int
	code   string
	audit  []auditKey
}

// httpEndpoint is one row of the HTTP part: a request, the privileges it
// needs (0: none, it is open), and the events a successful run leaves.
type httpEndpoint struct {
	name         string
	method, path string
	body         func(c column) any
	need         int
	okAudit      []auditKey
	okStatus     int
}

func (e httpEndpoint) expect(c column) expect {
	switch {
	case e.need == 0:
		return expect{status: e.ok()}
	case c < colReader:
		return expect{status: 401, code: "08001", audit: []auditKey{auditAuthFailed}}
	case c.holds(e.need):
		return expect{status: e.ok(), audit: e.okAudit}
	}
	return expect{status: 403, code: "42501", audit: []auditKey{auditDenied}}
}

func (e httpEndpoint) ok() int {
	if e.okStatus != 0 {
		return e.okStatus
	}
	return 200
}

func query(q string) func(column) any {
	return func(column) any { return map[string]any{"query": q} }
}

func TestAuthMatrix(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	s := startSecured(t, bin, filepath.Join(dir, "data"))
	s.setUp(t)
	base := "http://" + s.addr

	// Each role column's own transactions (begun in the matrix), and one
	// of the admin's for the columns that never get past authentication.
	txOf := map[column]string{}
	adminTx := s.do(t, colAdmin, "POST", base+"/api/v1/transaction/begin", s.headers(t, colAdmin), nil)
	if adminTx.status != 200 {
		t.Fatalf("begin: %v", adminTx.body)
	}
	s.newEvents(t)
	txPath := func(action string) func(c column) string {
		return func(c column) string {
			id, ok := txOf[c]
			if !ok {
				id = adminTx.body["transaction_id"].(string)
			}
			return "/api/v1/transaction/" + id + "/" + action
		}
	}
	userN := 0
	endpoints := []struct {
		httpEndpoint
		pathOf func(column) string
		after  func(c column, a answer)
	}{
		{httpEndpoint: httpEndpoint{name: "health", method: "GET", path: "/api/v1/health"}},
		{httpEndpoint: httpEndpoint{name: "query read", method: "POST", path: "/api/v1/query", body: query("MATCH (n) RETURN count(n) AS c"), need: needRead}},
		{httpEndpoint: httpEndpoint{name: "query write", method: "POST", path: "/api/v1/query", body: query("CREATE (:Matrix)"), need: needRead | needWrite}},
		{httpEndpoint: httpEndpoint{name: "query schema", method: "POST", path: "/api/v1/query", body: query("CREATE INDEX matrix_k FOR (n:Matrix) ON (n.k)"), need: needAdmin,
			okAudit: []auditKey{{"schema", "create_index", "success"}}}},
		{httpEndpoint: httpEndpoint{name: "query CHECKPOINT", method: "POST", path: "/api/v1/query", body: query("CHECKPOINT"), need: needAdmin,
			okAudit: []auditKey{{"admin", "checkpoint", "success"}}}},
		{httpEndpoint: httpEndpoint{name: "query SET", method: "POST", path: "/api/v1/query", body: query("SET query_timeout = 1000"), need: needRead,
			okAudit: []auditKey{{"settings", "set", "success"}}}},
		{httpEndpoint: httpEndpoint{name: "create user", method: "POST", path: "/api/v1/query", need: needAdmin,
			body: func(column) any {
				userN++
				return map[string]any{"query": "CALL dbms.security.createUser($u, 'a-good-password', ['reader'])", "parameters": map[string]any{"u": fmt.Sprintf("made%d", userN)}}
			},
			okAudit: []auditKey{{"user_management", "create_user", "success"}}}},
		{httpEndpoint: httpEndpoint{name: "audit events", method: "POST", path: "/api/v1/query", body: query("CALL audit.get_recent_events(1)"), need: needAdmin}},
		{httpEndpoint: httpEndpoint{name: "explain of a write", method: "POST", path: "/api/v1/query/explain", body: query("CREATE (:Matrix)"), need: needRead}},
		{httpEndpoint: httpEndpoint{name: "profile of a write", method: "POST", path: "/api/v1/query/profile", body: query("CREATE (:Matrix)"), need: needRead | needWrite}},
		{httpEndpoint: httpEndpoint{name: "batch write", method: "POST", path: "/api/v1/batch", need: needRead | needWrite,
			body: func(column) any {
				return map[string]any{"transaction": true, "queries": []any{map[string]any{"query": "CREATE (:Matrix)"}}}
			}}},
		{httpEndpoint: httpEndpoint{name: "experimental query", method: "POST", path: "/query", body: query("RETURN 1 AS one"), need: needRead}},
		{httpEndpoint: httpEndpoint{name: "status", method: "GET", path: "/api/v1/status", need: needRead}},
		{httpEndpoint: httpEndpoint{name: "metrics", method: "GET", path: "/api/v1/metrics", need: needRead}},
		{httpEndpoint: httpEndpoint{name: "transaction begin", method: "POST", path: "/api/v1/transaction/begin", need: needRead},
			after: func(c column, a answer) {
				if a.status == 200 {
					txOf[c] = a.body["transaction_id"].(string)
				}
			}},
		{httpEndpoint: httpEndpoint{name: "transaction read", method: "POST", body: query("MATCH (n:Matrix) RETURN count(n) AS c"), need: needRead}, pathOf: txPath("query")},
		{httpEndpoint: httpEndpoint{name: "transaction write", method: "POST", body: query("CREATE (:Matrix)"), need: needRead | needWrite}, pathOf: txPath("query")},
		{httpEndpoint: httpEndpoint{name: "transaction rollback", method: "POST", need: needRead}, pathOf: txPath("rollback")},
		{httpEndpoint: httpEndpoint{name: "transaction begin (again)", method: "POST", path: "/api/v1/transaction/begin", need: needRead},
			after: func(c column, a answer) {
				if a.status == 200 {
					txOf[c] = a.body["transaction_id"].(string)
				}
			}},
		{httpEndpoint: httpEndpoint{name: "transaction commit", method: "POST", need: needRead}, pathOf: txPath("commit")},
	}
	for _, e := range endpoints {
		for c := column(0); c < numColumns; c++ {
			path := e.path
			if e.pathOf != nil {
				path = e.pathOf(c)
			}
			var body any
			if e.body != nil {
				body = e.body(c)
			}
			a := s.do(t, c, e.method, base+path, s.headers(t, c), body)
			want := e.expect(c)
			if e.after != nil {
				e.after(c, a)
			}
			s.check(t, e.name, c, a, want)
		}
	}
	s.testMetricsMatrix(t)
	s.testWireMatrix(t)
	loggedOut := s.testTokenEndpoints(t)
	s.testStreamMatrix(t, loggedOut)
	t.Logf("%d cells checked", s.cells)
}

// check asserts one cell: the status, the error code, WWW-Authenticate on
// a 401, and exactly the audit events wanted.
func (s *securedServer) check(t *testing.T, name string, c column, a answer, want expect) {
	t.Helper()
	s.cells++
	if a.status != want.status || a.code != want.code {
		t.Errorf("%s as %s: %d %q, want %d %q (%v)", name, c, a.status, a.code, want.status, want.code, a.body)
	}
	if a.status == 401 && !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("%s as %s: 401 without WWW-Authenticate: Bearer (%q)", name, c, a.header.Get("WWW-Authenticate"))
	}
	got := s.newEvents(t)
	if fmt.Sprint(got) != fmt.Sprint(want.audit) {
		t.Errorf("%s as %s: audit events %v, want %v", name, c, got, want.audit)
	}
}

// wireConn is a raw wire-protocol connection from a column's address.
type wireConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func (s *securedServer) dialWire(t *testing.T, c column) *wireConn {
	t.Helper()
	conn, err := s.dialer[c].Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	return &wireConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

func (w *wireConn) send(msg map[string]any) {
	w.t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := w.conn.Write(append(b, '\n')); err != nil {
		w.t.Fatal(err)
	}
}

// next reads one message; nil when the server closed the connection.
func (w *wireConn) next() map[string]any {
	w.t.Helper()
	line, err := w.r.ReadBytes('\n')
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		w.t.Fatalf("%s: %v", line, err)
	}
	return m
}

// answer reads a statement's messages up to SUCCESS or ERROR: the error
// code, "" on SUCCESS.
func (w *wireConn) answer() string {
	w.t.Helper()
	for {
		m := w.next()
		switch {
		case m == nil:
			w.t.Fatal("the connection closed before SUCCESS or ERROR")
		case m["type"] == "SUCCESS":
			return ""
		case m["type"] == "ERROR":
			return fmt.Sprint(m["code"])
		}
	}
}

// helloAuth is the HELLO.auth of a column.
func (s *securedServer) helloAuth(t *testing.T, c column) map[string]any {
	switch c {
	case colNone:
		return nil
	case colMalformed:
		return map[string]any{"method": "kerberos", "password": "x"}
	case colWrongPassword:
		h := s.headers(t, c) // takes the next wrong-password user
		raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(h["Authorization"], "Basic "))
		user, password, _ := strings.Cut(string(raw), ":")
		return map[string]any{"username": user, "password": password}
	case colExpired:
		return map[string]any{"method": "bearer", "password": s.expiredTok}
	case colRevokedKey:
		return map[string]any{"method": "api_key", "password": s.revokedKey}
	}
	return map[string]any{"method": "bearer", "password": strings.TrimPrefix(s.headers(t, c)["Authorization"], "Bearer ")}
}

// testWireMatrix: HELLO × columns, then each statement message × roles.
func (s *securedServer) testWireMatrix(t *testing.T) {
	type stmt struct {
		name    string
		msgs    []map[string]any // sent in order; the last one's answer counts
		need    int
		okAudit []auditKey
	}
	run := func(q string) map[string]any { return map[string]any{"type": "RUN_GQL", "query": q} }
	stmts := []stmt{
		{name: "PING", msgs: []map[string]any{{"type": "PING"}}},
		{name: "RUN_GQL read", msgs: []map[string]any{run("MATCH (n) RETURN count(n) AS c")}, need: needRead},
		{name: "RUN_GQL write", msgs: []map[string]any{run("CREATE (:Matrix)")}, need: needRead | needWrite},
		{name: "RUN_GQL schema", msgs: []map[string]any{run("CREATE INDEX matrix_wire FOR (n:Matrix) ON (n.w)")}, need: needAdmin,
			okAudit: []auditKey{{"schema", "create_index", "success"}}},
		{name: "RUN_GQL EXPLAIN of a write", msgs: []map[string]any{run("EXPLAIN CREATE (:Matrix)")}, need: needRead},
		{name: "RUN_GQL PROFILE of a write", msgs: []map[string]any{run("PROFILE CREATE (:Matrix)")}, need: needRead | needWrite},
		{name: "BEGIN", msgs: []map[string]any{{"type": "BEGIN"}}, need: needRead},
		{name: "RUN_GQL write in a transaction", msgs: []map[string]any{run("CREATE (:Matrix)")}, need: needRead | needWrite},
		{name: "ROLLBACK", msgs: []map[string]any{{"type": "ROLLBACK"}}, need: needRead},
		{name: "BEGIN (again)", msgs: []map[string]any{{"type": "BEGIN"}}, need: needRead},
		{name: "COMMIT", msgs: []map[string]any{{"type": "COMMIT"}}, need: needRead},
		{name: "audit events", msgs: []map[string]any{run("CALL audit.get_recent_events(1)")}, need: needAdmin},
	}
	for c := column(0); c < numColumns; c++ {
		w := s.dialWire(t, c)
		hello := map[string]any{"type": "HELLO", "version": "1.0"}
		if a := s.helloAuth(t, c); a != nil {
			hello["auth"] = a
		}
		w.send(hello)
		m := w.next()
		if c < colReader {
			if m == nil || m["type"] != "ERROR" || m["code"] != "08001" {
				t.Errorf("wire HELLO as %s: %v, want ERROR 08001", c, m)
			}
			if m := w.next(); m != nil {
				t.Errorf("wire HELLO as %s: the connection stayed open (%v)", c, m)
			}
			if got := s.newEvents(t); fmt.Sprint(got) != fmt.Sprint([]auditKey{auditAuthFailed}) {
				t.Errorf("wire HELLO as %s: audit events %v", c, got)
			}
			continue
		}
		if m == nil || m["type"] != "WELCOME" {
			t.Fatalf("wire HELLO as %s: %v", c, m)
		}
		for _, st := range stmts {
			for _, msg := range st.msgs {
				w.send(msg)
			}
			code := w.answer()
			want, wantAudit := "", st.okAudit
			if !c.holds(st.need) {
				want, wantAudit = "42501", []auditKey{auditDenied}
			}
			if code != want {
				t.Errorf("wire %s as %s: %q, want %q", st.name, c, code, want)
			}
			s.cells++
			if got := s.newEvents(t); fmt.Sprint(got) != fmt.Sprint(wantAudit) {
				t.Errorf("wire %s as %s: audit events %v, want %v", st.name, c, got, wantAudit)
			}
		}
	}
}

// testStreamMatrix: AUTH × columns, then SUBSCRIBE. The stream takes
// bearer tokens only: the wrong-password column sends Basic, the
// revoked-key column a token whose session was logged out.
func (s *securedServer) testStreamMatrix(t *testing.T, loggedOut string) {
	for c := column(0); c < numColumns; c++ {
		d := websocket.Dialer{NetDialContext: s.dialer[c].DialContext, HandshakeTimeout: 10 * time.Second}
		ws, _, err := d.Dial("ws://"+s.addr+"/api/v1/stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		auth := map[string]any{"type": "AUTH"}
		switch c {
		case colNone:
		case colRevokedKey:
			auth["token"] = "Bearer " + loggedOut
		default:
			h := s.headers(t, c)
			auth["token"] = h["Authorization"]
		}
		b, _ := json.Marshal(auth)
		if err := ws.WriteMessage(websocket.TextMessage, b); err != nil {
			t.Fatal(err)
		}
		m := wsRead(t, ws)
		if c < colReader {
			if m["type"] != "ERROR" || m["code"] != "08001" {
				t.Errorf("stream AUTH as %s: %v, want ERROR 08001", c, m)
			}
			ws.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
				t.Errorf("stream AUTH as %s: %v, want close 1008", c, err)
			}
			if got := s.newEvents(t); fmt.Sprint(got) != fmt.Sprint([]auditKey{auditAuthFailed}) {
				t.Errorf("stream AUTH as %s: audit events %v", c, got)
			}
			ws.Close()
			continue
		}
		if m["type"] != "AUTH_OK" {
			t.Errorf("stream AUTH as %s: %v", c, m)
		}
		wsSend(t, ws, `{"type":"SUBSCRIBE","id":"m","patterns":["(:Matrix)"]}`, "SUBSCRIBED")
		if got := s.newEvents(t); len(got) != 0 {
			t.Errorf("stream as %s: audit events %v", c, got)
		}
		ws.Close()
	}
}

// testMetricsMatrix: the metrics listener's /metrics needs a principal
// with read; its probes need nothing.
func (s *securedServer) testMetricsMatrix(t *testing.T) {
	for _, path := range []string{"/metrics", "/health", "/ready", "/live"} {
		e := httpEndpoint{name: "metrics listener " + path, method: "GET", path: path}
		if path == "/metrics" {
			e.need = needRead
		}
		for c := column(0); c < numColumns; c++ {
			a := s.do(t, c, "GET", "http://"+s.metrics+path, s.headers(t, c), nil)
			s.check(t, e.name, c, a, e.expect(c))
		}
	}
}

// testTokenEndpoints: the three token endpoints × the columns that apply
// to them (their credential is the body, not a header). It returns an
// access token whose session was logged out.
func (s *securedServer) testTokenEndpoints(t *testing.T) (loggedOut string) {
	base := "http://" + s.addr + "/api/v1/auth/"
	login := []auditKey{{"authentication", "login", "success"}, {"authentication", "token_issue", "success"}}
	passwords := map[column][2]string{colReader: {"rita", "rita-password"}, colEditor: {"eddie", "eddie-password"}, colAdmin: {"admin", s.adminPassword}}

	// POST /api/v1/auth/token
	for c := column(0); c < numColumns; c++ {
		var body any
		want := expect{status: 200, audit: login}
		switch c {
		case colNone:
			body, want = map[string]any{}, expect{status: 400, code: "22000"}
		case colMalformed:
			body, want = map[string]any{"username": 5, "password": "x"}, expect{status: 400, code: "22000"}
		case colWrongPassword:
			h := s.headers(t, c)
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(h["Authorization"], "Basic "))
			user, _, _ := strings.Cut(string(raw), ":")
			body, want = map[string]any{"username": user, "password": "not-the-password"}, expect{status: 401, code: "08001", audit: []auditKey{{"authentication", "login", "failure"}}}
		case colExpired, colRevokedKey:
			continue // a login carries no token or key
		default:
			body = map[string]any{"username": passwords[c][0], "password": passwords[c][1]}
		}
		s.check(t, "POST /api/v1/auth/token", c, s.do(t, c, "POST", base+"token", nil, body), want)
	}

	// POST /api/v1/auth/refresh: a fresh refresh token per role; the
	// revoked-key column presents a used one (a replay).
	for c := column(0); c < numColumns; c++ {
		var body any
		want := expect{status: 200, audit: []auditKey{{"authentication", "token_refresh", "success"}}}
		switch c {
		case colNone:
			body, want = map[string]any{}, expect{status: 400, code: "22000"}
		case colMalformed:
			body, want = map[string]any{"refresh_token": "qr_not-a-token"}, expect{status: 401, code: "08001", audit: []auditKey{{"authentication", "token_refresh", "failure"}}}
		case colWrongPassword, colExpired:
			continue // no password; an expired refresh token is the auth package's test (its clock moves)
		case colRevokedKey:
			_, used := s.login(t, "rita", "rita-password")
			if a := s.do(t, colReader, "POST", base+"refresh", nil, map[string]any{"refresh_token": used}); a.status != 200 {
				t.Fatalf("refresh: %v", a.body)
			}
			s.newEvents(t)
			body, want = map[string]any{"refresh_token": used}, expect{status: 401, code: "08001", audit: []auditKey{{"authentication", "refresh_token_reuse", "failure"}}}
		default:
			_, fresh := s.login(t, passwords[c][0], passwords[c][1])
			s.newEvents(t)
			body = map[string]any{"refresh_token": fresh}
		}
		s.check(t, "POST /api/v1/auth/refresh", c, s.do(t, c, "POST", base+"refresh", nil, body), want)
	}

	// POST /api/v1/auth/logout: a fresh session per role, which is over
	// afterwards.
	e := httpEndpoint{name: "POST /api/v1/auth/logout", need: needRead, okAudit: []auditKey{{"authentication", "logout", "success"}}}
	for c := column(0); c < numColumns; c++ {
		h := s.headers(t, c)
		var tok string
		if c >= colReader {
			tok, _ = s.login(t, passwords[c][0], passwords[c][1])
			s.newEvents(t)
			h = map[string]string{"Authorization": "Bearer " + tok}
		}
		s.check(t, e.name, c, s.do(t, c, "POST", base+"logout", h, nil), e.expect(c))
		if tok != "" {
			a := s.do(t, c, "GET", "http://"+s.addr+"/api/v1/status", h, nil)
			s.check(t, "status after logout", c, a, expect{status: 401, code: "08001", audit: []auditKey{auditAuthFailed}})
			loggedOut = tok
		}
	}
	// An API key or Basic has no session to end.
	a := s.do(t, colAdmin, "POST", base+"logout", map[string]string{"Authorization": basic("admin", s.adminPassword)}, nil)
	s.newEvents(t)
	if a.status != 400 || a.code != "22023" {
		t.Errorf("logout with Basic: %d %v", a.status, a.body)
	}
	return loggedOut
}
