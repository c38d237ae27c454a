package engine_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

func queryErr(t *testing.T, db querier, q string, params engine.Params) *engine.Error {
	t.Helper()
	res, err := db.Query(context.Background(), q, params)
	if err == nil {
		_, err = drain(res)
	}
	if err == nil {
		t.Fatalf("%s: no error", q)
	}
	e, ok := engine.AsError(err)
	if !ok {
		t.Fatalf("%s: %v is not an engine error", q, err)
	}
	return e
}

func TestSessionStatements(t *testing.T) {
	db := openTestDBWith(t, engine.Options{QueryTimeout: 30 * time.Second})
	s := db.NewSession()
	set := []struct{ stmt, want string }{
		{"SHOW query_timeout", "'query_timeout' | '30000'"}, // from Options
		{"SET query_timeout = 1500", "'query_timeout' | '1500'"},
		{"SHOW QUERY_TIMEOUT", "'query_timeout' | '1500'"},
		{"SET max_memory_per_query = '64MB'", "'max_memory_per_query' | '64MB'"},
		{"SET max_memory_per_query = 1048576", "'max_memory_per_query' | '1MB'"},
		{"SET max_memory_per_query = '512kB'", "'max_memory_per_query' | '512kB'"},
		{"SET max_memory_per_query = 1000", "'max_memory_per_query' | '1000B'"},
		{"SET work_mem = '2gb'", "'work_mem' | '2GB'"},
		{"SET enable_parallel_scan = true", "'enable_parallel_scan' | 'true'"},
		{"SET enable_parallel_scan = 'off'", "'enable_parallel_scan' | 'false'"},
		{"SET query_cache_size = 100", "'query_cache_size' | '100'"},
	}
	for _, c := range set {
		got := mustQuery(t, s, c.stmt, nil)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s = %v, want %s", c.stmt, got, c.want)
		}
	}
	if got := s.QueryTimeout(); got != 1500*time.Millisecond {
		t.Errorf("session QueryTimeout() = %v", got)
	}
	// The session's values are its own: the operator's and another
	// session's stay as they were.
	if got := db.Settings().QueryTimeout(); got != 30*time.Second {
		t.Errorf("operator QueryTimeout() = %v after a session's SET", got)
	}
	if got := mustQuery(t, db.NewSession(), "SHOW query_timeout", nil); got[0] != "'query_timeout' | '30000'" {
		t.Errorf("another session: %v", got)
	}

	bad := []struct{ stmt, code, suggestion string }{
		{"SET query_timout = 5", "42000", "query_timeout"},
		{"SHOW max_memory", "42000", "one of"},
		{"SET query_timeout = -1", "22023", ""},
		{"SET query_timeout = 'soon'", "22023", ""},
		{"SET query_timeout = 1.5", "22023", ""},
		{"SET max_memory_per_query = '1.5GB'", "22023", ""},
		{"SET max_memory_per_query = '10 parsecs'", "22023", ""},
		{"SET max_memory_per_query = '2048TB'", "22023", ""},
		{"SET max_connections = 0", "22023", ""},
		{"SET enable_parallel_scan = 1", "22023", ""},
		{"EXPLAIN SHOW ALL", "42000", ""},
		{"SET query_timeout = 5 RETURN 1", "42000", ""},
		// Limits a session may only tighten, and operator-only settings.
		{"SET query_timeout = 0", "42501", ""},
		{"SET query_timeout = 30001", "42501", "SET query_timeout = 30000 or less"},
		{"SET max_memory_per_query = '2GB'", "42501", ""},
		{"SET max_memory_per_query = 0", "42501", ""},
		{"SET max_connections = 10", "42501", ""},
		{"SET connection_timeout = 0", "42501", ""},
	}
	for _, c := range bad {
		e := queryErr(t, s, c.stmt, nil)
		if e.Code != c.code || !strings.HasPrefix(e.Suggestion, c.suggestion) {
			t.Errorf("%s: %s %q (suggestion %q), want %s with suggestion %q", c.stmt, e.Code, e.Message, e.Suggestion, c.code, c.suggestion)
		}
	}
	// A rejected SET leaves the value as it was.
	if got := mustQuery(t, s, "SHOW query_timeout", nil); got[0] != "'query_timeout' | '1500'" {
		t.Errorf("after rejected SETs: %v", got)
	}
	// A Cypher SET (a property of a variable) is not a session statement.
	mustQuery(t, db, "CREATE (:SetProbe)", nil)
	mustQuery(t, db, "MATCH (n:SetProbe) SET n.x = 1", nil)
	if got := mustQuery(t, db, "MATCH (n:SetProbe) RETURN n.x", nil); len(got) != 1 || got[0] != "1" {
		t.Errorf("Cypher SET after MATCH: n.x = %v, want 1", got)
	}

	res, err := s.Query(context.Background(), "SHOW ALL", nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := res.Columns()
	if len(cols) != 3 || cols[0] != (engine.Column{Name: "name", Type: "STRING"}) || cols[1].Name != "value" || cols[2].Name != "description" {
		t.Errorf("SHOW ALL columns = %v", cols)
	}
	all, _ := drain(res)
	names := []string{"connection_timeout", "enable_parallel_scan", "index_cache_size", "max_connections",
		"max_memory_per_query", "query_cache_size", "query_timeout", "shared_buffer_size", "work_mem"}
	if len(all) != len(names) {
		t.Fatalf("SHOW ALL = %v", all)
	}
	for i, n := range names {
		if !strings.HasPrefix(all[i], "'"+n+"' | ") {
			t.Errorf("SHOW ALL row %d = %s, want %s", i, all[i], n)
		}
	}
}

func TestShowFunctions(t *testing.T) {
	db, _ := engine.Open(t.TempDir(), engine.Options{})
	defer db.Close()
	res, err := db.Query(context.Background(), "SHOW FUNCTIONS", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Columns(); len(c) != 3 || c[0].Name != "name" || c[1].Name != "signature" || c[2].Name != "description" {
		t.Fatalf("columns = %v", c)
	}
	rows, _ := drain(res)
	want := map[string]bool{
		"'toUpper' | 'toUpper(s)' | ": false, // a scalar function, in its documented spelling
		"'substring' | 'substring(s, start[, length])' | '0-based, in characters'": false,
		"'count' | ":   false, // an aggregate
		"'collect' | ": false,
	}
	for _, r := range rows {
		for w := range want {
			if strings.HasPrefix(r, w) {
				want[w] = true
			}
		}
	}
	for w, found := range want {
		if !found {
			t.Errorf("SHOW FUNCTIONS has no row %s…", w)
		}
	}
	listed := func(name string) bool {
		for _, r := range rows {
			if strings.HasPrefix(r, "'"+name+"' | ") {
				return true
			}
		}
		return false
	}
	// Every special form the language has is accepted in each of its
	// forms, and listed (exists(n.p) was not accepted, so exists was
	// left out, though docs/http-api.md names it).
	for name, probes := range map[string][]string{
		"reduce":           {"RETURN reduce(a = 0, x IN [1, 2] | a + x)"},
		"all":              {"RETURN all(x IN [1] WHERE x > 0)"},
		"any":              {"RETURN any(x IN [1] WHERE x > 0)"},
		"none":             {"RETURN none(x IN [1] WHERE x > 0)"},
		"single":           {"RETURN single(x IN [1] WHERE x > 0)"},
		"exists":           {"MATCH (n) RETURN exists(n.p)", "MATCH (n) WHERE exists((n)-->()) RETURN n", "MATCH (n) RETURN EXISTS { (n)-->() }"},
		"shortestPath":     {"MATCH p = shortestPath((a)-[*]-(b)) RETURN p"},
		"allShortestPaths": {"MATCH p = allShortestPaths((a)-[*]-(b)) RETURN p"},
	} {
		for _, probe := range probes {
			res, err := db.Explain(context.Background(), probe, nil)
			if err != nil {
				t.Errorf("%s: EXPLAIN %s gives %v", name, probe, err)
				continue
			}
			res.Close()
		}
		if !listed(name) {
			t.Errorf("SHOW FUNCTIONS does not list %s", name)
		}
	}
	// Every function of the catalog and every aggregate is listed.
	for _, f := range functions.All() {
		if !listedFold(rows, f.Name) {
			t.Errorf("SHOW FUNCTIONS does not list the function %s", f.Name)
		}
	}
	for _, a := range functions.Aggregates() {
		if !listedFold(rows, a.Name) {
			t.Errorf("SHOW FUNCTIONS does not list the aggregate %s", a.Name)
		}
	}
}

// listedFold reports whether rows (name | signature | description) have
// a row named name, in any case (rows use the documented spelling).
func listedFold(rows []string, name string) bool {
	for _, r := range rows {
		if n, _, ok := strings.Cut(r, " | "); ok && strings.EqualFold(n, "'"+name+"'") {
			return true
		}
	}
	return false
}

// longList is a list parameter of n integers.
func longList(n int) engine.Params {
	l := make([]vector.Value, n)
	for i := range l {
		l[i] = int64(i)
	}
	return engine.Params{"l": l}
}

// SET query_timeout bounds the next queries: a cross product of three
// 1000-element UNWINDs (10^9 rows) stops with 40003 well before it could
// finish, and the database answers afterwards.
func TestSetQueryTimeout(t *testing.T) {
	d, _ := engine.Open(t.TempDir(), engine.Options{})
	defer d.Close()
	db := d.NewSession()
	mustQuery(t, db, "SET query_timeout = 100", nil)
	start := time.Now()
	e := queryErr(t, db, "UNWIND $l AS a UNWIND $l AS b UNWIND $l AS c RETURN count(*)", longList(1000))
	if e.Code != "40003" || e.Category != "TIMEOUT" {
		t.Fatalf("error = %s %s %s, want 40003 TIMEOUT", e.Code, e.Category, e.Message)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the query stopped after %v", d)
	}
	mustQuery(t, db, "SET query_timeout = 0", nil)
	if got := mustQuery(t, db, "UNWIND $l AS a RETURN count(*)", longList(1000)); got[0] != "1000" {
		t.Errorf("after the timeout: %v", got)
	}
}

// SET max_memory_per_query bounds what accumulating operators hold: with
// 1MB, collecting, sorting or de-duplicating 200 000 integers (at least 8
// bytes each, 1.6MB) fails with 53200; streaming, a global count and a
// top-k sort (which keeps k rows) still run; with the limit raised the
// same queries succeed.
func TestMaxMemoryPerQuery(t *testing.T) {
	d, _ := engine.Open(t.TempDir(), engine.Options{})
	defer d.Close()
	db := d.NewSession()
	params := longList(200000)
	mustQuery(t, db, "SET max_memory_per_query = '1MB'", nil)
	heavy := []string{
		"UNWIND $l AS x RETURN collect(x) AS c",
		"UNWIND $l AS x RETURN x ORDER BY x DESC",
		"UNWIND $l AS x RETURN DISTINCT x",
		"UNWIND $l AS x RETURN x % 1000000 AS k, count(*) AS n",
		"UNWIND $l AS x RETURN count(DISTINCT x) AS n",
		"UNWIND $l AS x CREATE (m:M {x: x}) RETURN m.x",
	}
	for _, q := range heavy {
		e := queryErr(t, db, q, params)
		if e.Code != "53200" || e.Category != "RESOURCE_EXHAUSTED" {
			t.Errorf("%s: %s %s %s, want 53200 RESOURCE_EXHAUSTED", q, e.Code, e.Category, e.Message)
		}
	}
	if got := mustQuery(t, db, "MATCH (n:M) RETURN count(*)", nil); got[0] != "0" {
		t.Errorf("a write stopped by the limit left %v nodes", got)
	}
	light := map[string]int{
		"UNWIND $l AS x RETURN count(*) AS n":             1,
		"UNWIND $l AS x RETURN x ORDER BY x DESC LIMIT 3": 3,
		"UNWIND $l AS x WITH x WHERE x < 5 RETURN x":      5,
	}
	for q, n := range light {
		res, err := db.Query(context.Background(), q, params)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows, err := drain(res)
		if err != nil || len(rows) != n {
			t.Errorf("%s: %d rows, %v; want %d", q, len(rows), err, n)
		}
	}
	mustQuery(t, db, "SET max_memory_per_query = '1GB'", nil)
	if got := mustQuery(t, db, "UNWIND $l AS x RETURN count(DISTINCT x) AS n", params); got[0] != "200000" {
		t.Errorf("with the limit raised: %v", got)
	}
}

// A session may be shared by goroutines, and the operator may change a
// setting while sessions read it: concurrent SETs and queries that read
// them are safe (run with -race).
func TestSettingsConcurrent(t *testing.T) {
	d, _ := engine.Open(t.TempDir(), engine.Options{})
	defer d.Close()
	db := d.NewSession()
	done := make(chan struct{})
	for w := 0; w < 5; w++ {
		go func(w int) {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				if w == 4 {
					if err := d.Settings().Set("max_memory_per_query", int64(1<<30-i)); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				q := "UNWIND [1, 2, 3] AS x RETURN count(*)"
				if w%2 == 0 {
					q = "SET query_timeout = " + strconv.Itoa(10000+i)
				}
				res, err := db.Query(context.Background(), q, nil)
				if err == nil {
					_, err = drain(res)
				}
				if err != nil {
					t.Errorf("%s: %v", q, err) // not Fatal: another goroutine
					return
				}
			}
		}(w)
	}
	for w := 0; w < 5; w++ {
		<-done
	}
	if got := mustQuery(t, db, "SHOW query_timeout", nil); got[0] != "'query_timeout' | '10049'" {
		t.Errorf("after concurrent SETs: %v", got)
	}
}

// A query cannot loosen what the operator set: a statement's SET lasts for
// its own statement (DB.Query) or session; a session may lower a limit and
// raise it back up to the operator's value, never past it; when the
// operator lowers a limit, sessions that set a higher value get the
// operator's.
func TestSessionLimitsAreCeilings(t *testing.T) {
	db := openTestDBWith(t, engine.Options{QueryTimeout: 5 * time.Second, MaxMemoryPerQuery: 1 << 20})
	// A SET through DB.Query is forgotten with its statement.
	mustQuery(t, db, "SET query_timeout = 100", nil)
	if got := mustQuery(t, db, "SHOW query_timeout", nil); got[0] != "'query_timeout' | '5000'" {
		t.Errorf("a statement's SET outlived it: %v", got)
	}
	// The operator's 1 MiB holds: collecting 200 000 integers fails, and
	// no session can raise the limit to let it pass.
	s := db.NewSession()
	for _, q := range []string{"SET max_memory_per_query = '2MB'", "SET max_memory_per_query = 0", "SET query_timeout = 0", "SET query_timeout = 6000"} {
		if e := queryErr(t, s, q, nil); e.Code != "42501" || e.Category != "PERMISSION_DENIED" {
			t.Errorf("%s: %s %s, want 42501 PERMISSION_DENIED", q, e.Code, e.Category)
		}
	}
	if e := queryErr(t, s, "UNWIND $l AS x RETURN collect(x) AS c", longList(200000)); e.Code != "53200" {
		t.Errorf("over the operator's memory limit: %s %s", e.Code, e.Message)
	}
	// Lower, then back up to the operator's value.
	mustQuery(t, s, "SET query_timeout = 1000", nil)
	mustQuery(t, s, "SET query_timeout = 5000", nil)
	if got := s.QueryTimeout(); got != 5*time.Second {
		t.Errorf("session timeout %v, want 5s", got)
	}
	// The operator lowers its limit below the session's value.
	mustQuery(t, s, "SET query_timeout = 4000", nil)
	if err := db.Settings().Set("query_timeout", int64(2000)); err != nil {
		t.Fatal(err)
	}
	if got := mustQuery(t, s, "SHOW query_timeout", nil); got[0] != "'query_timeout' | '2000'" {
		t.Errorf("after the operator lowered the limit: %v", got)
	}
}

// SHOW PROCEDURES lists every registered procedure, built-in and
// registered by the host, with its signature and the privilege a call
// needs, sorted by name.
func TestShowProcedures(t *testing.T) {
	db, _ := engine.Open(t.TempDir(), engine.Options{})
	defer db.Close()
	err := db.RegisterProcedure(engine.ProcedureSignature{Name: "app.echo",
		Inputs:  []engine.ProcedureField{{Name: "x", Type: "STRING"}},
		Outputs: []engine.ProcedureField{{Name: "y", Type: "STRING"}}, Requires: engine.PrivRead},
		func(ctx context.Context, args []vector.Value) ([][]vector.Value, error) {
			return [][]vector.Value{{args[0]}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), "SHOW PROCEDURES", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Columns(); len(c) != 3 || c[0].Name != "name" || c[1].Name != "signature" || c[2].Name != "privilege" {
		t.Fatalf("columns = %v", c)
	}
	rows, _ := drain(res)
	for _, want := range []string{
		"'app.echo' | 'app.echo(x :: STRING) :: (y :: STRING)' | 'read'",
		"'db.labels' | 'db.labels() :: (label :: STRING)' | 'read'",
		"'quiver.storage.integrity' | ",
	} {
		if !slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, want) }) {
			t.Errorf("SHOW PROCEDURES has no row %s…; rows: %v", want, rows)
		}
	}
	if len(rows) != len(db.Procedures()) {
		t.Errorf("SHOW PROCEDURES lists %d procedures, the registry holds %d", len(rows), len(db.Procedures()))
	}
	if !slices.IsSorted(rows) {
		t.Errorf("SHOW PROCEDURES is not sorted by name: %v", rows)
	}
}
