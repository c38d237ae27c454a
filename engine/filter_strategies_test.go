package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// strategyGraph has P nodes with an integer age (one a string, on Q
// nodes only), a name, and R relationships with an integer since.
func strategyGraph(t *testing.T) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustQuery(t, db, "UNWIND range(0, 99) AS i CREATE (:P {id: i, age: i % 50, name: 'n' + toString(i % 7)})", nil)
	mustQuery(t, db, "MATCH (a:P), (b:P) WHERE b.id = (a.id + 1) % 100 CREATE (a)-[:R {since: a.id}]->(b)", nil)
	mustQuery(t, db, "UNWIND range(0, 99) AS i CREATE (:Q {age: CASE WHEN i = 50 THEN 'old' ELSE i END})", nil)
	return db
}

// strategiesOf returns, per operator name, the strategies EXPLAIN shows
// in its details (joined by "," when several operators have the name),
// and the plan's rules.
func strategiesOf(t *testing.T, db *engine.DB, q string, params engine.Params) (map[string]string, []string) {
	t.Helper()
	res, err := db.Query(context.Background(), "EXPLAIN "+q, params)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	ex := res.Plan()
	got := map[string]string{}
	var walk func(n *engine.PlanNode)
	walk = func(n *engine.PlanNode) {
		if i := strings.LastIndex(n.Details, " ["); i >= 0 && strings.HasSuffix(n.Details, "]") {
			s := n.Details[i+2 : len(n.Details)-1]
			if got[n.Operator] != "" {
				s = got[n.Operator] + "," + s
			}
			got[n.Operator] = s
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(ex.Root)
	return got, ex.Rules
}

// TestFilterStrategiesExplained checks that EXPLAIN names the filter
// strategies the physical pass chose, on the operator that runs each and
// in the plan's rules, for a query of each one's shape, and names none
// for a query just outside it.
func TestFilterStrategiesExplained(t *testing.T) {
	db := strategyGraph(t)
	for _, tc := range []struct {
		query    string
		params   engine.Params
		op, want string // want: a strategy op shows; "" for none of the five
	}{
		{"MATCH (n:P) WHERE n.age > 3 AND n.age <= 10 RETURN n.id", nil, "Filter", "range-filter"},
		{"MATCH (n:P) WHERE n.age > $lo RETURN n.id", engine.Params{"lo": int64(3)}, "Filter", "range-filter"},
		{"MATCH (n:P) WHERE n.age > 3 OR n.age < 1 RETURN n.id", nil, "Filter", ""},
		{"MATCH (n:P) WHERE n.age <> 3 RETURN n.id", nil, "Filter", ""},
		{"MATCH (n:P) WHERE n.age > 3.5 RETURN n.id", nil, "Filter", ""},
		{"MATCH (n:P) WHERE n.age > $lo RETURN n.id", engine.Params{"lo": 3.5}, "Filter", ""},
		{"MATCH (n:P) WHERE n.age > 3 RETURN count(*) AS c", nil, "Aggregate", "count-range"},
		{"MATCH (n:P) WHERE n.age > 3 RETURN count(n.name) AS c", nil, "Aggregate", ""},
		{"MATCH (n:P) WHERE n.age > 3 RETURN n.name, count(*) AS c", nil, "Aggregate", ""},
		{"MATCH (a:P)-[k:R]->(b) WHERE k.since > 3 AND b.age < 9 RETURN a.id, b.id", nil, "Expand", "range-expand"},
		{"MATCH (a:P)-[k:R]->(b) WHERE k.since > b.age RETURN a.id, b.id", nil, "Expand", ""},
		{"MATCH (n:P) WHERE n.name = 'n3' RETURN n.id", nil, "Filter", "code-filter"},
		{"MATCH (n:P) WHERE $name = n.name RETURN n.id", engine.Params{"name": "n3"}, "Filter", "code-filter"},
		{"MATCH (n:P) WHERE n.name STARTS WITH 'n3' RETURN n.id", nil, "Filter", ""},
		{"MATCH (n:P) WHERE n.name = $name RETURN n.id", engine.Params{"name": int64(3)}, "Filter", "range-filter"},
		{"MATCH (n:P) WHERE n.age IN [1, 2, 3] RETURN n.id", nil, "Filter", "in-set-lookup"},
		{"MATCH (n:P) WHERE n.name IN $names RETURN n.id", engine.Params{"names": []vector.Value{"n1"}}, "Filter", "in-set-lookup"},
		{"MATCH (n:P) RETURN n.age IN [1, 2] AS young", nil, "Project", "in-set-lookup"},
		{"UNWIND [1, 2] AS x RETURN x IN [2, 3] AS found", nil, "Project", "in-set-lookup"},
		{"MATCH (n:P) WHERE n.age IN [1, 'a'] RETURN n.id", nil, "Filter", ""},
		{"MATCH (n:P) WHERE n.age IN [1, null] RETURN n.id", nil, "Filter", ""},
		{"MATCH (n:P) WHERE n.age IN [n.id] RETURN n.id", nil, "Filter", ""},
	} {
		got, rules := strategiesOf(t, db, tc.query, tc.params)
		for _, s := range []string{"range-filter", "count-range", "range-expand", "code-filter", "in-set-lookup"} {
			if shown := slices.Contains(strings.Split(got[tc.op], ","), s); shown != (s == tc.want) {
				t.Errorf("%s: %s shows %q, want %s %v", tc.query, tc.op, got[tc.op], s, !shown)
			}
		}
		if tc.want != "" && !slices.Contains(rules, tc.want) {
			t.Errorf("%s: rules %v without %s", tc.query, rules, tc.want)
		}
	}
}

// TestFilterStrategyFallbacksProfiled checks that PROFILE names the guard
// that sent a filter strategy back to the general path: a column without
// an integer view (a string among the integers), a parameter of another
// type than the strategy needs. The rows are the general path's.
func TestFilterStrategyFallbacksProfiled(t *testing.T) {
	db := strategyGraph(t)
	for _, tc := range []struct {
		query  string
		params engine.Params
		rows   int
		op     string
		want   string // a note of op's fallbacks; "" for none of these
	}{
		{"MATCH (n:Q) WHERE n.age > 90 RETURN n.age", nil, 9, "Filter", "range-filter: a column without an integer view"},
		{"MATCH (n:Q) WHERE n.age > 90 RETURN count(*) AS c", nil, 1, "Aggregate", "count-range: a column without an integer view"},
		{"MATCH (n:P) WHERE n.age > $lo RETURN n.id", engine.Params{"lo": []vector.Value{int64(1)}}, 0, "Filter", "range-filter: $lo is not an integer"},
		{"MATCH (n:P) WHERE n.age > $lo RETURN count(*) AS c", engine.Params{"lo": []vector.Value{int64(1)}}, 1, "Aggregate", "count-range: $lo is not an integer"},
		{"MATCH (a:P)-[k:R]->(b) WHERE k.since > $lo RETURN b.id", engine.Params{"lo": map[string]vector.Value{}}, 0, "Expand", "range-expand: $lo is not an integer"},
		{"MATCH (n:P) WHERE n.name = $name RETURN n.id", engine.Params{"name": []vector.Value{"n3"}}, 0, "Filter", "code-filter: $name is not a string"},
		{"MATCH (n:P) WHERE n.name = $name RETURN n.id", engine.Params{"name": "n3"}, 14, "Filter", ""},
		{"MATCH (n:P) WHERE n.age > $lo RETURN n.id", engine.Params{"lo": int64(45)}, 8, "Filter", ""},
	} {
		res, err := db.Query(context.Background(), "PROFILE "+tc.query, tc.params)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		rows, err := drain(res)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if tc.op == "Aggregate" {
			if len(rows) != 1 {
				t.Fatalf("%s: %d rows", tc.query, len(rows))
			}
		} else if len(rows) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.query, len(rows), tc.rows)
		}
		var notes []string
		for _, op := range res.Profile().Operators {
			if op.Name == tc.op {
				notes = append(notes, op.Fallbacks...)
			}
		}
		if tc.want == "" {
			for _, n := range notes {
				if strings.Contains(n, " is not ") {
					t.Errorf("%s: %s fell back: %v", tc.query, tc.op, notes)
				}
			}
		} else if !slices.Contains(notes, tc.want) {
			t.Errorf("%s: %s fallbacks %v, want %q", tc.query, tc.op, notes, tc.want)
		}
	}
}
