package opt

import "github.com/quiverdb/quiver/engine/plan"

// pushFilters moves each conjunct of a Filter down the operators below it
// that only add columns to their input's rows (plan.KeepsInputColumns:
// Expand, VarLengthExpand, ExpandIntersect, Filter, the left side of a
// CrossProduct) to just above the operator
// that binds the last column it reads. The binder puts a MATCH's whole
// WHERE above its pattern; a conjunct on the start node then tested every
// expanded row (MATCH (p)-[:KNOWS]->(q) WHERE p.name ENDS WITH 'Hopper'
// AND q.city IN [...]: both tested on all 10M rows at M, where the first
// needs only the 1M scanned nodes and leaves 62K to expand).
//
// Filtering earlier is the same filter: the operators passed only extend
// rows and never look at values a conjunct tests, and a row passes a
// conjunction when it passes each conjunct, in any order, under
// three-valued logic too. A conjunct moves only when it is a plain
// expression (no subquery, no inner scope, no rand(), which would be
// drawn once per row below instead of per row above).
func pushFilters(op plan.Operator) plan.Operator {
	for _, c := range op.Children() {
		if n := pushFilters(c); n != c {
			plan.ReplaceChild(op, c, n)
		}
	}
	f, ok := op.(*plan.Filter)
	if !ok {
		return op
	}
	var kept []plan.Expr
	moved := false
	for _, c := range plan.Conjuncts(f.Pred, nil) {
		maxCol, ok := pushable(c)
		if !ok || !sinkConjunct(f, f.Input, c, maxCol) {
			kept = append(kept, c)
			continue
		}
		moved = true
	}
	if !moved {
		return op
	}
	if len(kept) == 0 {
		return f.Input
	}
	f.Pred = andOf(kept)
	return f
}

// sinkConjunct places c (reading columns up to maxCol) on the lowest
// operator under above's child op that already binds those columns, and
// reports whether that is below op (else c stays where it is).
func sinkConjunct(above, op plan.Operator, c plan.Expr, maxCol int) bool {
	parent, cur := above, op
	for {
		next := below(cur, maxCol)
		if next == nil {
			break
		}
		parent, cur = cur, next
	}
	if cur == op {
		return false
	}
	// Join an existing Filter there rather than stacking a second one.
	if pf, ok := parent.(*plan.Filter); ok && pf.Pushed && pf.Input == cur && parent != above {
		pf.Pred = &plan.Binary{Op: plan.OpAnd, L: pf.Pred, R: c}
		return true
	}
	return plan.ReplaceChild(parent, cur, &plan.Filter{Input: cur, Pred: c, Pushed: true})
}

// below is the child of op that still binds columns 0..maxCol at the
// same positions, or nil.
func below(op plan.Operator, maxCol int) plan.Operator {
	if !plan.KeepsInputColumns(op) {
		return nil
	}
	if in := op.Children()[0]; maxCol < len(in.Columns()) {
		return in
	}
	return nil
}

// pushable reports whether conjunct c may move down, and the highest
// column it reads (-1 for none).
func pushable(c plan.Expr) (int, bool) {
	maxCol, ok := -1, true
	known := plan.Walk(c, func(e plan.Expr) {
		switch x := e.(type) {
		case *plan.ColRef:
			maxCol = max(maxCol, x.Idx)
		case *plan.Call:
			if x.Name == "rand" {
				ok = false
			}
		case *plan.ListComp, *plan.Quantifier, *plan.Reduce, *plan.MapProjection, *plan.PatternSubquery:
			ok = false
		}
	})
	return maxCol, ok && known && maxCol >= 0
}

// andOf is the conjunction of cs, in order.
func andOf(cs []plan.Expr) plan.Expr {
	e := cs[0]
	for _, c := range cs[1:] {
		e = &plan.Binary{Op: plan.OpAnd, L: e, R: c}
	}
	return e
}
