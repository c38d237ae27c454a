package engine_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Row-level security (docs/row-security.md): tests of the policies'
// procedures and of what a restricted principal reads.

// as runs statements on db under a principal.
type as struct {
	db *engine.DB
	p  *engine.Principal
}

func (a as) Query(ctx context.Context, text string, params engine.Params) (*engine.Result, error) {
	return a.db.Query(engine.WithPrincipal(ctx, a.p), text, params)
}

func adminOf(db *engine.DB) as {
	return as{db, &engine.Principal{Name: "root", Roles: []string{"admin"}, Privileges: engine.PrivAll}}
}

func readerOf(db *engine.DB, attrs map[string]vector.Value, roles ...string) as {
	if len(roles) == 0 {
		roles = []string{"reader"}
	}
	priv := engine.PrivRead
	if slices.Contains(roles, "editor") {
		priv |= engine.PrivWrite
	}
	return as{db, &engine.Principal{Name: "ann", Roles: roles, Privileges: priv, Attributes: attrs}}
}

func rlsSorted(rows []string) string {
	rows = slices.Clone(rows)
	slices.Sort(rows)
	return strings.ReplaceAll(strings.Join(rows, ","), "'", "")
}

func rlsGraph(t *testing.T, db *engine.DB) {
	t.Helper()
	mustQuery(t, db, `CREATE (a:P {name: 'a', region: 'eu'}), (b:P {name: 'b', region: 'us'}), (c:P {name: 'c', region: 'eu'}),
		(d:P:Q {name: 'd', region: 'us'}), (x {name: 'x'}),
		(a)-[:K {s: 1}]->(b), (a)-[:K {s: 0}]->(c), (c)-[:K {s: 0}]->(d), (b)-[:K {s: 0}]->(c), (c)-[:L]->(x)`, nil)
}

func TestRowSecurityBasics(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rlsGraph(t, db)
	admin := adminOf(db)
	mustQuery(t, admin, `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
	mustQuery(t, admin, `CALL quiver.rls.createPolicy('nos', {type: 'K', roles: ['reader'], predicate: 'r.s = 0'})`, nil)
	eu := readerOf(db, map[string]vector.Value{"region": "eu"})
	for _, c := range []struct{ q, want string }{
		{"MATCH (n:P) RETURN n.name", "a,c"},
		{"MATCH (n) RETURN n.name", "a,c,x"},
		{"MATCH (n:P) RETURN count(*)", "2"},
		{"MATCH (n) RETURN count(*)", "3"},
		{"MATCH ()-[r]->() RETURN count(*)", "2"}, // a→c, c→x: a→b hidden (s=1, b hidden), c→d (d hidden)
		{"MATCH (a)-[:K]->(b) RETURN a.name + b.name", "ac"},
		{"MATCH (a {name: 'a'}) OPTIONAL MATCH (a)-[:K]->(b {region: 'us'}) RETURN a.name, b.name", "a | null"},
		{"MATCH (a {name: 'a'})-[*1..3]->(b) RETURN b.name", "c,x"},
		{"MATCH p = shortestPath((a {name: 'a'})-[*]->(b {name: 'x'})) RETURN length(p)", "2"},
		{"MATCH (n:P) WHERE EXISTS { (n)-->() } RETURN n.name", "a,c"},
		{"MATCH (n:P) RETURN n.name, COUNT { (n)-->() }", "a | 1,c | 1"},
		{"MATCH (n:Q) RETURN count(n)", "0"},
		{"MATCH (n) WHERE id(n) = 1 RETURN n.name", ""},
	} {
		if got := rlsSorted(mustQuery(t, eu, c.q, nil)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	// The admin bypasses the policies; another region sees its own rows.
	if got := rlsSorted(mustQuery(t, admin, "MATCH (n:P) RETURN n.name", nil)); got != "a,b,c,d" {
		t.Errorf("admin: %s", got)
	}
	us := readerOf(db, map[string]vector.Value{"region": "us"})
	if got := rlsSorted(mustQuery(t, us, "MATCH (n:P) RETURN n.name", nil)); got != "b,d" {
		t.Errorf("us: %s", got)
	}
	// An editor is not named by the policies: unrestricted.
	ed := readerOf(db, map[string]vector.Value{"region": "eu"}, "editor")
	if got := rlsSorted(mustQuery(t, ed, "MATCH (n:P) RETURN n.name", nil)); got != "a,b,c,d" {
		t.Errorf("editor: %s", got)
	}
	// No attribute: the predicate is null, which hides.
	none := readerOf(db, nil)
	if got := rlsSorted(mustQuery(t, none, "MATCH (n:P) RETURN n.name", nil)); got != "" {
		t.Errorf("no attribute: %s", got)
	}
	// The list and the drop.
	if got := rlsSorted(mustQuery(t, admin, "CALL quiver.rls.list()", nil)); got != `nos | [:K] | [reader] | r.s = 0,region | :P | [reader] | n.region = $user.region` {
		t.Errorf("list: %s", got)
	}
	mustQuery(t, admin, "CALL quiver.rls.dropPolicy('region')", nil)
	if got := rlsSorted(mustQuery(t, eu, "MATCH (n:P) RETURN n.name", nil)); got != "a,b,c,d" {
		t.Errorf("after drop: %s", got)
	}
}

// A policy's plan is the principal's own: the same text run by two
// users, and by one user whose attribute changed, answers for each.
func TestRowSecurityNoPlanReuse(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rlsGraph(t, db)
	mustQuery(t, adminOf(db), `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
	q := "MATCH (n:P) RETURN n.name"
	attrs := map[string]vector.Value{"region": "eu"}
	for i, want := range []string{"a,c", "a,c", "b,d"} {
		if i == 2 {
			attrs = map[string]vector.Value{"region": "us"}
		}
		if got := rlsSorted(mustQuery(t, readerOf(db, attrs), q, nil)); got != want {
			t.Errorf("run %d: %s, want %s", i, got, want)
		}
	}
	if got := rlsSorted(mustQuery(t, db, q, nil)); got != "a,b,c,d" {
		t.Errorf("unrestricted: %s", got)
	}
}

func TestRowSecurityErrors(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rlsGraph(t, db)
	admin := adminOf(db)
	mustQuery(t, admin, `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
	for _, c := range []struct{ q, code, has string }{
		{`CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'true'})`, errs.CodeObjectExists, "already exists"},
		{`CALL quiver.rls.dropPolicy('nope')`, errs.CodeNoObject, "no policy"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: 'n.region = '})`, errs.CodeSyntax, "invalid predicate"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: 'm.region = 1'})`, errs.CodeSyntax, "m is not defined"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: 'rand() < 0.5'})`, errs.CodeSyntax, "rand"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: 'EXISTS { (n)-->() }'})`, errs.CodeSyntax, "cannot use"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: 'n.x = $other'})`, errs.CodeSyntax, "$user only"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: '1 + 2'})`, errs.CodeSyntax, "not a BOOLEAN"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', type: 'K', roles: ['reader'], predicate: 'true'})`, errs.CodeInvalidParam, "exactly one"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['the boss'], predicate: 'true'})`, errs.CodeInvalidParam, "invalid role"},
		{`CALL quiver.rls.createPolicy('p2', {label: 'P', predicate: 'true'})`, errs.CodeInvalidParam, "at least one role"},
	} {
		e := queryErr(t, admin, c.q, nil)
		if e.Code != c.code || !strings.Contains(e.Message, c.has) {
			t.Errorf("%s: %s %s", c.q, e.Code, e.Message)
		}
	}
	if e := queryErr(t, admin, `CALL quiver.rls.createPolicy('p2', {label: 'P', roles: ['reader'], predicate: 'n.a =\n n.b AND'})`, nil); e.Position == nil || e.Position.Line != 2 {
		t.Errorf("no position: %v", e)
	}
	// Not an admin: 42501.
	eu := readerOf(db, map[string]vector.Value{"region": "eu"})
	for _, q := range []string{`CALL quiver.rls.list()`, `CALL quiver.rls.dropPolicy('region')`} {
		if e := queryErr(t, eu, q, nil); e.Code != errs.CodePermission {
			t.Errorf("%s: %s", q, e.Code)
		}
	}
	// What restricted principals cannot run.
	ed := readerOf(db, map[string]vector.Value{"region": "eu"}, "reader", "editor")
	for _, q := range []string{
		"CALL algo.cache.clear()",
		"CALL algo.cache.stats()",
		"CALL quiver.storage.stats()",
		"CALL db.labels()",
		"MATCH (n:P) RETURN outdegree(n)",
		"MATCH (a)-[*1..2]->(b) RETURN count(*) UNION ALL MATCH p = ((x)-[:K]->(y)){1,2} RETURN count(*)",
		"MATCH p = ANY SHORTEST (a {name: 'a'})-[*]->(b) RETURN p",
		"CREATE (:P {region: 'eu'})",
		"MATCH (n:P) SET n.region = 'us'",
		"MATCH (n {name: 'x'}) SET n:P",
		"MATCH (n:P) DETACH DELETE n",
	} {
		if e := queryErr(t, ed, q, nil); e.Code != errs.CodePermission {
			t.Errorf("%s: %s %s", q, e.Code, e.Message)
		}
	}
	// Writes the policies do not concern run.
	mustQuery(t, ed, "MATCH (n:P {name: 'a'}) SET n.note = 1", nil)
	if got := one(t, db, "MATCH (n) WHERE n.note = 1 RETURN n.name"); got != "'a'" {
		t.Errorf("note: %s", got)
	}
	// A hidden row cannot be written: MATCH never binds it.
	mustQuery(t, ed, "MATCH (n:P {name: 'b'}) SET n.note = 2", nil)
	if got := one(t, db, "MATCH (n) WHERE n.note = 2 RETURN count(*)"); got != "0" {
		t.Errorf("wrote a hidden row: %s", got)
	}
}

// Policies are system records: they survive a restart.
func TestRowSecurityDurable(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rlsGraph(t, db)
	mustQuery(t, adminOf(db), `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := rlsSorted(mustQuery(t, readerOf(db, map[string]vector.Value{"region": "eu"}), "MATCH (n:P) RETURN n.name", nil)); got != "a,c" {
		t.Errorf("after restart: %s", got)
	}
}

// Policy changes are audited with their outcome, and an admin's
// statements while policies exist are audited as bypasses.
func TestRowSecurityAudit(t *testing.T) {
	log := &auditLog{}
	db, err := engine.Open("", engine.Options{Auditor: log})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rlsGraph(t, db)
	admin := adminOf(db)
	mustQuery(t, admin, "MATCH (n:P) RETURN count(*)", nil)
	if ev := log.take(); len(ev) != 0 {
		t.Fatalf("audited without policies: %+v", ev)
	}
	mustQuery(t, admin, `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
	queryErr(t, admin, `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'true'})`, nil)
	mustQuery(t, admin, "MATCH (n:P) RETURN count(*)", nil)
	var got []string
	for _, e := range log.take() {
		got = append(got, e.Action+" "+e.Outcome+" "+e.Principal)
	}
	want := []string{"rls_createPolicy success root", "rls_bypass success root", "rls_createPolicy failure root", "rls_bypass success root"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("audit: %v, want %v", got, want)
	}
	// A restricted principal's statements are not bypasses.
	mustQuery(t, readerOf(db, nil), "MATCH (n:P) RETURN count(*)", nil)
	if ev := log.take(); len(ev) != 0 {
		t.Fatalf("audited a restricted statement: %+v", ev)
	}
}

// Policies created and dropped while restricted statements run: each
// statement reads under the policies before or after a change, never a
// mix, and the policy cache is race-free (go test -race).
func TestRowSecurityConcurrentChanges(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rlsGraph(t, db)
	admin := adminOf(db)
	eu := readerOf(db, map[string]vector.Value{"region": "eu"})
	done := make(chan struct{})
	errc := make(chan string, 4)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				res, err := eu.Query(context.Background(), "MATCH (n:P) RETURN n.name", nil)
				if err != nil {
					errc <- err.Error()
					return
				}
				rows, err := drain(res)
				if err != nil {
					errc <- err.Error()
					return
				}
				if got := rlsSorted(rows); got != "a,c" && got != "a,b,c,d" {
					errc <- got
					return
				}
			}
		}()
	}
	for range 20 {
		mustQuery(t, admin, `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
		mustQuery(t, admin, `CALL quiver.rls.dropPolicy('region')`, nil)
	}
	close(done)
	wg.Wait()
	select {
	case e := <-errc:
		t.Fatalf("a reader saw %s", e)
	default:
	}
	// After the last drop nothing is filtered; after a create, at once.
	if got := rlsSorted(mustQuery(t, eu, "MATCH (n:P) RETURN n.name", nil)); got != "a,b,c,d" {
		t.Errorf("after the drops: %s", got)
	}
	mustQuery(t, admin, `CALL quiver.rls.createPolicy('region', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region'})`, nil)
	if got := rlsSorted(mustQuery(t, eu, "MATCH (n:P) RETURN n.name", nil)); got != "a,c" {
		t.Errorf("right after the create: %s", got)
	}
}
