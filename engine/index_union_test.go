package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// unionPlan returns the operator names of an EXPLAIN plan with their index
// fields, in pre-order: "IndexUnion(a_id,b_id)".
func unionPlan(t *testing.T, q querier, text string, params engine.Params) []string {
	t.Helper()
	res, err := q.Query(context.Background(), "EXPLAIN "+text, params)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", text, err)
	}
	defer res.Close()
	var out []string
	var walk func(d *engine.PlanNode)
	walk = func(d *engine.PlanNode) {
		s := d.Operator
		if d.IndexUsed != "" {
			s += "(" + d.IndexUsed + ")"
		}
		out = append(out, s)
		for _, c := range d.Children {
			walk(c)
		}
	}
	walk(res.Plan().Root)
	return out
}

func hasOp(ops []string, op string) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// TestIndexUnion: over random nodes of indexed and unindexed labels,
// unlabelled ones and nodes with two labels, a lookup without a single
// label plans an IndexUnion of the indexed labels' seeks (EXPLAIN names
// their indexes) and answers as the scan does (WITHOUT INDEX), with the
// rule on or off.
func TestIndexUnion(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	db := openTestDB(t)
	off := openTestDBWith(t, engine.Options{DisabledRules: []string{"index-union"}})
	both := func(q string) {
		mustQuery(t, db, q, nil)
		mustQuery(t, off, q, nil)
	}
	// Mostly indexed labels: without labels the union is planned when
	// the indexes hold all but an eighth of the nodes with the property.
	labels := []string{":A", ":B", ":A:B", ":A:C", ":A", ":B", ":A:B", ":A:C", ":A", ":B", ":A:B", ":A:C",
		":A", ":B", ":A:B", ":A:C", ":A", ":B", "", ":C"}
	for batch := range 20 {
		var parts []string
		for range 20 {
			props := fmt.Sprintf("k: %d", r.Intn(1000))
			switch r.Intn(4) {
			case 0: // no id
			case 1:
				props += fmt.Sprintf(", id: '%d'", r.Intn(30))
			default:
				props += fmt.Sprintf(", id: %d", r.Intn(30))
			}
			parts = append(parts, "("+labels[r.Intn(len(labels))]+" {"+props+"})")
		}
		both("CREATE " + strings.Join(parts, ", "))
		if batch == 5 {
			both("CREATE INDEX a_id FOR (n:A) ON (n.id)")
			both("CREATE HASH INDEX b_id FOR (n:B) ON (n.id)")
			both("CREATE INDEX c_k FOR (n:C) ON (n.k)")
		}
	}
	cases := []struct {
		q      string
		params engine.Params
		plan   string // the union's indexes, "" for a scan
	}{
		{"MATCH (m {id: 7}) RETURN m.k", nil, "IndexUnion(a_id,b_id)"},
		{"MATCH (m) WHERE m.id = $x RETURN m.k", engine.Params{"x": int64(3)}, "IndexUnion(a_id,b_id)"},
		{"MATCH (m) WHERE m.id IN [1, 2, '3', null] RETURN m.k", nil, "IndexUnion(a_id,b_id)"},
		// A range: B's HASH index cannot serve it, so B's nodes would be
		// the residual, too many for the union without labels.
		{"MATCH (m) WHERE m.id > 20 RETURN m.k", nil, ""},
		{"MATCH (m) WHERE m:A|C AND m.id > 20 RETURN m.k", nil, "IndexUnion(a_id)"},
		{"MATCH (m) WHERE m:A|B AND m.id = 4 RETURN m.k", nil, "IndexUnion(a_id,b_id)"},
		{"MATCH (m) WHERE (m:B OR m:C) AND m.id = 5 RETURN m.k", nil, "IndexUnion(b_id)"},
		{"MATCH (m) WHERE m:C AND m.id = 5 RETURN m.k", nil, ""},
		{"MATCH (m) WHERE (m:A OR m:B) AND m.id STARTS WITH '1' RETURN m.k", nil, "IndexUnion(a_id)"},
		// Most nodes with k are outside C's index: the scan.
		{"MATCH (m) WHERE m.k < 500 RETURN m.k", nil, ""},
		{"MATCH (m) WHERE m:C|B AND m.k < 500 RETURN m.k", nil, "IndexUnion(c_k)"},
		{"MATCH (m) WHERE m.x = 5 RETURN m.k", nil, ""},
		// Label expressions in the pattern (a LabelScan) and the WHERE.
		{"MATCH (m:A|B {id: 7}) RETURN m.k", nil, "IndexUnion(a_id,b_id)"},
		{"MATCH (m IS A|C) WHERE m.id > 20 RETURN m.k", nil, "IndexUnion(a_id)"},
		{"MATCH (m:(B|C)&!A) WHERE m.id = $x RETURN m.k", engine.Params{"x": int64(3)}, "IndexUnion(b_id)"},
		{"MATCH (m:A&!B {id: 4}) RETURN m.k", nil, "IndexUnion(a_id)"},
		{"MATCH (m:!C {id: 5}) RETURN m.k", nil, "IndexUnion(a_id,b_id)"},
		{"MATCH (m:% {id: 6}) RETURN m.k", nil, "IndexUnion(a_id,b_id)"},
		{"MATCH (m) WHERE m IS LABELED B&!A AND m.id = 2 RETURN m.k", nil, "IndexUnion(b_id)"},
		{"MATCH (m:C|D {id: 5}) RETURN m.k", nil, ""},
	}
	nonEmpty := 0
	for _, c := range cases {
		ops := unionPlan(t, db, c.q, c.params)
		if c.plan == "" {
			if strings.Contains(strings.Join(ops, " "), "Index") {
				t.Errorf("%s: plan %v, want a scan", c.q, ops)
			}
		} else if !hasOp(ops, c.plan) {
			t.Errorf("%s: plan %v, want %s", c.q, ops, c.plan)
		}
		with := sorted(mustQuery(t, db, c.q, c.params))
		without := sorted(mustQuery(t, db, withoutIndex(c.q), c.params))
		if strings.Join(with, "\n") != strings.Join(without, "\n") {
			t.Errorf("%s: with the union %v, scanned %v", c.q, with, without)
		}
		if len(with) > 0 {
			nonEmpty++
		}
		if ops := unionPlan(t, off, c.q, c.params); strings.Contains(strings.Join(ops, " "), "IndexUnion") {
			t.Errorf("%s: rule index-union off still plans %v", c.q, ops)
		}
		if got := sorted(mustQuery(t, off, c.q, c.params)); strings.Join(got, "\n") != strings.Join(with, "\n") {
			t.Errorf("%s: rule index-union off %v, on %v", c.q, got, with)
		}
	}
	if nonEmpty < len(cases)/2 {
		t.Errorf("only %d of %d queries found rows", nonEmpty, len(cases))
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestIndexUnionInTransaction: a transaction's lookups see its own
// writes (a node created with an indexed label, an unlabelled one, a
// property changed), and nobody else does until it commits.
func TestIndexUnionInTransaction(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE INDEX a_id FOR (n:A) ON (n.id)", nil)
	mustQuery(t, db, "CREATE (:A {k: 'a1', id: 1}), (:A {k: 'a2', id: 2}), ({k: 'u1', id: 1})", nil)
	mustQuery(t, db, "UNWIND range(10, 40) AS i CREATE (:A {k: 'bulk', id: i})", nil)
	lookup := "MATCH (m {id: $x}) RETURN m.k"
	if ops := unionPlan(t, db, lookup, engine.Params{"x": int64(1)}); !hasOp(ops, "IndexUnion(a_id)") {
		t.Fatalf("plan %v", ops)
	}
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	mustQuery(t, tx, "CREATE (:A {k: 'a3', id: 1}), ({k: 'u2', id: 1})", nil)
	mustQuery(t, tx, "MATCH (m:A {k: 'a2'}) SET m.id = 1", nil)
	mustQuery(t, tx, "MATCH (m {k: 'u1'}) SET m.id = 9", nil)
	got := strings.Join(sorted(mustQuery(t, tx, lookup, engine.Params{"x": int64(1)})), ",")
	if got != "'a1','a2','a3','u2'" {
		t.Errorf("in the transaction: %s", got)
	}
	if got := strings.Join(sorted(mustQuery(t, db, lookup, engine.Params{"x": int64(1)})), ","); got != "'a1','u1'" {
		t.Errorf("outside the transaction: %s", got)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sorted(mustQuery(t, db, lookup, engine.Params{"x": int64(1)})), ","); got != "'a1','a2','a3','u2'" {
		t.Errorf("after the commit: %s", got)
	}
}
