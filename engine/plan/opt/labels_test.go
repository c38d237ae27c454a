package opt_test

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/opt"
)

// A node pattern's label expression is served by a LabelScan, the label
// bitmaps combined by the expression's operators, not by a scan of every
// node and a filter of its rows; EXPLAIN shows the expression and an
// estimate from the label counts.
func TestLabelExprScan(t *testing.T) {
	st, err := gql.Parse("MATCH (n:A|B) RETURN n")
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Bind(st, plan.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Optimize(p, nil); err != nil {
		t.Fatal(err)
	}
	if got := plan.Format(p.Root); got != "Project n [parallel]\n  LabelScan n:A|B" {
		t.Errorf("plan:\n%s", got)
	}
	// 100 nodes, 50 A, 20 B, independent: 100 × (0.5 + 0.2 − 0.1) = 60.
	stats := plan.GraphStats{Nodes: 100, LabelNodes: map[string]int64{"A": 50, "B": 20}}
	scan := plan.Explain(p, stats).Root.Children[0]
	if scan.Operator != "LabelScan" || scan.Details != "n:A|B" || scan.Label != "A|B" || scan.EstimatedRows != 60 {
		t.Errorf("scan = %+v", scan)
	}
}

// The plans of the other forms: a far end and a bound node are tested a
// batch at a time by a filter; a relationship's type expression resolves
// to the types to follow (R for (R|S)&!S), an exclusion tested after the
// hop (!R), or no type (R&S), which empties the expansion's input.
func TestLabelExprPlans(t *testing.T) {
	for q, want := range map[string][]string{
		"MATCH (n:!A&%) RETURN n":                     {"LabelScan n:!A&%"},
		"MATCH (n:(A|B)&!C) RETURN n":                 {"LabelScan n:(A|B)&!C"},
		"MATCH (n:A&B) RETURN n":                      {"NodeScan n:A:B"},
		"MATCH (a:A)-->(b:!A) RETURN b":               {"Filter b:!A", "NodeScan a:A"},
		"MATCH (a)-[r:!R]->(b) RETURN b":              {"Filter (NOT r:R)", "Expand (a)-[r]->(b)"},
		"MATCH (a)-[:R&S]->(b) RETURN b":              {"Expand (a)-[_]->(b)", "Filter false"},
		"MATCH (a)-[:(R|S)&!S]->{1,2}(b) RETURN b":    {"(a)-[_:R*1..2]->(b)"},
		"MATCH (a {k: 1}) MATCH (a:A|B) RETURN a":     {"Filter a:A|B"},
		"MATCH (n) WHERE n IS NOT LABELED % RETURN n": {"Filter (NOT n:%)"},
	} {
		got := bindText(q)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: plan lacks %q:\n%s", q, w, got)
			}
		}
	}
}
