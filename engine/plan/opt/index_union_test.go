package opt

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
)

// TestIndexUnionPlans: the plans a lookup without a single label gets,
// as the plan printer writes them: one seek per label with a usable
// index (the better of two on one label), labels of a disjunction only,
// no union when no index serves the predicate or a hint says otherwise.
func TestIndexUnionPlans(t *testing.T) {
	ixs := []plan.IndexInfo{
		{Name: "post_id", Type: "BTREE", Label: "Post", Props: []string{"id"}, Entries: 1000, Distinct: 1000},
		{Name: "comment_id", Type: "HASH", Label: "Comment", Props: []string{"id"}, Entries: 2000, Distinct: 2000},
		{Name: "comment_len", Type: "BTREE", Label: "Comment", Props: []string{"length"}, Entries: 2000, Distinct: 10},
		{Name: "comment_id_len", Type: "BTREE", Label: "Comment", Props: []string{"id", "length"}, Entries: 2000, Distinct: 2000},
	}
	for _, tc := range []struct{ q, want string }{
		{"MATCH (m {id: $x}) RETURN m",
			"Project m\n  Filter (m.id = $x) [range-filter, code-filter]\n" +
				"    IndexUnion m [Post:BTREE post_id m.id = $x, Comment:HASH comment_id m.id = $x] residual holding id"},
		{"MATCH (m) WHERE m:Post|Comment AND m.id IN [1, 2] RETURN m",
			"Project m\n  Filter (m:Post|Comment AND #in(m.id, [1, 2])) [in-set-lookup]\n" +
				"    IndexUnion m:Post|Comment [Post:BTREE post_id m.id IN [1, 2], Comment:HASH comment_id m.id IN [1, 2]] residual holding id"},
		// A range: the HASH index cannot serve it; the composite one can.
		{"MATCH (m) WHERE (m:Comment OR m:Forum) AND m.id > 5 AND m.length = 3 RETURN m",
			"Project m\n  Filter (((m:Comment OR m:Forum) AND (m.id > 5)) AND (m.length = 3))\n" +
				"    IndexUnion m:Comment|Forum [Comment:BTREE comment_len m.length = 3] residual holding length"},
		// The composite index needs both its properties constrained.
		{"MATCH (m) WHERE m.id > 5 RETURN m",
			"Project m\n  Filter (m.id > 5) [range-filter]\n" +
				"    IndexUnion m [Post:BTREE post_id m.id > 5] residual holding id"},
		{"MATCH (m) WHERE m:Forum AND m.id = 1 RETURN m",
			"Project m [parallel]\n  Filter (m:Forum AND (m.id = 1))\n    NodeScan m"},
		{"MATCH (m) WHERE m.title = 'x' RETURN m",
			"Project m [parallel]\n  Filter (m.title = \"x\") [code-filter]\n    NodeScan m"},
		{"MATCH (m) WITHOUT INDEX WHERE m.id = 1 RETURN m",
			"Project m [parallel]\n  Filter (m.id = 1) [range-filter]\n    NodeScan m"},
	} {
		p, err := selectFor(t, tc.q, ixs)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := plan.Format(p.Root); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, got, tc.want)
		}
	}
	// USING INDEX names one label: a label-less pattern cannot honour it.
	if _, err := selectFor(t, "MATCH (m) USING INDEX m:Post(id) WHERE m.id = 1 RETURN m", ixs); err == nil {
		t.Error("USING INDEX on a pattern without the label was accepted")
	}
}

// TestIndexUnionShare: without labels the union is planned only while
// the nodes holding the key outside the seeks' indexes are at most an
// eighth of those holding it; a disjunction takes it regardless.
func TestIndexUnionShare(t *testing.T) {
	for _, tc := range []struct {
		holders int64
		q, want string
	}{
		{1500, "MATCH (m {id: 1}) RETURN m", "IndexUnion"}, // the indexes hold every holder
		{1400, "MATCH (m {id: 1}) RETURN m", "IndexUnion"}, // fewer holders than entries (two labels on a node)
		{1700, "MATCH (m {id: 1}) RETURN m", "IndexUnion"}, // 200 of 1700 uncovered: at most an eighth (212)
		{1800, "MATCH (m {id: 1}) RETURN m", "NodeScan"},   // 300 of 1800: more than an eighth (225)
		{9000, "MATCH (m {id: 1}) RETURN m", "NodeScan"},
		{9000, "MATCH (m) WHERE m:Post|Forum AND m.id = 1 RETURN m", "IndexUnion"},
	} {
		ixs := []plan.IndexInfo{
			{Name: "post_id", Type: "BTREE", Label: "Post", Props: []string{"id"}, Entries: 1000, Distinct: 1000, Holders: tc.holders},
			{Name: "comment_id", Type: "BTREE", Label: "Comment", Props: []string{"id"}, Entries: 500, Distinct: 500, Holders: tc.holders},
		}
		p, err := selectFor(t, tc.q, ixs)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Format(p.Root); !strings.Contains(got, tc.want) {
			t.Errorf("%d holders: %s:\n%s\nwant a %s", tc.holders, tc.q, got, tc.want)
		}
	}
}

// TestIndexUnionEstimate: the union's rows are its seeks' plus an
// equality's share of the nodes no seek covers.
func TestIndexUnionEstimate(t *testing.T) {
	ixs := []plan.IndexInfo{{Name: "post_id", Type: "BTREE", Label: "Post", Props: []string{"id"}, Entries: 1000, Distinct: 1000}}
	st := plan.GraphStats{Nodes: 3000, LabelNodes: map[string]int64{"Post": 1000, "Forum": 500},
		Indexes: map[string]plan.IndexInfo{"post_id": ixs[0]}}
	p, err := selectFor(t, "MATCH (m {id: 7}) RETURN m", ixs)
	if err != nil {
		t.Fatal(err)
	}
	u := plan.Explain(p, st).Root.Children[0].Children[0]
	// 1 row from the seek, 2000 uncovered nodes at 0.1; cost 1 + log2(1000) + 2000.
	if u.Operator != "IndexUnion" || u.IndexUsed != "post_id" || u.EstimatedRows != 201 || u.EstimatedCost != 2010.97 {
		t.Errorf("union %+v", u)
	}
}
