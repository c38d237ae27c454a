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
// its output columns. With filters (rule count-filter), filters of the
// chain that each read one node of it come along (count_filter.go), and
// so do those of the scanned nodes under an OPTIONAL MATCH.
func countPushdown(op plan.Operator, filters bool, indexes []plan.IndexInfo) {
	if a, ok := op.(*plan.Aggregate); ok {
		if ce := countable(a, filters, indexes); ce != nil {
			a.Input = ce
			cnt := len(ce.Cols) - 1
			a.Aggs = []plan.AggCall{{Func: functions.AggSum, Arg: &plan.ColRef{Idx: cnt, Name: ce.Cols[cnt].Name, T: vector.Int64}}}
		}
	}
	for _, c := range op.Children() {
		countPushdown(c, filters, indexes)
	}
}

// countable returns the CountExpand that can feed a, or nil.
func countable(a *plan.Aggregate, filters bool, indexes []plan.IndexInfo) *plan.CountExpand {
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
	var preds []plan.Expr // each hop's far-end filter, nil for none
	var pending plan.Expr // the filters met since the last hop
	op := top
	for {
		if f, ok := op.(*plan.Filter); ok && filters && !optional {
			pending = andPred(f.Pred, pending)
			op = f.Input
			continue
		}
		e, ok := op.(*plan.Expand)
		if !ok {
			break
		}
		hops = append([]*plan.Expand{e}, hops...)
		preds = append([]plan.Expr{pending}, preds...)
		pending = nil
		op = e.Input
	}
	var scan *plan.NodeScan
	if optional {
		if _, ok := op.(*plan.Argument); !ok || len(a.Keys) == 0 {
			return nil
		}
		// The scanned nodes may be filtered before the OPTIONAL MATCH
		// (MATCH (a) WHERE a.age = 30 OPTIONAL MATCH (a)-->(b)): the
		// filter picks the start nodes, each counted even at 0.
		in := opt.Input
		for filters {
			f, ok := in.(*plan.Filter)
			if !ok {
				break
			}
			pending = andPred(f.Pred, pending)
			in = f.Input
		}
		scan, _ = in.(*plan.NodeScan)
	} else {
		scan, _ = op.(*plan.NodeScan)
	}
	if scan == nil || len(hops) > 2 {
		return nil
	}
	if len(hops) == 0 && (optional || len(a.Keys) > 0 || pending != nil) {
		// Zero hops count the scanned nodes themselves: only the total,
		// and a filtered one is count-range's or the rows'.
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
	if pending != nil {
		var ok bool
		if ce.StartPred, ok = nodePredicate(pending, 0); !ok || indexedProperty(pending, scan.Labels, indexes) {
			return nil
		}
	}
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
		hop := plan.CountHop{Types: e.Types, Dir: e.Dir, ToVar: to, ToLabels: e.ToLabels}
		if preds[i] != nil {
			var ok bool
			if hop.Pred, ok = nodePredicate(preds[i], rel+1); !ok {
				return nil
			}
		}
		ce.Hops = append(ce.Hops, hop)
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

// andPred is l AND r, or l when r is nil.
func andPred(l, r plan.Expr) plan.Expr {
	if r == nil {
		return l
	}
	return &plan.Binary{Op: plan.OpAnd, L: l, R: r}
}
