package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// indexUsed returns the index_used fields of an EXPLAIN plan, in pre-order.
func indexUsed(t *testing.T, db *engine.DB, q string, params engine.Params) []string {
	t.Helper()
	res, err := db.Explain(context.Background(), q, params)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	return planIndexes(res.Plan().Root, nil)
}

// planIndexes appends the index_used fields of a plan, in pre-order.
func planIndexes(d *engine.PlanNode, out []string) []string {
	if d.IndexUsed != "" {
		out = append(out, d.IndexUsed)
	}
	for _, c := range d.Children {
		out = planIndexes(c, out)
	}
	return out
}

func sorted(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.Strings(out)
	return out
}

// withoutIndex adds WITHOUT INDEX after the first MATCH pattern, before
// WHERE or RETURN.
func withoutIndex(q string) string {
	for _, kw := range []string{" WHERE ", " RETURN "} {
		if i := strings.Index(q, kw); i >= 0 {
			return q[:i] + " WITHOUT INDEX" + q[i:]
		}
	}
	return q
}

// TestIndexSelection: over random data, the planner picks the expected
// index (EXPLAIN index_used, PROFILE index) and every query answers the
// same with and without it; the store (indexes included) checks out
// after the writes. Runs with several commits so index deltas fold.
func TestIndexSelection(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	db := openTestDB(t)
	ctx := context.Background()
	exec := func(q string, params engine.Params) {
		t.Helper()
		res, err := db.Query(ctx, q, params)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, err := drain(res); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Indexes before and after data: both paths build the entries.
	exec("CREATE INDEX by_age FOR (p:Person) ON (p.age)", nil)
	cities := []string{"Oslo", "Olso", "Rome", "Riga", "Lima", ""}
	mk := func(i int) string {
		props := []string{fmt.Sprintf("id: %d", i)}
		switch r.Intn(5) {
		case 0: // no age
		case 1:
			props = append(props, fmt.Sprintf("age: %d.0", r.Intn(60)))
		case 2:
			props = append(props, fmt.Sprintf("age: '%d'", r.Intn(60)))
		default:
			props = append(props, fmt.Sprintf("age: %d", r.Intn(60)))
		}
		if r.Intn(4) > 0 {
			props = append(props, fmt.Sprintf("city: '%s'", cities[r.Intn(len(cities))]))
		}
		label := ":Person"
		if r.Intn(6) == 0 {
			label = ":Robot"
		}
		return "(" + label + " {" + strings.Join(props, ", ") + "})"
	}
	id := 0
	for batch := 0; batch < 40; batch++ {
		var parts []string
		for i := r.Intn(20); i >= 0; i-- {
			parts = append(parts, mk(id))
			id++
		}
		exec("CREATE "+strings.Join(parts, ", "), nil)
	}
	exec("CREATE HASH INDEX by_id FOR (p:Person) ON (p.id)", nil)
	exec("CREATE INDEX by_city_age FOR (p:Person) ON (p.city, p.age)", nil)
	for batch := 0; batch < 10; batch++ {
		exec("CREATE "+mk(id)+", "+mk(id+1), nil)
		id += 2
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q      string
		params engine.Params
		index  string
	}{
		{"MATCH (p:Person) WHERE p.id = 7 RETURN p.id", nil, "by_id"},
		{"MATCH (p:Person {id: 11}) RETURN p.id, p.age", nil, "by_id"},
		{"MATCH (p:Person) WHERE p.id = $id RETURN p.id", engine.Params{"id": int64(5)}, "by_id"},
		{"MATCH (p:Person) WHERE p.id IN [1, 2.0, 30, 'x', null] RETURN p.id", nil, "by_id"},
		{"MATCH (p:Person) WHERE p.age = 30 RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age = 30.0 RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age > 50 RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age >= 10 AND p.age < 20 RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE 10 < p.age AND 20.5 >= p.age RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age < '3' RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age STARTS WITH '1' RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age IN [1, 2, 3, '4'] RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.city = 'Oslo' AND p.age = 5 RETURN p.id", nil, "by_city_age"},
		{"MATCH (p:Person) WHERE p.city = 'Rome' AND p.age > 40 RETURN p.id", nil, "by_city_age"},
		{"MATCH (p:Person) WHERE p.city STARTS WITH 'O' AND p.age > 40 RETURN p.id", nil, "by_city_age"},
		{"MATCH (p:Person) WHERE p.city = '' AND p.age IS NOT NULL RETURN p.id", nil, ""},
		{"MATCH (p:Person) WHERE p.age > 10 AND p.age < 5 RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age > 10 AND p.age < 'x' RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age = null RETURN p.id", nil, "by_age"},
		{"MATCH (p:Person) WHERE p.age = $d RETURN p.id", engine.Params{"d": temporal.Date{Days: 3}}, "by_age"},
		{"MATCH (p:Person) WHERE p.age > $d RETURN p.id", engine.Params{"d": []vector.Value{int64(1)}}, "by_age"},
		{"MATCH (p:Person) WHERE p.age IN $l RETURN p.id", engine.Params{"l": []vector.Value{int64(3), "7", 8.0}}, "by_age"},
		{"MATCH (a:Person), (b:Person) WHERE a.id = 3 AND b.id = a.id + 1 RETURN a.id, b.id", nil, "by_id"},
	}
	nonEmpty := 0
	for _, c := range cases {
		used := indexUsed(t, db, c.q, c.params)
		if c.index == "" {
			if len(used) != 0 {
				t.Errorf("%s: uses %v, want a label scan", c.q, used)
			}
		} else if len(used) == 0 || used[0] != c.index {
			t.Errorf("%s: index_used %v, want %s", c.q, used, c.index)
		}
		with := sorted(mustQuery(t, db, c.q, c.params))
		without := sorted(mustQuery(t, db, withoutIndex(c.q), c.params))
		if strings.Join(with, "\n") != strings.Join(without, "\n") {
			t.Errorf("%s: with index %v, without %v", c.q, with, without)
		}
		if len(with) > 0 {
			nonEmpty++
		}
		if used := indexUsed(t, db, withoutIndex(c.q), c.params); len(used) != 0 {
			t.Errorf("%s: WITHOUT INDEX still uses %v", c.q, used)
		}
	}
	if nonEmpty < len(cases)/2 {
		t.Errorf("only %d of %d queries found rows: the data does not exercise the indexes", nonEmpty, len(cases))
	}
	// PROFILE names the index on the seek; the summary counts index hits
	// (ids are unique: one if node 3 is a Person, else none).
	res, err := db.Profile(ctx, "MATCH (p:Person) WHERE p.id = 3 RETURN p.id", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := drain(res)
	if err != nil {
		t.Fatal(err)
	}
	if h := res.Summary().IndexHits; h != int64(len(rows)) {
		t.Errorf("IndexHits = %d, want %d", h, len(rows))
	}
	found := false
	for _, op := range res.Profile().Operators {
		if op.Name == "IndexSeek" && op.Index == "by_id" {
			found = true
		}
	}
	if !found {
		t.Errorf("PROFILE operators %+v: no IndexSeek with index by_id", res.Profile().Operators)
	}
}

// TestJoinHint: USING JOIN ON plans a HashJoin that answers as the
// cartesian product filtered on the same keys.
func TestJoinHint(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "UNWIND range(1, 30) AS i CREATE (:A {x: i % 7}), (:B {y: toFloat(i % 5)})", nil)
	mustQuery(t, db, "CREATE (:A), (:B {y: null})", nil)
	hinted := "MATCH (a:A), (b:B) USING JOIN ON a.x = b.y RETURN a.x, b.y"
	plain := "MATCH (a:A), (b:B) WHERE a.x = b.y RETURN a.x, b.y"
	got, want := sorted(mustQuery(t, db, hinted, nil)), sorted(mustQuery(t, db, plain, nil))
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("join hint: %d rows, want %d", len(got), len(want))
	}
	res, err := db.Explain(context.Background(), hinted, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	var walk func(d *engine.PlanNode)
	walk = func(d *engine.PlanNode) {
		ops = append(ops, d.Operator)
		for _, c := range d.Children {
			walk(c)
		}
	}
	walk(res.Plan().Root)
	if !strings.Contains(strings.Join(ops, " "), "HashJoin") {
		t.Fatalf("plan %v has no HashJoin", ops)
	}
	if _, err := db.Query(context.Background(), "MATCH (a:A) USING JOIN ON a.x = b.y RETURN a", nil); err == nil {
		t.Fatal("a join hint over one pattern part should fail")
	}
}

// TestConstraintOnViolatingData: the error names the offending nodes'
// value, and nothing is created.
func TestConstraintOnViolatingData(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE (:Tag {v: 'x'}), (:Tag {v: 'x'}), (:Tag)", nil)
	for q, want := range map[string]string{
		"CREATE CONSTRAINT ON (t:Tag) ASSERT t.v IS UNIQUE": "v = 'x'",
		"CREATE CONSTRAINT ON (t:Tag) ASSERT EXISTS(t.v)":   "no property v",
	} {
		_, err := db.Query(context.Background(), q, nil)
		e, ok := engine.AsError(err)
		if !ok || e.Code != "23000" || !strings.Contains(e.Message, want) {
			t.Errorf("%s: %v, want 23000 mentioning %q", q, err, want)
		}
	}
	if rows := mustQuery(t, db, "SHOW CONSTRAINTS", nil); len(rows) != 0 {
		t.Errorf("constraints after failures: %v", rows)
	}
	if rows := mustQuery(t, db, "SHOW INDEXES", nil); len(rows) != 0 {
		t.Errorf("indexes after failures: %v", rows)
	}
}

// planOps lists the operators of an EXPLAIN plan in pre-order.
func planOps(t *testing.T, db *engine.DB, q string, params engine.Params) []string {
	t.Helper()
	res, err := db.Explain(context.Background(), q, params)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	var ops []string
	var walk func(d *engine.PlanNode)
	walk = func(d *engine.PlanNode) {
		ops = append(ops, d.Operator)
		for _, c := range d.Children {
			walk(c)
		}
	}
	walk(res.Plan().Root)
	return ops
}

// TestIndexOrderBy: ORDER BY on the property a BTREE seek ranges over
// reads the index in key order instead of sorting, and the rows come in
// the order a sort gives (compared as sequences of the key).
func TestIndexOrderBy(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	db := openTestDB(t)
	mustQuery(t, db, "CREATE INDEX by_score FOR (n:N) ON (n.score)", nil)
	mustQuery(t, db, "CREATE INDEX by_g_score FOR (n:N) ON (n.g, n.score)", nil)
	for batch := 0; batch < 30; batch++ {
		var parts []string
		for i := 0; i < 1+r.Intn(80); i++ {
			score := fmt.Sprintf("%d", r.Intn(1000)-500)
			switch r.Intn(4) {
			case 0:
				score = fmt.Sprintf("%d.5", r.Intn(1000)-500)
			case 1:
				score = fmt.Sprintf("'s%d'", r.Intn(100))
			}
			parts = append(parts, fmt.Sprintf("(:N {score: %s, g: %d})", score, r.Intn(3)))
		}
		mustQuery(t, db, "CREATE "+strings.Join(parts, ", "), nil)
	}
	cases := []struct {
		q      string
		params engine.Params
		sorted bool // the Sort is gone
	}{
		{"MATCH (n:N) WHERE n.score > 100 RETURN n.score ORDER BY n.score", nil, true},
		{"MATCH (n:N) WHERE n.score > -100 AND n.score <= 250.5 RETURN n.score AS s ORDER BY s DESC", nil, true},
		{"MATCH (n:N) WHERE n.score >= $lo RETURN n.score ORDER BY n.score LIMIT 7", engine.Params{"lo": int64(0)}, true},
		{"MATCH (n:N) WHERE n.score STARTS WITH 's1' RETURN n.score ORDER BY n.score DESC SKIP 2 LIMIT 5", nil, true},
		{"MATCH (n:N) WHERE n.score < 's5' RETURN n.score ORDER BY n.score", nil, true},
		{"MATCH (n:N) WHERE n.g = 1 AND n.score > 0 RETURN n.score ORDER BY n.score", nil, true},
		{"MATCH (n:N) WHERE n.score > 0 WITH n ORDER BY n.score LIMIT 5 RETURN n.score", nil, true},
		// Not replaceable: IN mixes types, a second key, an aggregate between.
		{"MATCH (n:N) WHERE n.score IN [1, 's1', 2.5, 3] RETURN n.score ORDER BY n.score", nil, false},
		{"MATCH (n:N) WHERE n.score > 0 RETURN n.score, n.g ORDER BY n.score, n.g", nil, false},
		{"MATCH (n:N) WHERE n.score > 0 RETURN n.score, count(*) AS c ORDER BY n.score", nil, false},
	}
	for _, c := range cases {
		ops := planOps(t, db, c.q, c.params)
		joined := strings.Join(ops, " ")
		hasSort := strings.Contains(joined, "Sort")
		if !strings.Contains(joined, "IndexSeek") || hasSort == c.sorted {
			t.Errorf("%s: plan %v (want the Sort removed: %v)", c.q, ops, c.sorted)
		}
		with := mustQuery(t, db, c.q, c.params)
		without := mustQuery(t, db, withoutIndex(c.q), c.params)
		if strings.Join(with, "\n") != strings.Join(without, "\n") {
			t.Errorf("%s:\nwith index %v\nwithout    %v", c.q, with, without)
		}
	}
}

// TestIndexFarEnd: a WHERE key on the far end of a pattern makes the
// planner start there, through the index, and the rows are the same.
func TestIndexFarEnd(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "UNWIND range(0, 99) AS i CREATE (:P {id: i})", nil)
	mustQuery(t, db, "MATCH (a:P), (b:P) WHERE b.id = (a.id * 7 + 3) % 100 OR b.id = (a.id + 1) % 100 CREATE (a)-[:K]->(b)", nil)
	mustQuery(t, db, "CREATE INDEX by_id FOR (p:P) ON (p.id)", nil)
	for _, q := range []string{
		"MATCH (a:P)-[:K]->(b:P) WHERE b.id = 10 RETURN a.id",
		"MATCH (a:P)-[:K]->(b:P)-[:K]->(c:P) WHERE c.id IN [1, 2] RETURN a.id, b.id",
		"MATCH (a:P)<-[:K]-(b:P) WHERE 5 >= b.id RETURN a.id, b.id",
	} {
		if used := indexUsed(t, db, q, nil); len(used) != 1 {
			t.Errorf("%s: index_used %v", q, used)
		}
		with, without := sorted(mustQuery(t, db, q, nil)), sorted(mustQuery(t, db, withoutIndex(q), nil))
		if len(with) == 0 || strings.Join(with, "\n") != strings.Join(without, "\n") {
			t.Errorf("%s: with index %v, without %v", q, with, without)
		}
	}
}

// TestIndexJoin: keys computed from earlier rows (UNWIND, an earlier
// MATCH) seek the index once per row instead of joining a label scan.
func TestIndexJoin(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "UNWIND range(0, 2999) AS i CREATE (:P {id: i % 1500, tag: toString(i % 7)})", nil)
	mustQuery(t, db, "CREATE (:Q {id: 3})", nil)
	mustQuery(t, db, "CREATE INDEX by_id FOR (p:P) ON (p.id)", nil)
	mustQuery(t, db, "CREATE HASH INDEX by_id_tag FOR (p:P) ON (p.id, p.tag)", nil)
	cases := []struct {
		q      string
		params engine.Params
		index  string
	}{
		{"UNWIND [1, 2.0, 3, null, 'x', 1499, 5000] AS k MATCH (n:P {id: k}) RETURN k, n.tag", nil, "by_id"},
		{"UNWIND range(1, 2000) AS k MATCH (n:P) WHERE n.id = k * 2 RETURN k, n.tag", nil, "by_id"},
		{"UNWIND $ks AS k MATCH (n:P) WHERE n.id = k.id AND n.tag = k.tag RETURN n.id", engine.Params{"ks": []vector.Value{
			map[string]vector.Value{"id": int64(7), "tag": "0"}, map[string]vector.Value{"id": int64(8), "tag": "1"},
			map[string]vector.Value{"id": int64(9), "tag": "9"}}}, "by_id_tag"},
		{"MATCH (q:Q) MATCH (n:P) WHERE n.id = q.id RETURN n.tag", nil, "by_id"},
		{"UNWIND [date('2020-01-01'), 4] AS k MATCH (n:P {id: k}) RETURN n.tag", nil, "by_id"},
	}
	for _, c := range cases {
		used := indexUsed(t, db, c.q, c.params)
		if len(used) == 0 || used[0] != c.index {
			t.Errorf("%s: index_used %v, want %s", c.q, used, c.index)
		}
		with := sorted(mustQuery(t, db, c.q, c.params))
		without := sorted(mustQuery(t, db, withoutIndex(c.q), c.params))
		if len(with) == 0 || strings.Join(with, "\n") != strings.Join(without, "\n") {
			t.Errorf("%s: with index %d rows, without %d", c.q, len(with), len(without))
		}
		if ops := planOps(t, db, withoutIndex(c.q), c.params); strings.Contains(strings.Join(ops, " "), "IndexJoin") {
			t.Errorf("%s: WITHOUT INDEX plan %v", c.q, ops)
		}
	}
}
