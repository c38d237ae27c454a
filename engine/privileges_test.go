package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// auditLog is an Auditor that keeps what it receives.
type auditLog struct {
	mu     sync.Mutex // protects events
	events []engine.AuditEvent
}

func (a *auditLog) Audit(e engine.AuditEvent) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events = append(a.events, e)
}

// take returns the events received since the last take.
func (a *auditLog) take() []engine.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.events
	a.events = nil
	return out
}

// The principals of the tests: none (authentication off), one per
// built-in role, and a user whose roles grant nothing.
var (
	reader = &engine.Principal{Name: "rita", Roles: []string{"reader"}, Privileges: engine.PrivRead, Address: "10.0.0.1:5001"}
	editor = &engine.Principal{Name: "ed", Roles: []string{"editor"}, Privileges: engine.PrivRead | engine.PrivWrite, Address: "10.0.0.2:5002"}
	admin  = &engine.Principal{Name: "ada", Roles: []string{"admin"}, Privileges: engine.PrivAll, Address: "10.0.0.3:5003"}
	nobody = &engine.Principal{Name: "nemo", Address: "10.0.0.4:5004"}
)

// registerTestProcedures adds test.open (no Requires: admin only),
// test.touch (Requires read and write) and test.context (read: whether
// it runs in an explicit transaction, and who calls it).
func registerTestProcedures(t *testing.T, db *engine.DB) {
	t.Helper()
	one := func(context.Context, []vector.Value) ([][]vector.Value, error) {
		return [][]vector.Value{{int64(1)}}, nil
	}
	out := []engine.ProcedureField{{Name: "x", Type: "INTEGER"}}
	for _, sig := range []engine.ProcedureSignature{
		{Name: "test.open", Outputs: out},
		{Name: "test.touch", Outputs: out, Requires: engine.PrivRead | engine.PrivWrite},
	} {
		if err := db.RegisterProcedure(sig, one); err != nil {
			t.Fatal(err)
		}
	}
	err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.context", Requires: engine.PrivRead,
		Outputs: []engine.ProcedureField{{Name: "inTx", Type: "BOOLEAN"}, {Name: "user", Type: "STRING"}}},
		func(ctx context.Context, _ []vector.Value) ([][]vector.Value, error) {
			var user vector.Value
			if p, ok := engine.PrincipalFrom(ctx); ok {
				user = p.Name
			}
			return [][]vector.Value{{engine.InExplicitTransaction(ctx), user}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// privilegeDB opens a database with two :P nodes, an index idx_old and
// a constraint c_old, and an import directory holding q.csv.
func privilegeDB(t *testing.T, dir string) (*engine.DB, *auditLog) {
	t.Helper()
	imports := t.TempDir()
	writeFiles(t, imports, map[string]string{"q.csv": "id,name\n1,a\n2,b\n"})
	log := &auditLog{}
	db, err := engine.Open(dir, engine.Options{ImportDir: imports, Auditor: log, CDCRetention: engine.CDCRetention{MaxAge: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	registerTestProcedures(t, db)
	mustQuery(t, db, "CREATE (:P {id: 1, x: 1}), (:P {id: 2, x: 2})", nil)
	mustQuery(t, db, "CREATE INDEX idx_old FOR (n:P) ON (n.x)", nil)
	mustQuery(t, db, "CREATE CONSTRAINT c_old ON (n:P) ASSERT EXISTS(n.id)", nil)
	log.take()
	return db, log
}

// fingerprint summarises what a statement may change: the graph, the
// schema and the session's settings.
func fingerprint(t *testing.T, s *engine.Session) string {
	t.Helper()
	var parts []string
	for _, q := range []string{"MATCH (n) RETURN count(n), sum(n.x)", "MATCH ()-[r]->() RETURN count(r)",
		"SHOW INDEXES", "SHOW CONSTRAINTS", "SHOW query_timeout"} {
		parts = append(parts, strings.Join(mustQuery(t, s, q, nil), ","))
	}
	return strings.Join(parts, " / ")
}

// TestPrivilegeMatrix runs each kind of statement as each principal: it
// runs when the principal holds what it needs and is refused with 42501
// otherwise, changing nothing; the auditor gets exactly the expected
// events.
func TestPrivilegeMatrix(t *testing.T) {
	type event struct{ category, action, outcome, detail string }
	const R, W, A = engine.PrivRead, engine.PrivWrite, engine.PrivAdmin
	cases := []struct {
		name    string
		mode    engine.Mode
		query   string
		need    engine.Privilege
		denied  string // the denial's audit detail
		changes bool   // a successful run changes the fingerprint
		durable bool   // needs a data directory
		events  []event
	}{
		{name: "match", query: "MATCH (n:P) RETURN n.id ORDER BY n.id", need: R, denied: "read"},
		{name: "create", query: "CREATE (:P {id: 10})", need: R | W, denied: "write", changes: true},
		{name: "merge", query: "MERGE (:P {id: 11})", need: R | W, denied: "write", changes: true},
		{name: "set property", query: "MATCH (n:P) SET n.x = 5", need: R | W, denied: "write", changes: true},
		{name: "delete", query: "MATCH (n:P {id: 1}) DETACH DELETE n", need: R | W, denied: "write", changes: true},
		{name: "write after a call", query: "CALL db.labels() YIELD label CREATE (:L {name: label})", need: R | W, denied: "write", changes: true},
		{name: "write in a union part", query: "MATCH (n:P) RETURN n.id AS id UNION CREATE (m:P {id: 14}) RETURN m.id AS id",
			need: R | W, denied: "write", changes: true},
		{name: "create index", query: "CREATE INDEX idx_new FOR (n:P) ON (n.y)", need: A, denied: "admin: CREATE INDEX", changes: true,
			events: []event{{"schema", "create_index", "success", "idx_new"}}},
		{name: "create unnamed index", query: "CREATE INDEX FOR (n:P) ON (n.z)", need: A, denied: "admin: CREATE INDEX", changes: true,
			events: []event{{"schema", "create_index", "success", "index_p_z"}}},
		{name: "drop index", query: "DROP INDEX idx_old", need: A, denied: "admin: DROP INDEX", changes: true,
			events: []event{{"schema", "drop_index", "success", "idx_old"}}},
		{name: "create constraint", query: "CREATE CONSTRAINT c_new ON (n:P) ASSERT n.id IS UNIQUE", need: A,
			denied: "admin: CREATE CONSTRAINT", changes: true, events: []event{{"schema", "create_constraint", "success", "c_new"}}},
		{name: "drop constraint", query: "DROP CONSTRAINT c_old", need: A, denied: "admin: DROP CONSTRAINT", changes: true,
			events: []event{{"schema", "drop_constraint", "success", "c_old"}}},
		{name: "failed schema statement", query: "DROP INDEX no_such_index", need: A, denied: "admin: DROP INDEX",
			events: []event{{"schema", "drop_index", "failure", "no_such_index"}}},
		{name: "show indexes", query: "SHOW INDEXES", need: R, denied: "read"},
		{name: "copy from", query: "COPY Q FROM 'q.csv'", need: A, denied: "admin: COPY FROM", changes: true,
			events: []event{{"admin", "copy_from", "success", "Q FROM q.csv"}}},
		{name: "checkpoint", query: "CHECKPOINT", need: A, denied: "admin: CHECKPOINT", durable: true,
			events: []event{{"admin", "checkpoint", "success", ""}}},
		{name: "set session setting", query: "SET query_timeout = 1500", need: R, denied: "read", changes: true,
			events: []event{{"settings", "set", "success", "query_timeout=1500"}}},
		{name: "show", query: "SHOW query_timeout", need: R, denied: "read"},
		{name: "show functions", query: "SHOW FUNCTIONS", need: R, denied: "read"},
		{name: "show procedures", query: "SHOW PROCEDURES", need: R, denied: "read"},
		{name: "explain a write", query: "EXPLAIN CREATE (:P {id: 12})", need: R, denied: "read"},
		{name: "explain mode of a write", mode: engine.ModeExplain, query: "CREATE (:P {id: 12})", need: R, denied: "read"},
		{name: "explain an admin call", query: "EXPLAIN CALL quiver.storage.integrity()", need: R, denied: "read"},
		{name: "profile a write", query: "PROFILE CREATE (:P {id: 13})", need: R | W, denied: "write", changes: true},
		{name: "profile mode of a write", mode: engine.ModeProfile, query: "CREATE (:P {id: 13})", need: R | W, denied: "write", changes: true},
		{name: "call db.labels", query: "CALL db.labels()", need: R, denied: "procedure db.labels"},
		{name: "call an algorithm", query: "CALL algo.wcc.stream()", need: R, denied: "procedure algo.wcc.stream"},
		{name: "call cdc.current", query: "CALL cdc.current()", need: R, denied: "procedure cdc.current"},
		{name: "call cdc.changes", query: "CALL cdc.earliest() YIELD position CALL cdc.changes(position) YIELD id RETURN count(id)", need: R, denied: "procedure cdc.earliest"},
		{name: "call storage stats", query: "CALL quiver.storage.stats()", need: R, denied: "procedure quiver.storage.stats"},
		{name: "call storage content hash", query: "CALL quiver.storage.contentHash()", need: R, denied: "procedure quiver.storage.contentHash"},
		{name: "call quiver.ts.aggregate", query: "CALL quiver.ts.aggregate({label: 'P', time: 't', bucket: duration('P1D'), aggregates: ['count'], from: date('2024-01-01'), to: date('2024-02-01')})", need: R, denied: "procedure quiver.ts.aggregate"},
		{name: "call storage integrity", query: "CALL quiver.storage.integrity()", need: R | A, denied: "procedure quiver.storage.integrity"},
		{name: "clear the projection cache", query: "CALL algo.cache.clear()", need: R | A, denied: "procedure algo.cache.clear"},
		{name: "call without Requires", query: "CALL test.open()", need: R | A, denied: "procedure test.open"},
		{name: "call requiring write", query: "CALL test.touch()", need: R | W, denied: "procedure test.touch"},
		{name: "call inside a query", query: "MATCH (n:P) CALL test.open() YIELD x RETURN n.id, x", need: R | A, denied: "procedure test.open"},
		{name: "call in a union part", query: "MATCH (n:P) RETURN n.id AS id UNION ALL CALL test.open() YIELD x AS id RETURN id",
			need: R | A, denied: "procedure test.open"},
	}
	principals := []struct {
		name string
		p    *engine.Principal
	}{{"no principal", nil}, {"reader", reader}, {"editor", editor}, {"admin", admin}, {"no roles", nobody}}
	for _, c := range cases {
		for _, pr := range principals {
			t.Run(c.name+"/"+pr.name, func(t *testing.T) {
				dir := ""
				if c.durable {
					dir = t.TempDir()
				}
				db, log := privilegeDB(t, dir)
				s := db.NewSession()
				before := fingerprint(t, s)
				ctx := context.Background()
				held, principal, address := engine.PrivAll, "", ""
				if pr.p != nil {
					ctx = engine.WithPrincipal(ctx, pr.p)
					held, principal, address = pr.p.Privileges, pr.p.Name, pr.p.Address
				}
				res, err := s.Run(ctx, c.mode, c.query, nil)
				if err == nil {
					_, err = drain(res)
				}
				var got []event
				for _, e := range log.take() {
					if e.Principal != principal || e.Address != address {
						t.Errorf("event %+v: want principal %q at %q", e, principal, address)
					}
					got = append(got, event{e.Category, e.Action, e.Outcome, e.Detail})
				}
				want := c.events
				after := fingerprint(t, s)
				if held.Has(c.need) {
					if err != nil && !strings.Contains(c.name, "failed") {
						t.Fatalf("refused or failed: %v", err)
					}
					if c.changes && after == before {
						t.Errorf("the statement changed nothing: %s", after)
					}
					if !c.changes && after != before {
						t.Errorf("the statement changed %s into %s", before, after)
					}
				} else {
					e, ok := errs.As(err)
					if !ok || e.Code != engine.CodePermission || e.Category != engine.CatPermission {
						t.Fatalf("got %v, want 42501", err)
					}
					if !strings.Contains(e.Message, fmt.Sprintf("user %q", pr.p.Name)) {
						t.Errorf("message %q does not name the user", e.Message)
					}
					if after != before {
						t.Errorf("a refused statement changed %s into %s", before, after)
					}
					want = []event{{"authorization", "permission_denied", "denied", c.denied}}
				}
				if !slices.Equal(got, want) {
					t.Errorf("audit events %v, want %v", got, want)
				}
			})
		}
	}
}

// TestPermissionDeniedMessage checks the refusal's wording: what the
// user may not do, their roles, and the roles that would do.
func TestPermissionDeniedMessage(t *testing.T) {
	db, _ := privilegeDB(t, "")
	for _, c := range []struct {
		p     *engine.Principal
		query string
		want  string
	}{
		{reader, "CREATE (:P)", `user "rita" (roles: reader) may not write data: this statement needs the write privilege (role editor or admin)`},
		{editor, "CREATE INDEX FOR (n:P) ON (n.q)", `user "ed" (roles: editor) may not run CREATE INDEX: this statement needs the admin privilege (role admin)`},
		{reader, "CALL quiver.storage.integrity()", `user "rita" (roles: reader) may not call procedure quiver.storage.integrity: it needs the admin privilege (role admin)`},
		{nobody, "MATCH (n) RETURN n", `user "nemo" (roles: none) may not read data: this statement needs the read privilege (role reader, editor or admin)`},
	} {
		_, err := db.Query(engine.WithPrincipal(context.Background(), c.p), c.query, nil)
		if e, ok := errs.As(err); !ok || e.Message != c.want {
			t.Errorf("%s: got %v\nwant %s", c.query, err, c.want)
		}
	}
}

// TestPrivilegesInTransaction checks statements of an explicit
// transaction: a refused one aborts the transaction, as any failed
// statement does, until ROLLBACK TO SAVEPOINT; it wrote nothing.
func TestPrivilegesInTransaction(t *testing.T) {
	db, log := privilegeDB(t, "")
	ctx := engine.WithPrincipal(context.Background(), reader)
	txn, err := db.BeginTransaction(engine.TransactionOptions{Owner: "rita"})
	if err != nil {
		t.Fatal(err)
	}
	if txn.Owner() != "rita" {
		t.Fatalf("owner %q", txn.Owner())
	}
	mustQuery(t, txnQuerier{txn, ctx}, "SAVEPOINT a", nil)
	if got := mustQuery(t, txnQuerier{txn, ctx}, "MATCH (n) RETURN count(n)", nil); got[0] != "2" {
		t.Fatalf("count %v", got)
	}
	for _, q := range []string{"CREATE (:P {id: 3})", "CREATE INDEX FOR (n:P) ON (n.q)"} {
		_, err = txn.Query(ctx, q, nil)
		if e, ok := errs.As(err); !ok || e.Code != engine.CodePermission {
			t.Fatalf("%s: got %v, want 42501", q, err)
		}
		// Aborted: a read is refused too, until the savepoint.
		_, err = txn.Query(ctx, "MATCH (n) RETURN count(n)", nil)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodeTransaction {
			t.Fatalf("after a refusal: got %v, want the transaction aborted", err)
		}
		mustQuery(t, txnQuerier{txn, ctx}, "ROLLBACK TO SAVEPOINT a", nil)
	}
	if got := mustQuery(t, txnQuerier{txn, ctx}, "MATCH (n) RETURN count(n)", nil); got[0] != "2" {
		t.Fatalf("count after the refusals %v", got)
	}
	if _, err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []engine.AuditEvent{
		{Category: "authorization", Action: "permission_denied", Outcome: "denied", Principal: "rita", Address: reader.Address, Detail: "write"},
		{Category: "authorization", Action: "permission_denied", Outcome: "denied", Principal: "rita", Address: reader.Address, Detail: "admin: CREATE INDEX"},
	}
	if got := log.take(); !slices.Equal(got, want) {
		t.Fatalf("audit events %+v, want %+v", got, want)
	}
	// An editor's write in a transaction runs.
	ctx = engine.WithPrincipal(context.Background(), editor)
	txn, err = db.BeginTransaction(engine.TransactionOptions{Owner: "ed"})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, txnQuerier{txn, ctx}, "CREATE (:P {id: 3})", nil)
	if _, err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := mustQuery(t, db, "MATCH (n) RETURN count(n)", nil); got[0] != "3" {
		t.Fatalf("count %v", got)
	}
}

// txnQuerier runs statements in a transaction under a context.
type txnQuerier struct {
	txn *engine.Transaction
	ctx context.Context
}

func (q txnQuerier) Query(_ context.Context, text string, params engine.Params) (*engine.Result, error) {
	return q.txn.Query(q.ctx, text, params)
}

// TestInExplicitTransaction checks what a procedure sees of its
// statement: whether it runs in an explicit transaction, and who runs it.
func TestInExplicitTransaction(t *testing.T) {
	db, _ := privilegeDB(t, "")
	ctx := engine.WithPrincipal(context.Background(), reader)
	if got := mustQuery(t, dbQuerier{db, ctx}, "CALL test.context()", nil); got[0] != "false | 'rita'" {
		t.Fatalf("auto-commit: %v", got)
	}
	if got := mustQuery(t, db, "CALL test.context()", nil); got[0] != "false | null" {
		t.Fatalf("no principal: %v", got)
	}
	txn, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Rollback()
	if got := mustQuery(t, txnQuerier{txn, ctx}, "CALL test.context()", nil); got[0] != "true | 'rita'" {
		t.Fatalf("in a transaction: %v", got)
	}
	if engine.InExplicitTransaction(context.Background()) {
		t.Fatal("a plain context is not in a transaction")
	}
}

// dbQuerier runs statements on a database (auto-commit) under a context.
type dbQuerier struct {
	db  *engine.DB
	ctx context.Context
}

func (q dbQuerier) Query(_ context.Context, text string, params engine.Params) (*engine.Result, error) {
	return q.db.Query(q.ctx, text, params)
}

// TestSetAboveCeilingAudited checks that a SET the operator's ceiling
// refuses is audited as denied, with the principal.
func TestSetAboveCeilingAudited(t *testing.T) {
	log := &auditLog{}
	db, err := engine.Open("", engine.Options{QueryTimeout: time.Second, Auditor: log})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Query(engine.WithPrincipal(context.Background(), admin), "SET query_timeout = 5000", nil)
	if e, ok := errs.As(err); !ok || e.Code != engine.CodePermission {
		t.Fatalf("got %v, want 42501", err)
	}
	want := []engine.AuditEvent{{Category: "settings", Action: "set", Outcome: "denied", Principal: "ada", Address: admin.Address, Detail: "query_timeout=5000"}}
	if got := log.take(); !slices.Equal(got, want) {
		t.Fatalf("audit events %+v, want %+v", got, want)
	}
}

// TestRegisterProcedureRequires refuses privilege bits that mean nothing.
func TestRegisterProcedureRequires(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.RegisterProcedure(engine.ProcedureSignature{Name: "test.bad", Requires: 0x80},
		func(context.Context, []vector.Value) ([][]vector.Value, error) { return nil, nil })
	if err == nil {
		t.Fatal("registered a procedure requiring unknown privileges")
	}
}
