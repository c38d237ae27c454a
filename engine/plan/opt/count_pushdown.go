package opt

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// countPushdown replaces the input of every Aggregate that only counts
// the rows of a node scan followed by one or two plain expansions with a
// CountExpand, and its count(*) with the sum of the counts. It applies
// when nothing observes the rows themselves: no filter, no relationship
// or far-end variable read, no DISTINCT, grouping keys (if any) only the
// start node or its properties. The Aggregate keeps its output columns.
func countPushdown(op plan.Operator) {
	if a, ok := op.(*plan.Aggregate); ok {
		if ce := countable(a); ce != nil {
			a.Input = ce
			cnt := len(ce.Cols) - 1
			a.Aggs = []plan.AggCall{{Func: plan.AggSum, Arg: &plan.ColRef{Idx: cnt, Name: ce.Cols[cnt].Name, T: vector.Int64}}}
		}
	}
	for _, c := range op.Children() {
		countPushdown(c)
	}
}

// countable returns the CountExpand that can feed a, or nil.
func countable(a *plan.Aggregate) *plan.CountExpand {
	if len(a.Aggs) != 1 || a.Aggs[0].Func != plan.AggCount || a.Aggs[0].Arg != nil || a.Aggs[0].Distinct {
		return nil
	}
	for _, k := range a.Keys {
		if !startKey(k) {
			return nil
		}
	}
	var hops []*plan.Expand
	op := a.Input
	for {
		e, ok := op.(*plan.Expand)
		if !ok {
			break
		}
		hops = append([]*plan.Expand{e}, hops...)
		op = e.Input
	}
	scan, ok := op.(*plan.NodeScan)
	if !ok || len(hops) == 0 || len(hops) > 2 {
		return nil
	}
	ce := &plan.CountExpand{Var: scan.Cols[0].PrintedName(), Labels: scan.Labels, Grouped: len(a.Keys) > 0}
	for i, e := range hops {
		// The first hop starts at the scanned node (column 0), the second
		// at the first's far end (column 2, after its relationship).
		if e.From != 2*i || e.Into >= 0 {
			return nil
		}
		switch {
		case len(e.Distinct) == 0:
		case i == 1 && len(e.Distinct) == 1 && e.Distinct[0] == 1:
			ce.Unique = true
		default:
			return nil
		}
		to := e.Cols[len(e.Input.Columns())+1].PrintedName()
		ce.Hops = append(ce.Hops, plan.CountHop{Types: e.Types, Dir: e.Dir, ToVar: to, ToLabels: e.ToLabels})
	}
	if ce.Grouped {
		ce.Cols = append(ce.Cols, scan.Cols[0])
	}
	ce.Cols = append(ce.Cols, plan.Column{Name: "#count", Type: vector.Int64, Hidden: true})
	return ce
}

// startKey reports whether a grouping key reads only the start node
// (column 0): the node itself or one of its properties. Such a key has
// one value per start node, so grouping the per-node counts by it gives
// the groups of the expanded rows.
func startKey(k plan.Expr) bool {
	switch x := k.(type) {
	case *plan.ColRef:
		return x.Idx == 0
	case *plan.Property:
		return startKey(x.Of)
	}
	return false
}
