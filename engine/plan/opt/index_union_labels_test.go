package opt

import (
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
)

// TestIndexUnionLabelExprs: the plans a lookup with a label expression
// gets: a disjunction in a pattern is the union of its labels' seeks with
// no label test left; a conjunction seeks on the cheaper side and keeps
// the test; a negation or % plans as a lookup without labels under the
// test; with no index serving, the LabelScan stays.
func TestIndexUnionLabelExprs(t *testing.T) {
	ixs := []plan.IndexInfo{
		{Name: "post_id", Type: "BTREE", Label: "Post", Props: []string{"id"}, Entries: 1000, Distinct: 1000, Holders: 1600},
		{Name: "comment_id", Type: "HASH", Label: "Comment", Props: []string{"id"}, Entries: 500, Distinct: 500, Holders: 1600},
		{Name: "forum_id", Type: "HASH", Label: "Forum", Props: []string{"id"}, Entries: 100, Distinct: 10, Holders: 1600},
	}
	for _, tc := range []struct{ q, want string }{
		{"MATCH (m:Post|Comment {id: $x}) RETURN m.id",
			"Project m.id\n  Filter (m.id = $x) [range-filter, code-filter]\n" +
				"    IndexUnion m:Post|Comment [Post:BTREE post_id m.id = $x, Comment:HASH comment_id m.id = $x] residual holding id"},
		{"MATCH (m IS Post|Person) WHERE m.id = 3 RETURN m.id",
			"Project m.id\n  Filter (m.id = 3) [range-filter]\n" +
				"    IndexUnion m:Post|Person [Post:BTREE post_id m.id = 3] residual holding id"},
		// No index on either label: the LabelScan stays, on workers as a
		// NodeScan's pipeline.
		{"MATCH (m:Tag|Person {id: 1}) RETURN m.id",
			"Project m.id [parallel]\n  Filter (m.id = 1) [range-filter]\n    LabelScan m:Tag|Person"},
		// A conjunction: Forum's seek (100 entries over 10 keys: 10 rows)
		// costs more than Post's and Comment's (one row each).
		{"MATCH (m:(Post|Comment)&Forum {id: 1}) RETURN m.id",
			"Project m.id\n  Filter (m.id = 1) [range-filter]\n    Filter m:(Post|Comment)&Forum\n" +
				"      IndexUnion m:Post|Comment [Post:BTREE post_id m.id = 1, Comment:HASH comment_id m.id = 1] residual holding id"},
		// A plain conjunction is a NodeScan: index selection seeks on the
		// label with an index.
		{"MATCH (m:Tag&Forum {id: 1}) RETURN m.id",
			"Project m.id\n  Filter (m.id = 1) [range-filter]\n    IndexSeek m:Tag:Forum(id) HASH forum_id [m.id = 1]"},
		{"MATCH (m:Post&!Comment {id: 1}) RETURN m.id",
			"Project m.id\n  Filter (m.id = 1) [range-filter]\n    Filter m:Post&!Comment\n" +
				"      IndexUnion m:Post [Post:BTREE post_id m.id = 1] residual holding id"},
		// A WHERE conjunction on a pattern without labels seeks on the
		// cheaper label.
		{"MATCH (m) WHERE m:Forum:Post AND m.id = 1 RETURN m.id",
			"Project m.id\n  Filter (m:Forum:Post AND (m.id = 1))\n" +
				"    IndexUnion m:Post [Post:BTREE post_id m.id = 1] residual holding id"},
		{"MATCH (m) WHERE m IS LABELED Forum&!Post AND m.id = 1 RETURN m.id",
			"Project m.id\n  Filter (m:Forum&!Post AND (m.id = 1))\n" +
				"    IndexUnion m:Forum [Forum:HASH forum_id m.id = 1] residual holding id"},
		// A WHERE on a LabelScan narrows its cover.
		{"MATCH (m:Post|Comment) WHERE m:Comment AND m.id = 1 RETURN m.id",
			"Project m.id\n  Filter (m:Comment AND (m.id = 1))\n    Filter m:Post|Comment\n" +
				"      IndexUnion m:Comment [Comment:HASH comment_id m.id = 1] residual holding id"},
		// ! and %: a lookup without labels (the indexes hold all but 0 of
		// the 1600 holders), the test above.
		{"MATCH (m:!Post {id: 1}) RETURN m.id",
			"Project m.id\n  Filter (m.id = 1) [range-filter]\n    Filter m:!Post\n" +
				"      IndexUnion m [Post:BTREE post_id m.id = 1, Comment:HASH comment_id m.id = 1, Forum:HASH forum_id m.id = 1] residual holding id"},
		{"MATCH (m:% {id: 1}) RETURN m.id",
			"Project m.id\n  Filter (m.id = 1) [range-filter]\n    Filter m:%\n" +
				"      IndexUnion m [Post:BTREE post_id m.id = 1, Comment:HASH comment_id m.id = 1, Forum:HASH forum_id m.id = 1] residual holding id"},
		{"MATCH (m:Post|Comment) WITHOUT INDEX WHERE m.id = 1 RETURN m.id",
			"Project m.id [parallel]\n  Filter (m.id = 1) [range-filter]\n    LabelScan m:Post|Comment"},
	} {
		p, err := selectFor(t, tc.q, ixs)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := plan.Format(p.Root); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.q, got, tc.want)
		}
	}
	// In a pattern subquery's plan too.
	p, err := selectFor(t, "MATCH (p:Forum) RETURN EXISTS { MATCH (m:Post|Comment {id: 2}) } AS e", ixs)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	plan.Inspect(p.Root, func(op plan.Operator) bool {
		if pr, ok := op.(*plan.Project); ok {
			for _, e := range pr.Exprs {
				plan.Walk(e, func(x plan.Expr) {
					if ps, ok := x.(*plan.PatternSubquery); ok {
						found = found || plan.Any(ps.Plan, func(o plan.Operator) bool { _, ok := o.(*plan.IndexUnion); return ok })
					}
				})
			}
		}
		return true
	})
	if !found {
		t.Errorf("EXISTS { MATCH (m:Post|Comment {id: 2}) } reads no IndexUnion:\n%s", plan.Format(p.Root))
	}
}
