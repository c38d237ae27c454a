package exec

import (
	"github.com/quiverdb/quiver/engine/functions"
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

// newIdentityAgg returns the Project that computes p, when p is such an
// Aggregate; nil sends Build to the general plan.
func newIdentityAgg(c *Context, p plan.Operator) plan.Operator {
	a, ok := p.(*plan.Aggregate)
	if !ok || !c.Rules.On(plan.RuleIdentityGroup) || len(a.Keys) != 1 || len(a.Aggs) != 1 {
		return nil
	}
	ce, ok := a.Input.(*plan.CountExpand)
	if !ok || !ce.Grouped {
		return nil
	}
	cnt := len(ce.Cols) - 1
	if call := a.Aggs[0]; call.Func != functions.AggSum || call.Distinct {
		return nil
	} else if arg, ok := call.Arg.(*plan.ColRef); !ok || arg.Idx != cnt {
		return nil
	}
	switch k := a.Keys[0].(type) {
	case *plan.ColRef:
		if k.Idx != 0 {
			return nil
		}
	case *plan.Property:
		of, ok := k.Of.(*plan.ColRef)
		if !ok || of.Idx != 0 || !uniqueKey(c, ce.Labels, k.Key) {
			return nil
		}
	default:
		return nil
	}
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
