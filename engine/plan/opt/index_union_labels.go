package opt

import (
	"math"
	"slices"

	"github.com/quiverdb/quiver/engine/plan"
)

// Label expressions and the index union (index_union.go). A label
// expression, in a pattern (a LabelScan) or in a WHERE (HasLabels),
// restricts the nodes a lookup can match; the union needs a set of labels
// one of which every matching node carries: its cover.
//
//   - A|B|C is covered by its names, exactly: the union of their seeks
//     and residual is the scan, and the label test goes.
//   - A&B is covered by either side: the cheaper one is kept (its seek's
//     estimated rows, or the nodes holding the key when its label has no
//     serving index), and the label test stays above as a filter.
//   - (A|B)&C, A&!B: the cheapest cover of the parts of a conjunction, the
//     union of the parts' covers for a disjunction; the test stays.
//   - !A and % name no label every matching node must carry: the lookup is
//     planned as one without labels (every label's index, the residual of
//     unlabelled nodes too, chosen by the same share as a pattern without
//     labels), a superset, with the test above.
//
// A LabelScan is seen by the index selector as a NodeScan without labels
// under a Filter with its expression (standIns); where no union replaces
// the stand-in, the LabelScan is put back as it was.

// labelScanStandIn is one LabelScan the union rule may replace.
type labelScanStandIn struct {
	ls     *plan.LabelScan
	scan   *plan.NodeScan
	filter *plan.Filter
}

// standIns puts a NodeScan without labels under a label filter in place of
// every LabelScan of p (pattern subqueries included), for the selector to
// see. restoreLabelScans undoes it where no union took the stand-in.
func standIns(p *plan.Plan) []*labelScanStandIn {
	var out []*labelScanStandIn
	p.Root = rewriteLeaves(p.Root, func(op plan.Operator) plan.Operator {
		ls, ok := op.(*plan.LabelScan)
		if !ok {
			return op
		}
		st := &labelScanStandIn{ls: ls, scan: &plan.NodeScan{Var: ls.Var, Cols: ls.Cols}}
		c := ls.Cols[0]
		x := &plan.ColRef{Idx: 0, Name: c.Name, T: c.Type, Kind: c.Kind, Elem: c.Elem}
		st.filter = &plan.Filter{Input: st.scan, Pred: &plan.HasLabels{X: x, Expr: ls.Expr}}
		out = append(out, st)
		return st.filter
	})
	return out
}

// restoreLabelScans puts each stand-in's LabelScan back where its scan was
// not replaced, and drops the label filter above a union that reads
// exactly the expression's labels (a disjunction of names).
func restoreLabelScans(p *plan.Plan, sts []*labelScanStandIn) {
	if len(sts) == 0 {
		return
	}
	by := map[*plan.Filter]*labelScanStandIn{}
	for _, st := range sts {
		by[st.filter] = st
	}
	p.Root = rewriteLeaves(p.Root, func(op plan.Operator) plan.Operator {
		f, ok := op.(*plan.Filter)
		if !ok || by[f] == nil {
			return op
		}
		st := by[f]
		switch in := f.Input.(type) {
		case *plan.NodeScan:
			if in == st.scan {
				return st.ls
			}
		case *plan.IndexUnion:
			if names, ok := disjunction(st.ls.Expr); ok && sameSet(names, in.Any) {
				return in
			}
		}
		return f
	})
}

// rewriteLeaves replaces the operators of the tree at op, its pattern
// subqueries' plans included, by f's answer, bottom-up, and returns the
// new root. f returns its argument to keep it; an operator f returns is
// not visited again.
func rewriteLeaves(op plan.Operator, f func(plan.Operator) plan.Operator) plan.Operator {
	if op == nil {
		return nil
	}
	sub := func(e plan.Expr) {
		if ps, ok := e.(*plan.PatternSubquery); ok {
			ps.Plan = rewriteLeaves(ps.Plan, f)
		}
	}
	switch o := op.(type) {
	case *plan.Filter:
		plan.Walk(o.Pred, sub)
	case *plan.Project:
		for _, e := range o.Exprs {
			plan.Walk(e, sub)
		}
	}
	for i, c := range op.Children() {
		if n := rewriteLeaves(c, f); n != c {
			op.SetChild(i, n)
		}
	}
	return f(op)
}

// labelExprOf reads a label test on a column's node as a label expression:
// x:A:B, x:A|B, x:expr, and an OR of such tests on the same column.
func labelExprOf(e plan.Expr) (int, *plan.LabelExpr, bool) {
	switch x := e.(type) {
	case *plan.HasLabels:
		col, ok := x.X.(*plan.ColRef)
		if !ok {
			return 0, nil, false
		}
		if x.Expr != nil {
			return col.Idx, x.Expr, true
		}
		if len(x.Labels) == 0 {
			return 0, nil, false
		}
		kind := plan.LabelAnd
		if x.Any {
			kind = plan.LabelOr
		}
		out := &plan.LabelExpr{Kind: kind}
		for _, l := range x.Labels {
			out.Args = append(out.Args, &plan.LabelExpr{Kind: plan.LabelName, Name: l})
		}
		return col.Idx, out, true
	case *plan.Binary:
		if x.Op != plan.OpOr {
			return 0, nil, false
		}
		lc, l, lok := labelExprOf(x.L)
		rc, r, rok := labelExprOf(x.R)
		if !lok || !rok || lc != rc {
			return 0, nil, false
		}
		return lc, &plan.LabelExpr{Kind: plan.LabelOr, Args: []*plan.LabelExpr{l, r}}, true
	}
	return 0, nil, false
}

// disjunction returns the names of an expression that is names joined by
// | (a name alone included), and whether it is one.
func disjunction(e *plan.LabelExpr) ([]string, bool) {
	switch e.Kind {
	case plan.LabelName:
		return []string{e.Name}, true
	case plan.LabelOr:
		var out []string
		for _, a := range e.Args {
			names, ok := disjunction(a)
			if !ok {
				return nil, false
			}
			for _, n := range names {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
		return out, true
	}
	return nil, false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// cover returns the labels one of which every node e holds for carries,
// choosing the cheapest part of a conjunction for scan c's predicates, or
// false when e names no such labels (!A, %).
func (s *selector) cover(c *scanCands, e *plan.LabelExpr) ([]string, bool) {
	switch e.Kind {
	case plan.LabelName:
		return []string{e.Name}, true
	case plan.LabelOr:
		var out []string
		for _, a := range e.Args {
			names, ok := s.cover(c, a)
			if !ok {
				return nil, false
			}
			for _, n := range names {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
		return out, true
	case plan.LabelAnd:
		var best []string
		bestCost := math.Inf(1)
		for _, a := range e.Args {
			names, ok := s.cover(c, a)
			if !ok {
				continue
			}
			if k := s.coverCost(c, names); k < bestCost {
				best, bestCost = names, k
			}
		}
		return best, best != nil
	}
	return nil, false
}

// coverCost estimates the rows a union over labels reads for scan c: per
// label, the best seek's rows, or, with no index serving the predicates
// on it, the nodes holding the predicates' property (what its residual
// can read at most).
func (s *selector) coverCost(c *scanCands, labels []string) float64 {
	var cost float64
	for _, label := range labels {
		one := &scanCands{scan: &plan.NodeScan{Var: c.scan.Var, Labels: []string{label}, Cols: c.scan.Cols}, preds: c.preds}
		rows := math.Inf(1)
		for i := range s.indexes {
			if ix := &s.indexes[i]; ix.Label == label {
				if seek, r := planSeek(one, ix); seek != nil && r < rows {
					rows = r
				}
			}
		}
		if math.IsInf(rows, 1) {
			rows = 0
			for _, p := range c.preds {
				rows = math.Max(rows, float64(s.holders(p.Prop)))
			}
			rows = math.Max(rows, 1)
		}
		cost += rows
	}
	return cost
}
