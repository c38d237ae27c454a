package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
)

// An Aggregate whose input has one row per distinct start node (a
// grouped CountExpand: `MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id,
// count(*)` after count-expand) and whose one key is that node, or a
// property of it that no two nodes share, makes one group per row: the
// grouping is the identity, and hashing a million keys into a million
// groups only to read them back is the whole cost of the query. Such an
// Aggregate runs as a Project of its key and the row's count (rule
// identity-group). A property qualifies when its column has an integer
// view whose values are pairwise distinct and which covers every start
// node (IntView.Unique): a bulk-loaded id. A null key would merge nodes,
// so a view with gaps, or start nodes outside it, does not qualify.

// newIdentityAgg returns the Project that computes p, when the physical
// pass chose identity-group for it and a property key holds a distinct
// value for every start node; nil sends Build to the general plan
// (PROFILE says why).
func newIdentityAgg(c *Context, p plan.Operator) plan.Operator {
	a, ok := p.(*plan.Aggregate)
	if !ok || !plan.Chose(a, plan.RuleIdentityGroup) {
		return nil
	}
	ce := a.Input.(*plan.CountExpand) // the pass checked the shape
	if k, ok := a.Keys[0].(*plan.Property); ok && !uniqueKey(c, ce.Labels, k.Key) {
		c.fellBack(a, plan.RuleIdentityGroup, "property "+k.Key+" is not known distinct for every start node (no integer view of unique values covering them)")
		return nil
	}
	cnt := len(ce.Cols) - 1
	return &plan.Project{Input: ce, Exprs: []plan.Expr{a.Keys[0], &plan.ColRef{Idx: cnt, Name: ce.Cols[cnt].Name, T: ce.Cols[cnt].Type}}, Cols: a.Cols}
}

// uniqueKey reports whether property key has a distinct value on every
// node a scan of labels yields.
func uniqueKey(c *Context, labels []string, key string) bool {
	k, ok := c.Catalog.LookupKey(key)
	if !ok {
		return false
	}
	start := scanBitmap(c, &plan.NodeScan{Labels: labels})
	if start.IsEmpty() {
		return false
	}
	v := c.Tx.NodeIntView(k, int(start.GetCardinality()))
	if v == nil || !v.Unique() {
		return false
	}
	return uint64(start.Minimum()) >= v.Lo() && uint64(start.Maximum()) < v.Len()
}
