package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// planCacheDB opens a database with the plan cache checked against fresh
// plans (CheckPlanCache) and ten :Person nodes, ids 0–9, names 'p0'–'p9'.
func planCacheDB(t *testing.T, opts engine.Options) *engine.DB {
	t.Helper()
	engine.CheckPlanCache(t)
	db := openTestDBWith(t, opts)
	mustQuery(t, db, "UNWIND range(0, 9) AS i CREATE (:Person {id: i, name: 'p' + toString(i), age: 20 + i})", nil)
	if opts.PlanCacheEntries < 0 {
		return db
	}
	t.Cleanup(func() {
		if m := engine.PlanCacheMismatches(); len(m) > 0 {
			t.Errorf("cached plans differ from fresh ones: %v", m)
		}
	})
	return db
}

// hits is the plan cache's hit count.
func hits(db *engine.DB) int64 {
	h, _, _ := engine.PlanCacheCounts(db)
	return h
}

// errCodeOf runs text and returns its error's code ("" when it succeeds).
func errCodeOf(t *testing.T, q querier, text string, params engine.Params) string {
	t.Helper()
	res, err := q.Query(context.Background(), text, params)
	if err == nil {
		_, err = drain(res)
	}
	if err == nil {
		return ""
	}
	e, ok := engine.AsError(err)
	if !ok {
		t.Fatalf("%s: not an engine error: %v", text, err)
	}
	pos := ""
	if e.Position != nil {
		pos = fmt.Sprintf(" %d:%d", e.Position.Line, e.Position.Column)
	}
	return e.Code + pos
}

// A repeated text runs on the cached plan and returns what the first
// run returned; other parameter values give their own answers.
func TestPlanCacheHit(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	const q = "MATCH (p:Person {id: $id}) RETURN p.name"
	for i := range 3 {
		got := mustQuery(t, db, q, engine.Params{"id": int64(i)})
		if want := fmt.Sprintf("'p%d'", i); len(got) != 1 || got[0] != want {
			t.Fatalf("id %d: %v, want %s", i, got, want)
		}
	}
	if h := hits(db); h != 2 {
		t.Fatalf("hits = %d, want 2", h)
	}
	off := planCacheDB(t, engine.Options{PlanCacheEntries: -1})
	for range 2 {
		if got := mustQuery(t, off, q, engine.Params{"id": int64(1)}); len(got) != 1 || got[0] != "'p1'" {
			t.Fatalf("cache off: %v", got)
		}
	}
	if h, m, n := engine.PlanCacheCounts(off); h != 0 || m != 0 || n != 0 {
		t.Fatalf("cache off: hits %d, misses %d, entries %d", h, m, n)
	}
}

// A parameter of another type binds another plan: right answers, and a
// value the plan cannot use is a 22023 whether the text's plan is cached
// or not.
func TestPlanCacheParamTypes(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	off := planCacheDB(t, engine.Options{PlanCacheEntries: -1})
	cases := []struct {
		text   string
		params engine.Params
		want   string
	}{
		{"RETURN $x * 2 AS y", engine.Params{"x": int64(4)}, "8"},
		{"RETURN $x * 2 AS y", engine.Params{"x": "s"}, "error 22023 1:11"},
		{"RETURN $x * 2 AS y", engine.Params{"x": 1.5}, "3.0"},
		{"RETURN $x * 2 AS y", engine.Params{"x": nil}, "null"},
		{"RETURN $x * 2 AS y", engine.Params{"x": int64(5)}, "10"},
		{"RETURN $x * 2 AS y", engine.Params{"x": []vector.Value{int64(1)}}, "error 22000"},
		{"RETURN $x * 2 AS y", engine.Params{"x": "s"}, "error 22023 1:11"},
		{"MATCH (p:Person) WHERE p.id = $x RETURN p.name", engine.Params{"x": int64(3)}, "'p3'"},
		{"MATCH (p:Person) WHERE p.id = $x RETURN p.name", engine.Params{"x": "3"}, ""},
		{"MATCH (p:Person) WHERE p.id = $x RETURN p.name", engine.Params{"x": nil}, ""},
		{"MATCH (p:Person) WHERE p.id = $x RETURN p.name", engine.Params{"x": int64(4)}, "'p4'"},
		{"UNWIND $l AS x RETURN x * 2 AS y", engine.Params{"l": []vector.Value{int64(1), int64(2)}}, "2,4"},
		{"UNWIND $l AS x RETURN x * 2 AS y", engine.Params{"l": []vector.Value{"a"}}, "error 22023 1:25"},
		{"UNWIND $l AS x RETURN x * 2 AS y", engine.Params{"l": []vector.Value{1.5}}, "3.0"},
		{"UNWIND $l AS x RETURN x * 2 AS y", engine.Params{"l": []vector.Value{int64(7)}}, "14"},
		{"MATCH (p:Person) RETURN p.id ORDER BY p.id LIMIT $n", engine.Params{"n": int64(2)}, "0,1"},
		{"MATCH (p:Person) RETURN p.id ORDER BY p.id LIMIT $n", engine.Params{"n": int64(-1)}, "error 22023 1:50"},
		{"MATCH (p:Person) RETURN p.id ORDER BY p.id LIMIT $n", engine.Params{"n": int64(1)}, "0"},
		{"MATCH (p:Person) RETURN p.id ORDER BY p.id SKIP $n", engine.Params{"n": int64(8)}, "8,9"},
		{"MATCH (p:Person) RETURN p.id ORDER BY p.id SKIP $n", engine.Params{"n": int64(-3)}, "error 22023 1:49"},
	}
	for _, c := range cases {
		for _, q := range []*engine.DB{db, off} {
			var got string
			if code := errCodeOf(t, q, c.text, c.params); code != "" {
				got = "error " + code
			} else {
				got = strings.Join(mustQuery(t, q, c.text, c.params), ",")
			}
			if got != c.want {
				t.Errorf("%s %v (cache off: %v): %q, want %q", c.text, c.params, q == off, got, c.want)
			}
		}
	}
	if hits(db) == 0 {
		t.Fatal("no plan was taken from the cache")
	}
}

// CREATE (n $props) makes the map's entries constant properties: its
// plan holds the value and is made afresh for each map.
func TestPlanCacheValueBound(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	const q = "CREATE (n:M $props) RETURN n.a, n.b"
	for i, props := range []map[string]vector.Value{{"a": int64(1)}, {"a": int64(2), "b": "x"}, {"b": "y"}} {
		got := mustQuery(t, db, q, engine.Params{"props": props})
		want := []string{"1 | null", "2 | 'x'", "null | 'y'"}[i]
		if len(got) != 1 || got[0] != want {
			t.Fatalf("props %v: %v, want %s", props, got, want)
		}
	}
	if h := hits(db); h != 0 {
		t.Fatalf("hits = %d: a plan holding a parameter's value was reused", h)
	}
}

// seekIndex returns the index an EXPLAIN of text seeks, "" for none.
func seekIndex(t *testing.T, q querier, text string, params engine.Params) string {
	t.Helper()
	for _, op := range unionPlan(t, q, text, params) {
		if i := strings.Index(op, "("); i > 0 {
			return op[i+1 : len(op)-1]
		}
	}
	return ""
}

// Creating or dropping an index or a constraint between two runs of a
// text changes its plan, committed or in the run's own transaction; a
// dropped index is never read.
func TestPlanCacheSchemaChanges(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	const q = "MATCH (p:Person {id: $id}) RETURN p.name"
	params := engine.Params{"id": int64(3)}
	check := func(where string, qr querier, want string) {
		t.Helper()
		if got := seekIndex(t, qr, q, params); got != want {
			t.Fatalf("%s: EXPLAIN seeks %q, want %q", where, got, want)
		}
		if got := mustQuery(t, qr, q, params); len(got) != 1 || got[0] != "'p3'" {
			t.Fatalf("%s: %v", where, got)
		}
	}
	check("no index", db, "")
	check("no index, again", db, "")
	mustQuery(t, db, "CREATE INDEX person_id FOR (p:Person) ON (p.id)", nil)
	check("after CREATE INDEX", db, "person_id")
	check("after CREATE INDEX, again", db, "person_id")
	mustQuery(t, db, "DROP INDEX person_id", nil)
	check("after DROP INDEX", db, "")

	// In a transaction: its own index, not seen outside it.
	txn, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, txn, "CREATE INDEX person_id2 FOR (p:Person) ON (p.id)", nil)
	check("in the transaction", txn, "person_id2")
	check("outside the transaction", db, "")
	check("in the transaction, again", txn, "person_id2")
	mustQuery(t, txn, "DROP INDEX person_id2", nil)
	check("in the transaction, dropped", txn, "")
	if _, err := txn.Rollback(); err != nil {
		t.Fatal(err)
	}
	check("after the rollback", db, "")

	// A UNIQUE constraint brings its index; dropping it takes it away.
	mustQuery(t, db, "CREATE CONSTRAINT person_unique ON (p:Person) ASSERT p.id IS UNIQUE", nil)
	if got := seekIndex(t, db, q, params); got == "" {
		t.Fatal("after CREATE CONSTRAINT: no index seek")
	}
	check("after CREATE CONSTRAINT, again", db, seekIndex(t, db, q, params))
	mustQuery(t, db, "DROP CONSTRAINT person_unique", nil)
	check("after DROP CONSTRAINT", db, "")
}

// Labels and property keys created after a plan was cached are found.
func TestPlanCacheNewNames(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	const q = "MATCH (n:Later) RETURN count(*) AS c, sum(n.fresh) AS s"
	if got := mustQuery(t, db, q, nil); got[0] != "0 | 0" {
		t.Fatalf("before: %v", got)
	}
	mustQuery(t, db, "CREATE (:Later {fresh: 5}), (:Later {fresh: 6})", nil)
	if got := mustQuery(t, db, q, nil); got[0] != "2 | 11" {
		t.Fatalf("after: %v", got)
	}
	if hits(db) == 0 {
		t.Fatal("the second run did not take the cached plan")
	}
}

// The rules switched off are part of the key: switching one off changes
// the plan of a cached text.
func TestPlanCacheDisabledRules(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	mustQuery(t, db, "CREATE INDEX person_id FOR (p:Person) ON (p.id)", nil)
	const q = "MATCH (n {id: $id}) RETURN n.name"
	params := engine.Params{"id": int64(2)}
	ops := func() []string { return unionPlan(t, db, q, params) }
	for range 2 { // planned, then from the cache
		if !hasOp(ops(), "IndexUnion(person_id)") {
			t.Fatalf("rule on: %v", ops())
		}
	}
	engine.SetDisabledRules(db, []string{"index-union"})
	if hasOp(ops(), "IndexUnion(person_id)") {
		t.Fatalf("index-union off: %v", ops())
	}
	if got := mustQuery(t, db, q, params); len(got) != 1 || got[0] != "'p2'" {
		t.Fatalf("index-union off: %v", got)
	}
	engine.SetDisabledRules(db, nil)
	if !hasOp(ops(), "IndexUnion(person_id)") {
		t.Fatalf("rule on again: %v", ops())
	}
}

// A procedure registered again replaces the one a cached plan calls.
func TestPlanCacheProcedures(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	register := func(v int64) {
		err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.v", Outputs: []engine.ProcedureField{{Name: "v", Type: "INTEGER"}}},
			func(context.Context, []vector.Value) ([][]vector.Value, error) { return [][]vector.Value{{v}}, nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	const q = "CALL test.v() YIELD v RETURN v"
	register(1)
	for range 2 {
		if got := mustQuery(t, db, q, nil); got[0] != "1" {
			t.Fatalf("first procedure: %v", got)
		}
	}
	register(2)
	if got := mustQuery(t, db, q, nil); got[0] != "2" {
		t.Fatalf("after registering again: %v", got)
	}
}

// Privileges are checked on every run, the cached ones too.
func TestPlanCachePrivileges(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	const q = "MATCH (p:Person {id: 1}) SET p.age = 50 RETURN p.age"
	editor := engine.WithPrincipal(context.Background(), &engine.Principal{Name: "ed", Privileges: engine.PrivRead | engine.PrivWrite})
	reader := engine.WithPrincipal(context.Background(), &engine.Principal{Name: "rita", Privileges: engine.PrivRead})
	for range 2 {
		res, err := db.Query(editor, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
	}
	_, err := db.Query(reader, q, nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "42501" {
		t.Fatalf("a reader's write on a cached plan: %v, want 42501", err)
	}
	if hits(db) == 0 {
		t.Fatal("no plan was taken from the cache")
	}
}

// The cache holds at most its bound of entries.
func TestPlanCacheBound(t *testing.T) {
	db := planCacheDB(t, engine.Options{PlanCacheEntries: 8})
	for i := range 100 {
		mustQuery(t, db, fmt.Sprintf("RETURN %d AS x", i), nil)
	}
	if _, _, n := engine.PlanCacheCounts(db); n > 8 {
		t.Fatalf("%d entries, bound 8", n)
	}
	// A text evicted and run again is planned again.
	if got := mustQuery(t, db, "RETURN 0 AS x", nil); got[0] != "0" {
		t.Fatalf("evicted text: %v", got)
	}
}

// Concurrent runs of the same texts share the cached plans (go test
// -race finds a write to a shared plan) and each gets its own answer.
func TestPlanCacheConcurrent(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	mustQuery(t, db, "CREATE INDEX person_id FOR (p:Person) ON (p.id)", nil)
	mustQuery(t, db, "MATCH (a:Person), (b:Person) WHERE b.id = a.id + 1 CREATE (a)-[:NEXT {w: a.id}]->(b)", nil)
	texts := []struct {
		text string
		want func(id int64) string
	}{
		{"MATCH (p:Person {id: $id}) RETURN p.name", func(id int64) string { return fmt.Sprintf("'p%d'", id) }},
		{"MATCH (a:Person {id: $id})-[:NEXT*1..3]->(b) RETURN count(b)", func(id int64) string { return fmt.Sprint(min(3, 9-id)) }},
		{"MATCH (p:Person) WHERE p.id >= $id RETURN count(*), sum(p.age)", func(id int64) string {
			s := int64(0)
			for i := id; i < 10; i++ {
				s += 20 + i
			}
			return fmt.Sprintf("%d | %d", 10-id, s)
		}},
		{"MATCH (p:Person) WHERE p.id < $id RETURN p.id ORDER BY p.id DESC LIMIT 1", func(id int64) string {
			if id == 0 {
				return ""
			}
			return fmt.Sprint(id - 1)
		}},
		{"PROFILE MATCH (a:Person)-[r:NEXT]->(b) WHERE r.w = $id RETURN b.id", func(id int64) string {
			if id == 9 {
				return ""
			}
			return fmt.Sprint(id + 1)
		}},
	}
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				c := texts[(g+i)%len(texts)]
				id := int64((g*7 + i) % 10)
				res, err := db.Query(context.Background(), c.text, engine.Params{"id": id})
				var rows []string
				if err == nil {
					rows, err = drain(res)
				}
				if err != nil {
					errc <- err
					return
				}
				if got := strings.Join(rows, ","); got != c.want(id) {
					errc <- fmt.Errorf("%s with id %d: %q, want %q", c.text, id, got, c.want(id))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if h := hits(db); h < 200 {
		t.Fatalf("hits = %d of 320 runs", h)
	}
}

// A plan is made again once an index's statistics more than doubled or
// halved since it was made; smaller changes keep it.
func TestPlanCacheStatistics(t *testing.T) {
	db := planCacheDB(t, engine.Options{})
	mustQuery(t, db, "CREATE INDEX person_id FOR (p:Person) ON (p.id)", nil)
	const q = "MATCH (p:Person {id: $id}) RETURN p.name"
	run := func(where string, wantHit bool) {
		t.Helper()
		before := hits(db)
		if got := mustQuery(t, db, q, engine.Params{"id": int64(3)}); len(got) != 1 || got[0] != "'p3'" {
			t.Fatalf("%s: %v", where, got)
		}
		if hit := hits(db) > before; hit != wantHit {
			t.Fatalf("%s: hit %v, want %v", where, hit, wantHit)
		}
	}
	run("first", false)
	run("again", true)
	mustQuery(t, db, "CREATE (:Person {id: 10}), (:Person {id: 11})", nil) // 10 → 12 entries
	run("12 entries", true)
	mustQuery(t, db, "UNWIND range(12, 39) AS i CREATE (:Person {id: i})", nil) // 40 entries
	run("40 entries", false)
	run("40 entries, again", true)
	mustQuery(t, db, "MATCH (p:Person) WHERE p.id >= 15 DELETE p", nil) // 15 entries
	run("15 entries", false)
}
