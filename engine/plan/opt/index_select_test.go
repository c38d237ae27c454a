package opt

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
)

func selectFor(t *testing.T, q string, ixs []plan.IndexInfo) (*plan.Plan, error) {
	t.Helper()
	st, err := gql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Bind(st, plan.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return p, Optimize(p, ixs)
}

// TestSeekEstimates: a seek's rows come from the index statistics
// (entries / distinct keys for an equality), the filter above it does not
// count the same predicate twice, and the cheaper index wins.
func TestSeekEstimates(t *testing.T) {
	ixs := []plan.IndexInfo{
		{Name: "by_country", Type: "HASH", Label: "Person", Props: []string{"country"}, Entries: 10000, Distinct: 10},
		{Name: "by_id", Type: "BTREE", Label: "Person", Props: []string{"id"}, Entries: 10000, Distinct: 10000},
	}
	st := plan.GraphStats{Nodes: 20000, LabelNodes: map[string]int64{"Person": 10000}, Indexes: map[string]plan.IndexInfo{}}
	for _, ix := range ixs {
		st.Indexes[ix.Name] = ix
	}
	p, err := selectFor(t, "MATCH (p:Person) WHERE p.country = 'NO' AND p.id = 7 RETURN p", ixs)
	if err != nil {
		t.Fatal(err)
	}
	ex := plan.Explain(p, st)
	var seek, filter *plan.Described
	var walk func(d *plan.Described)
	walk = func(d *plan.Described) {
		switch d.Operator {
		case "IndexSeek":
			seek = d
		case "Filter":
			filter = d
		}
		for _, c := range d.Children {
			walk(c)
		}
	}
	walk(ex.Root)
	if seek == nil || seek.IndexUsed != "by_id" || seek.EstimatedRows != 1 || seek.Filter != "p.id = 7" || seek.Label != "Person" {
		t.Fatalf("seek %+v, want by_id with 1 row", seek)
	}
	if filter == nil || filter.EstimatedRows != 0.1 {
		t.Fatalf("filter %+v: want 1 row × 0.1 (the country equality only)", filter)
	}
	p, _ = selectFor(t, "MATCH (p:Person) WHERE p.country = 'NO' RETURN p", ixs)
	ex = plan.Explain(p, st)
	walk(ex.Root)
	if seek.IndexUsed != "by_country" || seek.EstimatedRows != 1000 || filter.EstimatedRows != 1000 {
		t.Fatalf("seek %+v filter %+v: want 1000 rows through by_country", seek, filter)
	}
}

// TestHintErrors: hints that cannot be honoured are 42000 errors.
func TestHintErrors(t *testing.T) {
	ixs := []plan.IndexInfo{{Name: "by_id", Type: "HASH", Label: "Person", Props: []string{"id"}}}
	for _, q := range []string{
		"MATCH (p:Person) USING INDEX p:Person(name) WHERE p.name = 'x' RETURN p",
		"MATCH (p:Person) USING INDEX p:Person(id) WHERE p.id > 3 RETURN p",
		"MATCH (p:Person) USING INDEX q:Person(id) WHERE p.id = 3 RETURN p",
		"MATCH (a:Person)-->(b) USING JOIN ON a.id = b.id RETURN a",
	} {
		if _, err := selectFor(t, q, ixs); err == nil || !strings.Contains(err.Error(), "hint") {
			t.Errorf("%s: %v, want a hint error", q, err)
		}
	}
	p, err := selectFor(t, "MATCH (p:Person) USING INDEX p:Person(id) WHERE p.id IN [1, 2] RETURN p", ixs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.Format(p.Root), "IndexSeek") {
		t.Fatalf("plan without the hinted seek:\n%s", plan.Format(p.Root))
	}
}

// TestSeekInSubquery: the sub-plan of an EXISTS subquery seeks too.
func TestSeekInSubquery(t *testing.T) {
	ixs := []plan.IndexInfo{{Name: "by_age", Type: "BTREE", Label: "Person", Props: []string{"age"}, Entries: 10, Distinct: 5}}
	p, err := selectFor(t, "MATCH (x) WHERE EXISTS { MATCH (p:Person) WHERE p.age = 30 } RETURN x", ixs)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	var walk func(op plan.Operator)
	walk = func(op plan.Operator) {
		if f, ok := op.(*plan.Filter); ok {
			plan.Walk(f.Pred, func(e plan.Expr) {
				if ps, ok := e.(*plan.PatternSubquery); ok {
					found = found || strings.Contains(plan.Format(ps.Plan), "IndexSeek")
				}
			})
		}
		for _, c := range op.Children() {
			walk(c)
		}
	}
	walk(p.Root)
	if !found {
		t.Fatalf("no IndexSeek in the subquery plan:\n%s", plan.Format(p.Root))
	}
}
