package http

import (
	"io"
	nethttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// txAPI drives the transaction endpoints of one server.
type txAPI struct {
	t    *testing.T
	base string
	// graph, when set, is sent as "graph" with every auto-commit
	// statement and begin: the statements run on that graph.
	graph string
}

func newTxAPI(t *testing.T, cfg Config, opts engine.Options) txAPI {
	t.Helper()
	return txAPI{t: t, base: startServer(t, cfg, openDB(t, opts))}
}

func (a txAPI) post(path, body string) (int, map[string]any) {
	a.t.Helper()
	if a.graph != "" && (strings.HasPrefix(path, "/api/v1/query") || path == "/api/v1/transaction/begin") {
		if rest := strings.TrimPrefix(strings.TrimSpace(body), "{"); rest == "" || rest == "}" {
			body = `{"graph":"` + a.graph + `"}`
		} else {
			body = `{"graph":"` + a.graph + `",` + rest
		}
	}
	status, out, _ := call(a.t, "POST", a.base+path, body)
	return status, out
}

func txPath(id, action string) string { return "/api/v1/transaction/" + id + "/" + action }

// begin opens a transaction with the begin body given and returns its id.
func (a txAPI) begin(body string) string {
	a.t.Helper()
	status, out := a.post("/api/v1/transaction/begin", body)
	if status != 200 {
		a.t.Fatalf("begin %s: %d %v", body, status, out)
	}
	return out["transaction_id"].(string)
}

// beginAt opens a transaction at an isolation level.
func (a txAPI) beginAt(level string) string {
	a.t.Helper()
	return a.begin(`{"isolation_level":"` + level + `"}`)
}

// run runs a statement in transaction id.
func (a txAPI) run(id, query string) (int, map[string]any) {
	a.t.Helper()
	return a.post(txPath(id, "query"), jsonString(map[string]any{"query": query}))
}

// ok runs a statement in transaction id that must succeed.
func (a txAPI) ok(id, query string) map[string]any {
	a.t.Helper()
	status, out := a.run(id, query)
	if status != 200 {
		a.t.Fatalf("%s in %s: %d %v", query, id, status, out)
	}
	return out
}

// rows runs a read in transaction id and returns its data as JSON.
func (a txAPI) rows(id, query string) string {
	a.t.Helper()
	return jsonString(a.ok(id, query)["data"])
}

// auto runs an auto-commit statement and returns its data as JSON.
func (a txAPI) auto(query string) string {
	a.t.Helper()
	status, out := a.post("/api/v1/query", jsonString(map[string]any{"query": query}))
	if status != 200 {
		a.t.Fatalf("%s: %d %v", query, status, out)
	}
	return jsonString(out["data"])
}

func (a txAPI) commit(id string) (int, map[string]any) {
	a.t.Helper()
	return a.post(txPath(id, "commit"), "")
}

func (a txAPI) rollback(id, body string) (int, map[string]any) {
	a.t.Helper()
	return a.post(txPath(id, "rollback"), body)
}

// errOf returns the code and message of an error body ("" when none).
func errOf(out map[string]any) (code, message string) {
	e, _ := out["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	return code, message
}

// wantError fails unless the answer is status with code, and its
// message contains each of words.
func wantError(t *testing.T, what string, status int, out map[string]any, wantStatus int, wantCode string, words ...string) {
	t.Helper()
	code, msg := errOf(out)
	if status != wantStatus || code != wantCode {
		t.Errorf("%s: %d %v, want %d with code %s", what, status, out, wantStatus, wantCode)
		return
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message %q does not say %q", what, msg, w)
		}
	}
}

// parseTime reads an ISO 8601 UTC timestamp of the transaction endpoints.
func parseTime(t *testing.T, what string, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		t.Fatalf("%s = %q: not an ISO 8601 UTC timestamp (%v)", what, s, err)
	}
	return at
}

// Begin, statements, commit; begin, statements, rollback: the answers'
// shapes, what others see meanwhile, and what a finished transaction's
// id answers afterwards.
func TestTransactionCommitAndRollback(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	before := time.Now()
	status, out := a.post("/api/v1/transaction/begin", "")
	if status != 200 {
		t.Fatalf("begin: %d %v", status, out)
	}
	id, _ := out["transaction_id"].(string)
	if id == "" || out["isolation_level"] != "READ_COMMITTED" || jsonString(out["timeout"]) != "300000" {
		t.Errorf("begin answered %v", out)
	}
	// The default lifetime is 5 minutes from begin.
	exp := parseTime(t, "expires_at", out["expires_at"])
	if exp.Before(before.Add(5*time.Minute).Truncate(time.Millisecond)) || exp.After(time.Now().Add(5*time.Minute)) {
		t.Errorf("expires_at %v is not 5 minutes after begin (%v)", exp, before)
	}

	out = a.ok(id, "CREATE (:T {v: 1}), (:T {v: 2})")
	meta := out["metadata"].(map[string]any)
	if jsonString(meta["rows_affected"]) != "2" || meta["execution_time_ms"] == nil {
		t.Errorf("metadata of a write in a transaction: %v", meta)
	}
	a.ok(id, "MATCH (t:T {v: 2}) SET t.v = 20")
	if got := a.rows(id, "MATCH (t:T) RETURN t.v AS v ORDER BY v"); got != `[{"v":1},{"v":20}]` {
		t.Errorf("inside the transaction: %s", got)
	}
	if got := a.auto("MATCH (t:T) RETURN count(*) AS n"); got != `[{"n":0}]` {
		t.Errorf("outside before commit: %s", got)
	}
	status, out = a.commit(id)
	if status != 200 || out["status"] != "committed" || out["transaction_id"] != id {
		t.Fatalf("commit: %d %v", status, out)
	}
	if at := parseTime(t, "committed_at", out["committed_at"]); at.Before(before.Truncate(time.Millisecond)) || at.After(time.Now()) {
		t.Errorf("committed_at %v", at)
	}
	if got := a.auto("MATCH (t:T) RETURN t.v AS v ORDER BY v"); got != `[{"v":1},{"v":20}]` {
		t.Errorf("after commit: %s", got)
	}
	// The id is no longer open: 404, saying what became of it.
	status, out = a.commit(id)
	wantError(t, "second commit", status, out, 404, "02000", id, "committed")
	status, out = a.run(id, "RETURN 1")
	wantError(t, "query after commit", status, out, 404, "02000", "committed")
	status, out = a.rollback(id, "")
	wantError(t, "rollback after commit", status, out, 404, "02000", "committed")

	id = a.begin(`{}`)
	a.ok(id, "CREATE (:T {v: 3})")
	a.ok(id, "MATCH (t:T {v: 1}) DELETE t")
	status, out = a.rollback(id, "")
	if status != 200 || out["status"] != "rolled_back" || out["transaction_id"] != id {
		t.Fatalf("rollback: %d %v", status, out)
	}
	parseTime(t, "rolled_back_at", out["rolled_back_at"])
	if _, ok := out["to_savepoint"]; ok {
		t.Errorf("a whole rollback names a savepoint: %v", out)
	}
	if got := a.auto("MATCH (t:T) RETURN t.v AS v ORDER BY v"); got != `[{"v":1},{"v":20}]` {
		t.Errorf("after rollback: %s", got)
	}
	status, out = a.run(id, "RETURN 1")
	wantError(t, "query after rollback", status, out, 404, "02000", "rolled back")
	status, out = a.commit(id)
	wantError(t, "commit after rollback", status, out, 404, "02000", "rolled back")

	for _, unknown := range []string{"0123456789abcdef0123456789abcdef", "nope"} {
		for _, action := range []string{"query", "commit", "rollback"} {
			status, out := a.post(txPath(unknown, action), `{"query":"RETURN 1"}`)
			wantError(t, action+" of "+unknown, status, out, 404, "02000", "not open")
		}
	}
}

// Begin's options: every level by name, a lifetime, and the requests
// that are refused with 400, 404, 405 or 415.
func TestTransactionBeginOptions(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	for _, c := range []struct{ asked, level string }{
		{"READ_COMMITTED", "READ_COMMITTED"}, {"REPEATABLE_READ", "REPEATABLE_READ"},
		{"SERIALIZABLE", "SERIALIZABLE"}, {"serializable", "SERIALIZABLE"}, {"repeatable read", "REPEATABLE_READ"},
	} {
		status, out := a.post("/api/v1/transaction/begin", `{"isolation_level":"`+c.asked+`"}`)
		if status != 200 || out["isolation_level"] != c.level {
			t.Errorf("begin at %s: %d %v", c.asked, status, out)
			continue
		}
		a.rollback(out["transaction_id"].(string), "")
	}
	before := time.Now()
	status, out := a.post("/api/v1/transaction/begin", `{"isolation_level":"SERIALIZABLE","timeout":60000}`)
	if status != 200 || jsonString(out["timeout"]) != "60000" {
		t.Fatalf("begin with a timeout: %d %v", status, out)
	}
	if exp := parseTime(t, "expires_at", out["expires_at"]); exp.Before(before.Add(time.Minute).Truncate(time.Millisecond)) || exp.After(time.Now().Add(time.Minute)) {
		t.Errorf("expires_at %v is not a minute after begin (%v)", exp, before)
	}
	a.rollback(out["transaction_id"].(string), "")

	cases := []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"unknown level", "/api/v1/transaction/begin", `{"isolation_level":"READ_UNCOMMITTED"}`, 400, "22023"},
		{"level not a string", "/api/v1/transaction/begin", `{"isolation_level":3}`, 400, "22000"},
		{"negative timeout", "/api/v1/transaction/begin", `{"timeout":-1}`, 400, "22000"},
		{"fractional timeout", "/api/v1/transaction/begin", `{"timeout":1.5}`, 400, "22000"},
		{"timeout over an hour", "/api/v1/transaction/begin", `{"timeout":3600001}`, 400, "22023"},
		{"not an object", "/api/v1/transaction/begin", `["SERIALIZABLE"]`, 400, "22000"},
		{"malformed JSON", "/api/v1/transaction/begin", `{"timeout":`, 400, "22000"},
		{"bad rollback body", txPath("x", "rollback"), `{"to_savepoint":1}`, 400, "22000"},
		{"empty savepoint name", txPath("x", "rollback"), `{"to_savepoint":""}`, 400, "22000"},
		{"unknown action", txPath("x", "abort"), `{}`, 404, "02000"},
		{"no id", "/api/v1/transaction//commit", `{}`, 404, "02000"},
		{"id with a slash", "/api/v1/transaction/a/b/commit", `{}`, 404, "02000"},
	}
	for _, c := range cases {
		status, out := a.post(c.path, c.body)
		wantError(t, c.name, status, out, c.status, c.code)
	}
	// The wrong method is 405; a body not declared JSON is 415, while a
	// commit without a body needs no Content-Type.
	status, out, hdr := call(t, "GET", a.base+"/api/v1/transaction/begin", "")
	if status != 405 || hdr.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("GET begin: %d %v %v", status, out, hdr)
	}
	status, out, _ = call(t, "GET", a.base+txPath("x", "commit"), "")
	wantError(t, "GET commit", status, out, 405, "22000")
	resp, err := nethttp.Post(a.base+"/api/v1/transaction/begin", "text/plain", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Errorf("begin with a text/plain body: %d", resp.StatusCode)
	}
	// A malformed statement request is refused before it reaches the
	// transaction, which stays usable.
	id := a.begin("")
	status, out = a.post(txPath(id, "query"), ``)
	wantError(t, "query without a body", status, out, 400, "22000")
	status, out = a.post(txPath(id, "query"), `{"query":"RETURN 1","parameters":[]}`)
	wantError(t, "parameters not an object", status, out, 400, "22000")
	if got := a.rows(id, "RETURN 1 AS one"); got != `[{"one":1}]` {
		t.Errorf("after malformed requests: %s", got)
	}
	resp, err = nethttp.Post(a.base+txPath(id, "commit"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"committed"`) {
		t.Errorf("commit without a body or Content-Type: %d %s", resp.StatusCode, body)
	}
	// A preflight of a transaction path is answered like any route's.
	req, _ := nethttp.NewRequest("OPTIONS", a.base+txPath(id, "query"), nil)
	req.Header.Set("Origin", "http://localhost:8080")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err = nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("preflight of a transaction path: %d %v", resp.StatusCode, resp.Header)
	}
}

// Savepoints: SAVEPOINT is a statement; rolling back to one works through
// the rollback endpoint (the transaction stays open) and as a statement.
func TestTransactionSavepoints(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	id := a.begin("")
	a.ok(id, "CREATE (:S {i: 1})")
	a.ok(id, "SAVEPOINT one")
	a.ok(id, "CREATE (:S {i: 2})")
	a.ok(id, "SAVEPOINT two")
	a.ok(id, "MATCH (s:S) SET s.i = s.i * 10")
	status, out := a.rollback(id, `{"to_savepoint":"two"}`)
	if status != 200 || out["status"] != "rolled_back" || out["to_savepoint"] != "two" || out["transaction_id"] != id {
		t.Fatalf("rollback to two: %d %v", status, out)
	}
	parseTime(t, "rolled_back_at", out["rolled_back_at"])
	if got := a.rows(id, "MATCH (s:S) RETURN s.i AS i ORDER BY i"); got != `[{"i":1},{"i":2}]` {
		t.Errorf("after rolling back to two: %s", got)
	}
	a.ok(id, "ROLLBACK TO SAVEPOINT one")
	if got := a.rows(id, "MATCH (s:S) RETURN s.i AS i ORDER BY i"); got != `[{"i":1}]` {
		t.Errorf("after ROLLBACK TO SAVEPOINT one: %s", got)
	}
	// An unknown savepoint through the endpoint is 400 / 42S02 and leaves
	// the transaction usable; as a statement it fails the transaction,
	// as any failed statement does.
	status, out = a.rollback(id, `{"to_savepoint":"nowhere"}`)
	wantError(t, "rollback to an unknown savepoint", status, out, 400, "42S02", "nowhere")
	a.ok(id, "CREATE (:S {i: 3})")
	a.ok(id, "RELEASE SAVEPOINT one")
	status, out = a.run(id, "ROLLBACK TO SAVEPOINT one")
	wantError(t, "ROLLBACK TO a released savepoint", status, out, 400, "42S02")
	status, out = a.run(id, "RETURN 1")
	wantError(t, "a statement after the failure", status, out, 500, "40000", "aborted")
	status, out = a.commit(id)
	wantError(t, "commit of the failed transaction", status, out, 500, "40000", "rolled back")
	if got := a.auto("MATCH (s:S) RETURN count(*) AS n"); got != `[{"n":0}]` {
		t.Errorf("a failed transaction's writes: %s", got)
	}
	status, out = a.commit(id)
	wantError(t, "commit after the failed commit", status, out, 404, "02000", "rolled back")

	// Outside a transaction SAVEPOINT is an error.
	status, out = a.post("/api/v1/query", `{"query":"SAVEPOINT x"}`)
	wantError(t, "SAVEPOINT outside a transaction", status, out, 500, "40000")
}

// A failed statement fails the transaction (PostgreSQL's behaviour):
// later statements get 40000 until a rollback to a savepoint taken before
// the failure, through the endpoint or as a statement.
func TestTransactionFailedState(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	id := a.begin("")
	a.ok(id, "CREATE (:F {k: 1})")
	a.ok(id, "SAVEPOINT ok")
	a.ok(id, "CREATE (:F {k: 2})")
	status, out := a.run(id, "RETURN 1/0")
	wantError(t, "division by zero", status, out, 400, "22012")
	status, out = a.run(id, "RETURN 1")
	wantError(t, "a statement after the failure", status, out, 500, "40000", "aborted")
	if status, out := a.rollback(id, `{"to_savepoint":"ok"}`); status != 200 || out["status"] != "rolled_back" {
		t.Fatalf("rollback to ok: %d %v", status, out)
	}
	a.ok(id, "CREATE (:F {k: 3})")
	status, out = a.run(id, "MATCH (f:F) RETURN f.k / 0")
	wantError(t, "division by zero of a property", status, out, 400, "22012")
	a.ok(id, "ROLLBACK TO SAVEPOINT ok")
	if got := a.rows(id, "MATCH (f:F) RETURN f.k AS k ORDER BY k"); got != `[{"k":1}]` {
		t.Errorf("after the statement rollback: %s", got)
	}
	if status, out := a.commit(id); status != 200 {
		t.Fatalf("commit after recovering: %d %v", status, out)
	}
	if got := a.auto("MATCH (f:F) RETURN f.k AS k ORDER BY k"); got != `[{"k":1}]` {
		t.Errorf("committed: %s", got)
	}

	// A syntax error fails the transaction too; a rollback ends it.
	id = a.begin("")
	a.ok(id, "CREATE (:F {k: 9})")
	status, out = a.run(id, "RETRUN 1")
	wantError(t, "syntax error", status, out, 400, "42000")
	status, out = a.run(id, "RETURN 1")
	wantError(t, "after the syntax error", status, out, 500, "40000", "aborted")
	if status, out := a.rollback(id, ""); status != 200 || out["status"] != "rolled_back" {
		t.Fatalf("rollback of a failed transaction: %d %v", status, out)
	}
	if got := a.auto("MATCH (f:F) RETURN count(*) AS n"); got != `[{"n":1}]` {
		t.Errorf("after the rollback: %s", got)
	}
}

// First committer wins: the second transaction to commit a change of the
// same property gets 409 / 40001, is rolled back, and changes nothing.
func TestTransactionConflict(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	a.auto("CREATE (:C {id: 1, v: 0})")
	for _, level := range engine.IsolationLevels() {
		t1, t2 := a.beginAt(level), a.beginAt(level)
		a.ok(t1, "MATCH (c:C {id: 1}) SET c.v = 1")
		a.ok(t2, "MATCH (c:C {id: 1}) SET c.v = 2")
		if status, out := a.commit(t1); status != 200 {
			t.Fatalf("%s: first commit: %d %v", level, status, out)
		}
		status, out := a.commit(t2)
		wantError(t, level+": second commit", status, out, 409, "40001", "retry")
		if e := out["error"].(map[string]any); e["category"] != "TRANSACTION_ERROR" {
			t.Errorf("%s: category %v", level, e["category"])
		}
		status, out = a.commit(t2)
		wantError(t, level+": the loser after its conflict", status, out, 404, "02000", "rolled back")
		if got := a.auto("MATCH (c:C {id: 1}) RETURN c.v AS v"); got != `[{"v":1}]` {
			t.Errorf("%s: after the conflict: %s", level, got)
		}
		a.auto("MATCH (c:C {id: 1}) SET c.v = 0")
	}
	// At READ_COMMITTED an increment computed in the statement is never
	// lost: sent before the other's commit it conflicts, sent after it
	// reads the committed value.
	t1, t2 := a.beginAt("READ_COMMITTED"), a.beginAt("READ_COMMITTED")
	a.ok(t1, "MATCH (c:C {id: 1}) SET c.v = c.v + 1")
	a.ok(t2, "MATCH (c:C {id: 1}) SET c.v = c.v + 1")
	a.commit(t1)
	status, out := a.commit(t2)
	wantError(t, "the concurrent increment", status, out, 409, "40001")
	t1, t2 = a.beginAt("READ_COMMITTED"), a.beginAt("READ_COMMITTED")
	a.ok(t1, "MATCH (c:C {id: 1}) SET c.v = c.v + 1")
	a.commit(t1)
	a.ok(t2, "MATCH (c:C {id: 1}) SET c.v = c.v + 1")
	if status, out := a.commit(t2); status != 200 {
		t.Fatalf("the later increment: %d %v", status, out)
	}
	if got := a.auto("MATCH (c:C {id: 1}) RETURN c.v AS v"); got != `[{"v":3}]` {
		t.Errorf("three increments committed: %s", got)
	}
}

// The explain and profile flags work inside a transaction; a result too
// large to send whole streams, and the transaction takes its next
// statement once it is read.
func TestTransactionExplainProfileAndStreaming(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	id := a.begin("")
	a.ok(id, "UNWIND range(1, 3) AS i CREATE (:P {i: i})")
	status, out := a.post(txPath(id, "query"), `{"query":"MATCH (p:P) RETURN p.i","explain":true}`)
	if plan, _ := out["plan"].(map[string]any); status != 200 || plan["operator"] == nil {
		t.Errorf("explain in a transaction: %d %v", status, out)
	}
	status, out = a.post(txPath(id, "query"), `{"query":"MATCH (p:P) RETURN count(*) AS n","profile":true}`)
	if prof, _ := out["profile"].(map[string]any); status != 200 || prof["operators"] == nil || jsonString(out["data"]) != `[{"n":3}]` {
		t.Errorf("profile in a transaction: %d %v", status, out)
	}
	// About 1.4 MB of rows: past the 256 KiB kept whole.
	status, out = a.run(id, "UNWIND range(1, 100000) AS i RETURN i, 'padding' AS pad")
	if status != 200 || len(out["data"].([]any)) != 100000 {
		t.Fatalf("a streamed result in a transaction: %d, %d rows", status, len(out["data"].([]any)))
	}
	a.ok(id, "CREATE (:P {i: 4})")
	if status, out := a.commit(id); status != 200 {
		t.Fatalf("commit: %d %v", status, out)
	}
	if got := a.auto("MATCH (p:P) RETURN count(*) AS n"); got != `[{"n":4}]` {
		t.Errorf("committed: %s", got)
	}
}

// Open transactions are bounded per client (here, the loopback address
// every test request comes from): past the limit begin is refused with
// 53300 (503: retry later) until one ends. An expired transaction's id answers 404 saying so.
func TestTransactionLimitAndExpiry(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{MaxTransactionsPerClient: 2})
	first, second := a.begin(""), a.begin("")
	status, out := a.post("/api/v1/transaction/begin", "")
	wantError(t, "a third transaction", status, out, 503, "53300", "per client")
	if status, _ := a.rollback(first, ""); status != 200 {
		t.Fatalf("rollback: %d", status)
	}
	third := a.begin(`{"timeout":50}`)
	a.ok(third, "CREATE (:E)")
	// Poll (each poll is a request) until the timer rolled it back.
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, out = a.run(third, "RETURN 1")
		if status != 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the transaction never expired")
		}
	}
	if status == 408 {
		// The poll was running when the timer fired: the statement is
		// cancelled with the expiry (40003), and the next call finds
		// the id ended.
		wantError(t, "query running at expiry", status, out, 408, "40003", "expired at")
		status, out = a.run(third, "RETURN 1")
	}
	wantError(t, "query after expiry", status, out, 404, "02000", "expired")
	if got := a.auto("MATCH (e:E) RETURN count(*) AS n"); got != `[{"n":0}]` {
		t.Errorf("an expired transaction's writes: %s", got)
	}
	a.rollback(second, "")
	for i := range 2 {
		if id := a.begin(""); id == "" {
			t.Fatalf("begin %d after the others ended", i)
		}
	}
}

// A transaction runs one statement at a time: while a streamed result is
// still being sent, another statement is refused with 40000 without
// failing the transaction. A client that stops reading and closes its
// connection ends that statement: cancelled (which fails the
// transaction) or, when the server's write fails first, closed; either
// way a rollback to a savepoint set before it makes the transaction
// usable.
func TestTransactionOneStatementAtATime(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	id := a.begin("")
	a.ok(id, "CREATE (:O)")
	a.ok(id, "SAVEPOINT before")
	// Ten million rows: far more than the socket buffers hold, so the
	// server is still sending when the second statement arrives.
	req, _ := nethttp.NewRequest("POST", a.base+txPath(id, "query"), strings.NewReader(`{"query":"UNWIND range(1, 10000000) AS i RETURN i"}`))
	req.Header.Set("Content-Type", "application/json")
	client := &nethttp.Client{Transport: &nethttp.Transport{}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 4096)); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the streamed statement: %d %v", resp.StatusCode, err)
	}
	status, out := a.run(id, "RETURN 1")
	wantError(t, "a statement while another streams", status, out, 500, "40000", "another statement")
	resp.Body.Close()
	client.CloseIdleConnections()
	// Poll (each poll is a request) until the server has ended the
	// abandoned statement and the transaction takes one again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, out = a.run(id, "ROLLBACK TO SAVEPOINT before")
		if status == 200 {
			break
		}
		wantError(t, "while the abandoned statement ends", status, out, 500, "40000", "another statement")
		if time.Now().After(deadline) {
			t.Fatal("the transaction stayed busy after its client left")
		}
	}
	if got := a.rows(id, "MATCH (o:O) RETURN count(*) AS n"); got != `[{"n":1}]` {
		t.Errorf("after the abandoned result: %s", got)
	}
	if status, out := a.commit(id); status != 200 {
		t.Fatalf("commit: %d %v", status, out)
	}
	if got := a.auto("MATCH (o:O) RETURN count(*) AS n"); got != `[{"n":1}]` {
		t.Errorf("committed: %s", got)
	}
}
