package opt

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
)

// applyJoinHints honours the statement's USING JOIN ON a.x = b.y hints:
// the two pattern parts join by hashing.
func applyJoinHints(p *plan.Plan, _ []plan.IndexInfo) error {
	if p.Hints == nil {
		return nil
	}
	for _, h := range p.Hints.Joins {
		root, err := applyJoin(p.Root, h)
		if err != nil {
			return err
		}
		p.Root = root
	}
	return nil
}

// applyJoin honours USING JOIN ON a.x = b.y: the CrossProduct joining the
// pattern part of a with the pattern part of b becomes a HashJoin on the
// two properties. The hint states the join condition: rows pair only
// where a.x = b.y (null keys pair with nothing), whether or not WHERE
// says so too.
func applyJoin(root plan.Operator, h *plan.JoinHint) (plan.Operator, error) {
	var found *plan.CrossProduct
	var parent plan.Operator
	var walk func(op, par plan.Operator)
	walk = func(op, par plan.Operator) {
		if cp, ok := op.(*plan.CrossProduct); ok && found == nil {
			l, r := colIndex(cp.Left, h.Var), colIndex(cp.Right, h.RightVar)
			if l < 0 || r < 0 {
				l, r = colIndex(cp.Left, h.RightVar), colIndex(cp.Right, h.Var)
			}
			if l >= 0 && r >= 0 {
				found, parent = cp, par
				return
			}
		}
		for _, c := range op.Children() {
			walk(c, op)
		}
	}
	walk(root, nil)
	if found == nil {
		return nil, errs.Semantic("cannot use join hint on %s.%s = %s.%s: %s and %s are not in separate parts of one MATCH pattern",
			h.Var, h.Prop, h.RightVar, h.RightProp, h.Var, h.RightVar).At(h.Line, h.Column)
	}
	lv, lp, rv, rp := h.Var, h.Prop, h.RightVar, h.RightProp
	if colIndex(found.Left, lv) < 0 {
		lv, lp, rv, rp = rv, rp, lv, lp
	}
	lc, rc := found.Left.Columns(), found.Right.Columns()
	li, ri := colIndex(found.Left, lv), colIndex(found.Right, rv)
	hj := &plan.HashJoin{Left: found.Left, Right: found.Right, Cols: found.Cols,
		LeftKey:  &plan.Property{Of: &plan.ColRef{Idx: li, Name: lv, T: lc[li].Type}, Key: lp},
		RightKey: &plan.Property{Of: &plan.ColRef{Idx: ri, Name: rv, T: rc[ri].Type}, Key: rp}}
	if parent == nil {
		return hj, nil
	}
	if !plan.ReplaceChild(parent, found, hj) {
		return nil, errs.NotSupported("cannot use join hint here: the join is below a %s", plan.OperatorName(parent)).At(h.Line, h.Column)
	}
	return root, nil
}

func colIndex(op plan.Operator, name string) int {
	for i, c := range op.Columns() {
		if c.Name == name && !c.Hidden {
			return i
		}
	}
	return -1
}
