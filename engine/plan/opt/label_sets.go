package opt

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// labelSetCounts replaces the input of every Aggregate that counts the
// nodes of a plain node scan grouped by keys reading the node only
// through labels(n) — MATCH (n) RETURN labels(n)[0], count(*) — with a
// LabelSets, which yields one row per distinct label set (a node of the
// set and the set's size), and each count with the sum of those sizes.
// Every node of a set gives such keys the same values, so the groups and
// their counts are the same. Each aggregate must be count(*) or the count
// of the scanned node (never null), without DISTINCT; at least one key.
func labelSetCounts(op plan.Operator) {
	if a, ok := op.(*plan.Aggregate); ok {
		if ls := labelSetInput(a); ls != nil {
			a.Input = ls
			cnt := &plan.ColRef{Idx: 1, Name: ls.Cols[1].Name, T: vector.Int64}
			for i := range a.Aggs {
				a.Aggs[i] = plan.AggCall{Func: functions.AggSum, Arg: cnt}
			}
		}
	}
	for _, c := range op.Children() {
		labelSetCounts(c)
	}
}

// labelSetInput returns the LabelSets that can feed a, or nil.
func labelSetInput(a *plan.Aggregate) *plan.LabelSets {
	scan, ok := a.Input.(*plan.NodeScan)
	if !ok || len(a.Keys) == 0 || len(a.Aggs) == 0 {
		return nil
	}
	for _, ag := range a.Aggs {
		if ag.Func != functions.AggCount || ag.Distinct {
			return nil
		}
		if c, ok := ag.Arg.(*plan.ColRef); ag.Arg != nil && (!ok || c.Idx != 0) {
			return nil
		}
	}
	for _, k := range a.Keys {
		if !labelsOnly(k) {
			return nil
		}
	}
	return &plan.LabelSets{Var: scan.Cols[0].PrintedName(), Labels: scan.Labels,
		Cols: []plan.Column{scan.Cols[0], {Name: "#count", Type: vector.Int64, Hidden: true}}}
}

// labelsOnly reports whether key k reads the scanned node (column 0, the
// only one) only as the argument of labels(), and calls nothing that
// differs between two evaluations (rand()): every column reference it
// holds is a labels() argument.
func labelsOnly(k plan.Expr) bool {
	ok, refs, args := true, 0, 0
	known := plan.Walk(k, func(e plan.Expr) {
		switch x := e.(type) {
		case *plan.ColRef:
			refs++
		case *plan.Call:
			if x.Name == "rand" {
				ok = false
			}
			if _, isCol := firstArg(x).(*plan.ColRef); isCol && x.Name == "labels" && len(x.Args) == 1 {
				args++
			}
		case *plan.ListComp, *plan.Quantifier, *plan.Reduce, *plan.MapProjection, *plan.PatternSubquery:
			ok = false
		}
	})
	return ok && known && refs == args
}

func firstArg(c *plan.Call) plan.Expr {
	if len(c.Args) == 0 {
		return nil
	}
	return c.Args[0]
}
