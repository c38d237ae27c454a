package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// gq runs text on db under ctx and returns its rows, or the error.
func gq(ctx context.Context, db querier, text string) ([]string, error) {
	res, err := db.Query(ctx, text, nil)
	if err != nil {
		return nil, err
	}
	return drain(res)
}

func mustG(t *testing.T, ctx context.Context, db querier, text string) []string {
	t.Helper()
	rows, err := gq(ctx, db, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return rows
}

func wantGraphErr(t *testing.T, err error, code, msg string) {
	t.Helper()
	e, ok := engine.AsError(err)
	if !ok || e.Code != code || !strings.Contains(e.Message, msg) {
		t.Fatalf("error %v, want %s saying %q", err, code, msg)
	}
}

// Graphs are separate databases under one server: their own data,
// counts, schema; the catalog survives a reopen; DROP removes the data.
func TestGraphsSeparateAndDurable(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	mustG(t, bg, db, "CREATE GRAPH Sales")
	mustG(t, bg, db, "CREATE GRAPH IF NOT EXISTS sales")
	mustG(t, bg, db, "CREATE (:A {v: 1})")
	sales := engine.WithGraph(bg, "sales")
	mustG(t, sales, db, "CREATE (:B {v: 2}), (:B {v: 3})")
	mustG(t, bg, db, "USE sales CREATE INDEX FOR (n:B) ON (n.v)")
	if got := mustG(t, bg, db, "MATCH (n) RETURN count(n)"); got[0] != "1" {
		t.Fatalf("default graph: %v", got)
	}
	if got := mustG(t, sales, db, "MATCH (n:B) RETURN sum(n.v)"); got[0] != "5" {
		t.Fatalf("sales: %v", got)
	}
	if got := mustG(t, bg, db, "USE sales MATCH (n:A) RETURN count(n)"); got[0] != "0" {
		t.Fatalf("sales sees the default graph's nodes: %v", got)
	}
	if got := mustG(t, sales, db, "SHOW INDEXES"); len(got) != 1 {
		t.Fatalf("sales indexes: %v", got)
	}
	if got := mustG(t, bg, db, "SHOW INDEXES"); len(got) != 0 {
		t.Fatalf("default graph indexes: %v", got)
	}
	if got := mustG(t, bg, db, "CALL quiver.storage.stats('sales') YIELD node_count RETURN node_count"); got[0] != "2" {
		t.Fatalf("stats of sales: %v", got)
	}
	got := mustG(t, bg, db, "SHOW GRAPHS")
	if len(got) != 2 || !strings.HasPrefix(got[0], "'default' | '1' | '0'") || !strings.HasPrefix(got[1], "'sales' | '2' | '0'") {
		t.Fatalf("SHOW GRAPHS: %v", got)
	}
	// A session's USE holds for its later statements.
	s := db.NewSession()
	mustG(t, bg, s, "USE sales")
	if got := mustG(t, bg, s, "MATCH (n) RETURN count(n)"); got[0] != "2" {
		t.Fatalf("after USE: %v", got)
	}
	if got := mustG(t, bg, s, "USE default MATCH (n) RETURN count(n)"); got[0] != "1" {
		t.Fatalf("USE prefix over the session's graph: %v", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustG(t, sales, db, "MATCH (n:B) WHERE n.v = 3 RETURN n.v"); len(got) != 1 {
		t.Fatalf("sales after reopen: %v", got)
	}
	_, err = gq(bg, db, "DROP GRAPH default")
	wantGraphErr(t, err, "22023", "cannot be dropped")
	mustG(t, bg, db, "DROP GRAPH sales")
	if _, err := os.Stat(filepath.Join(dir, engine.GraphsDirName, "sales")); !os.IsNotExist(err) {
		t.Fatalf("the dropped graph's directory is still there: %v", err)
	}
	_, err = gq(sales, db, "MATCH (n) RETURN n")
	wantGraphErr(t, err, "42S02", `graph "sales" does not exist`)
	mustG(t, bg, db, "DROP GRAPH IF EXISTS sales")
	db.Close()
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := mustG(t, bg, db, "SHOW GRAPHS"); len(got) != 1 {
		t.Fatalf("after drop and reopen: %v", got)
	}
	mustG(t, bg, db, "CREATE GRAPH sales")
	if got := mustG(t, sales, db, "MATCH (n) RETURN count(n)"); got[0] != "0" {
		t.Fatalf("a graph created again under a dropped name starts empty: %v", got)
	}
}

func TestGraphStatementErrors(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	mustG(t, bg, db, "CREATE GRAPH g1")
	for _, c := range []struct{ q, code, msg string }{
		{"CREATE GRAPH g1", "42S01", `graph "g1" already exists`},
		{"CREATE GRAPH default", "42S01", "default graph"},
		{"CREATE GRAPH `1x`", "22023", "invalid graph name"},
		{"CREATE GRAPH g2 OPTIONS {max_memory: 'lots'}", "22023", "max_memory must be a positive size"},
		{"CREATE GRAPH g2 OPTIONS {max_disk: -1}", "22023", "max_disk must be a positive size"},
		{"DROP GRAPH nope", "42S02", `graph "nope" does not exist`},
		{"USE nope MATCH (n) RETURN n", "42S02", `graph "nope" does not exist`},
		{"USE nope", "42S02", `graph "nope" does not exist`},
		{"CALL quiver.storage.stats('nope')", "42S02", `graph "nope" does not exist`},
	} {
		_, err := gq(bg, db, c.q)
		wantGraphErr(t, err, c.code, c.msg)
	}
	// A transaction runs on one graph.
	tx, err := db.BeginTransaction(engine.TransactionOptions{Graph: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	mustG(t, bg, tx, "CREATE (:T)")
	_, err = gq(bg, tx, "USE default MATCH (n) RETURN n")
	wantGraphErr(t, err, "40000", `the transaction runs on graph "g1"`)
	tx.Rollback()
	tx, err = db.BeginTransaction(engine.TransactionOptions{Graph: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	mustG(t, bg, tx, "CREATE (:T)")
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := mustG(t, engine.WithGraph(bg, "G1"), db, "MATCH (n:T) RETURN count(n)"); got[0] != "1" {
		t.Fatalf("the transaction's write: %v", got)
	}
	if _, err := db.BeginTransaction(engine.TransactionOptions{Graph: "nope"}); err == nil {
		t.Fatal("a transaction on an unknown graph began")
	}
}

// A user without a grant on a graph cannot tell it from a missing one;
// grants give read, or write; admins see every graph.
func TestGraphGrants(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	mustG(t, bg, db, "CREATE GRAPH team_a")
	mustG(t, engine.WithGraph(bg, "team_a"), db, "CREATE (:X)")
	admin := engine.WithPrincipal(bg, &engine.Principal{Name: "root", Roles: []string{"admin"}, Privileges: engine.PrivRead | engine.PrivWrite | engine.PrivAdmin})
	alice := engine.WithPrincipal(bg, &engine.Principal{Name: "alice", Roles: []string{"analyst"}})
	bob := engine.WithPrincipal(bg, &engine.Principal{Name: "bob", Roles: []string{"reader"}, Privileges: engine.PrivRead})

	_, hidden := gq(alice, db, "USE team_a MATCH (n) RETURN count(n)")
	_, missing := gq(alice, db, "USE team_b MATCH (n) RETURN count(n)")
	wantGraphErr(t, hidden, "42S02", `graph "team_a" does not exist`)
	wantGraphErr(t, missing, "42S02", `graph "team_b" does not exist`)
	if got := mustG(t, bob, db, "SHOW GRAPHS"); len(got) != 1 || !strings.HasPrefix(got[0], "'default'") {
		t.Fatalf("bob's SHOW GRAPHS: %v", got)
	}
	_, err = gq(bob, db, "CALL dbms.security.grant('analyst', 'team_a', 'read')")
	wantGraphErr(t, err, "42501", "")
	_, err = gq(bob, db, "CREATE GRAPH x")
	wantGraphErr(t, err, "42501", "CREATE GRAPH needs the admin privilege")

	mustG(t, admin, db, "CALL dbms.security.grant('analyst', 'team_a', 'read')")
	if got := mustG(t, alice, db, "USE team_a MATCH (n) RETURN count(n)"); got[0] != "1" {
		t.Fatalf("alice reads team_a: %v", got)
	}
	_, err = gq(engine.WithGraph(alice, "team_a"), db, "CREATE (:X)")
	wantGraphErr(t, err, "42501", "")
	// Her roles give nothing on the default graph.
	_, err = gq(alice, db, "MATCH (n) RETURN count(n)")
	wantGraphErr(t, err, "42501", "")
	mustG(t, admin, db, "CALL dbms.security.grant('analyst', 'team_a', 'write')")
	mustG(t, engine.WithGraph(alice, "team_a"), db, "CREATE (:X)")
	if got := mustG(t, alice, db, "USE team_a CALL quiver.tenant.list() YIELD name, nodes RETURN name, nodes"); len(got) != 2 || got[1] != "'team_a' | 2" {
		t.Fatalf("alice's graphs: %v", got)
	}
	if got := mustG(t, admin, db, "CALL dbms.security.listGrants()"); len(got) != 1 || got[0] != "'analyst' | 'team_a' | 'write'" {
		t.Fatalf("grants: %v", got)
	}
	mustG(t, admin, db, "CALL dbms.security.revoke('analyst', 'team_a', 'write')")
	_, err = gq(engine.WithGraph(alice, "team_a"), db, "CREATE (:X)")
	wantGraphErr(t, err, "42501", "")
	mustG(t, admin, db, "CALL dbms.security.revoke('analyst', 'team_a', 'read')")
	_, err = gq(alice, db, "USE team_a MATCH (n) RETURN count(n)")
	wantGraphErr(t, err, "42S02", "does not exist")
	_, err = gq(admin, db, "CALL dbms.security.grant('analyst', 'team_a', 'admin')")
	wantGraphErr(t, err, "22023", "unknown privilege")
	_, err = gq(admin, db, "CALL dbms.security.grant('analyst', 'nope', 'read')")
	wantGraphErr(t, err, "42S02", "does not exist")
	// A transaction begun for a hidden graph is refused alike.
	_, err = db.BeginTransaction(engine.TransactionOptions{Graph: "team_a", Principal: &engine.Principal{Name: "alice", Roles: []string{"analyst"}}})
	wantGraphErr(t, err, "42S02", "does not exist")
}

// A graph's memory budget stops its statements, naming the graph; its
// disk quota refuses writes once reached.
func TestGraphQuotas(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	mustG(t, bg, db, "CREATE GRAPH small OPTIONS {max_memory: '4MB', max_disk: '1MB'}")
	small := engine.WithGraph(bg, "small")
	_, err = gq(small, db, "UNWIND range(1, 2000000) AS i WITH i ORDER BY i DESC RETURN collect(toString(i))")
	wantGraphErr(t, err, "53200", `memory budget of graph small`)
	// The same statement on the default graph fits the server's budget.
	if _, err := gq(bg, db, "UNWIND range(1, 200000) AS i WITH i ORDER BY i DESC RETURN count(toString(i))"); err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 1000 && werr == nil; i++ {
		_, werr = gq(small, db, "UNWIND range(1, 2000) AS i CREATE (:P {s: 'padding padding padding padding padding', i: i})")
	}
	wantGraphErr(t, werr, "53100", `graph "small" is over its disk quota`)
	if got := mustG(t, small, db, "MATCH (n:P) RETURN count(n) > 0"); got[0] != "true" {
		t.Fatalf("reads still run over the quota: %v", got)
	}
	if got := mustG(t, bg, db, "CALL quiver.tenant.list() YIELD name, max_disk, disk_bytes WHERE name = 'small' RETURN max_disk, disk_bytes >= max_disk"); got[0] != "1048576 | true" {
		t.Fatalf("tenant.list: %v", got)
	}
	// Quotas change in place: without max_disk writes run again, and a
	// larger max_memory takes the statement the small one stopped.
	mustG(t, bg, db, "CALL quiver.tenant.setQuota('small', {max_disk: null, max_memory: '1GB'})")
	mustG(t, small, db, "CREATE (:P)")
	mustG(t, small, db, "UNWIND range(1, 2000000) AS i WITH i ORDER BY i DESC RETURN count(toString(i))")
	if got := mustG(t, bg, db, "CALL quiver.tenant.list() YIELD name, max_memory, max_disk WHERE name = 'small' RETURN max_memory, max_disk"); got[0] != "1073741824 | 0" {
		t.Fatalf("after setQuota: %v", got)
	}
	_, err = gq(bg, db, "CALL quiver.tenant.setQuota('small', {max_cpu: 1})")
	wantGraphErr(t, err, "22023", "unknown option max_cpu")
	_, err = gq(bg, db, "CALL quiver.tenant.setQuota('nope', {max_disk: 10})")
	wantGraphErr(t, err, "42S02", "does not exist")
	db.Close()
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := mustG(t, bg, db, "CALL quiver.tenant.list() YIELD name, max_memory, max_disk WHERE name = 'small' RETURN max_memory, max_disk"); got[0] != "1073741824 | 0" {
		t.Fatalf("quotas after reopen: %v", got)
	}
}

// Statements on a graph while it is created and dropped over and over
// either run on it or fail with a clear error (42S02, or 08006 for the
// ones the drop closed under them); none hangs, panics or reaches
// another graph.
func TestGraphDropUnderLoad(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	mustG(t, bg, db, "CREATE (:Keep)")
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 4)
	for w := 0; w < 3; w++ {
		go func() {
			g := engine.WithGraph(ctx, "churn")
			for ctx.Err() == nil {
				_, err := gq(g, db, "UNWIND range(1, 20) AS i CREATE (:N {i: i})")
				if err == nil {
					_, err = gq(g, db, "MATCH (n:N) RETURN count(n)")
				}
				if err != nil && ctx.Err() != nil {
					break // the test's own cancel, at its end, stopped the statement
				}
				if e, ok := engine.AsError(err); err != nil && (!ok || (e.Code != "42S02" && e.Code != "08006")) {
					done <- fmt.Errorf("a statement on a churning graph: %v", err)
					return
				}
			}
			done <- nil
		}()
	}
	for i := 0; i < 20; i++ {
		mustG(t, bg, db, "CREATE GRAPH churn")
		mustG(t, bg, db, "DROP GRAPH churn")
	}
	cancel()
	for w := 0; w < 3; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := mustG(t, bg, db, "MATCH (n) RETURN count(n)"); got[0] != "1" {
		t.Fatalf("the default graph holds %v nodes, want its 1", got)
	}
}

// Row-level security policies belong to a graph: one made with USE g
// filters g's reads for a role granted on g, and nothing of the default
// graph; policies of the default graph do not reach g.
func TestGraphRowSecurity(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bg := context.Background()
	admin := engine.WithPrincipal(bg, &engine.Principal{Name: "root", Roles: []string{"admin"}, Privileges: engine.PrivRead | engine.PrivWrite | engine.PrivAdmin})
	mustG(t, admin, db, "CREATE GRAPH g")
	mustG(t, admin, db, "USE g CREATE (:P {region: 'eu'}), (:P {region: 'us'})")
	mustG(t, admin, db, "CREATE (:P {region: 'eu'}), (:P {region: 'us'}), (:P {region: 'us'})")
	mustG(t, admin, db, "USE g CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['analyst', 'reader'], predicate: 'n.region = $user.region'})")
	mustG(t, admin, db, "CALL dbms.security.grant('analyst', 'g', 'read')")
	eu := func(roles ...string) context.Context {
		p := &engine.Principal{Name: "ana", Roles: roles, Attributes: map[string]any{"region": "eu"}}
		if len(roles) == 1 && roles[0] == "reader" {
			p.Privileges = engine.PrivRead
		}
		return engine.WithPrincipal(bg, p)
	}
	if got := mustG(t, eu("analyst"), db, "USE g MATCH (n:P) RETURN count(n)"); got[0] != "1" {
		t.Fatalf("the analyst sees %v nodes of g, want her region's 1", got)
	}
	if got := mustG(t, eu("reader"), db, "MATCH (n:P) RETURN count(n)"); got[0] != "3" {
		t.Fatalf("a reader on the default graph sees %v nodes, want all 3: g's policy is g's", got)
	}
	if got := mustG(t, admin, db, "USE g MATCH (n:P) RETURN count(n)"); got[0] != "2" {
		t.Fatalf("the admin sees %v nodes of g, want 2", got)
	}
	if got := mustG(t, admin, db, "CALL quiver.rls.list() YIELD name RETURN count(name)"); got[0] != "0" {
		t.Fatalf("the default graph lists %v policies, want none", got)
	}
}
