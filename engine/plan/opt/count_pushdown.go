package opt

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// countPushdown replaces the input of every Aggregate that only counts
// the rows of a node scan followed by zero, one or two plain expansions
// (zero: the total only, the size of the scan's label set) with a
// CountExpand, and its count with the sum of the counts. It applies when
// nothing observes the rows themselves: no filter, no relationship or
// far-end value read, no DISTINCT, grouping keys (if any) only the start
// node or its properties. The count is count(*) or the count of a
// variable of the chain, which is never null there. Grouped by the start
// node, the chain may also be an OPTIONAL MATCH's pattern over the
// scanned nodes (MATCH (a) OPTIONAL MATCH (a)-->(b) RETURN a, count(b)),
// counting one of its variables, null exactly when nothing matched: the
// CountExpand then keeps the start nodes of count 0. The Aggregate keeps
// its output columns.
func countPushdown(op plan.Operator) {
	if a, ok := op.(*plan.Aggregate); ok {
		if ce := countable(a); ce != nil {
			a.Input = ce
			cnt := len(ce.Cols) - 1
			a.Aggs = []plan.AggCall{{Func: functions.AggSum, Arg: &plan.ColRef{Idx: cnt, Name: ce.Cols[cnt].Name, T: vector.Int64}}}
		}
	}
	for _, c := range op.Children() {
		countPushdown(c)
	}
}

// countable returns the CountExpand that can feed a, or nil.
func countable(a *plan.Aggregate) *plan.CountExpand {
	if len(a.Aggs) != 1 || a.Aggs[0].Func != functions.AggCount || a.Aggs[0].Distinct {
		return nil
	}
	for _, k := range a.Keys {
		if !startKey(k) {
			return nil
		}
	}
	// The chain: the hops down to the scan, or for an OPTIONAL MATCH down
	// to the Argument carrying the scanned node in column 0.
	top := a.Input
	opt, optional := top.(*plan.Optional)
	if optional {
		top = opt.Inner
	}
	var hops []*plan.Expand
	op := top
	for {
		e, ok := op.(*plan.Expand)
		if !ok {
			break
		}
		hops = append([]*plan.Expand{e}, hops...)
		op = e.Input
	}
	var scan *plan.NodeScan
	if optional {
		if _, ok := op.(*plan.Argument); !ok || len(a.Keys) == 0 {
			return nil
		}
		scan, _ = opt.Input.(*plan.NodeScan)
	} else {
		scan, _ = op.(*plan.NodeScan)
	}
	if scan == nil || len(hops) > 2 {
		return nil
	}
	if len(hops) == 0 && (optional || len(a.Keys) > 0) {
		// Zero hops count the scanned nodes themselves: only the total.
		return nil
	}
	// What is counted: every row of a plain chain (count(*), or any of its
	// columns, none ever null); of an OPTIONAL MATCH, a column of its
	// pattern (null in the one row of a start node it did not match).
	width := len(op.Columns())
	switch arg := a.Aggs[0].Arg.(type) {
	case nil:
		if optional {
			return nil
		}
	case *plan.ColRef:
		if arg.Idx >= len(top.Columns()) || optional && arg.Idx < width {
			return nil
		}
	default:
		return nil
	}
	ce := &plan.CountExpand{Var: scan.Cols[0].PrintedName(), Labels: scan.Labels, Grouped: len(a.Keys) > 0, Zeros: optional}
	from, relOfFirst := 0, -1
	for i, e := range hops {
		// The first hop starts at the scanned node (column 0), the second
		// at the first's far end, after its relationship.
		rel := len(e.Input.Columns())
		if e.From != from || e.Into >= 0 {
			return nil
		}
		switch {
		case len(e.Distinct) == 0:
		case i == 1 && len(e.Distinct) == 1 && e.Distinct[0] == relOfFirst:
			ce.Unique = true
		default:
			return nil
		}
		to := e.Cols[rel+1].PrintedName()
		ce.Hops = append(ce.Hops, plan.CountHop{Types: e.Types, Dir: e.Dir, ToVar: to, ToLabels: e.ToLabels})
		from, relOfFirst = rel+1, rel
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
