package plan

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
)

// applyJoin honours USING JOIN ON a.x = b.y: the CrossProduct joining the
// pattern part of a with the pattern part of b becomes a HashJoin on the
// two properties. The hint states the join condition: rows pair only
// where a.x = b.y (null keys pair with nothing), whether or not WHERE
// says so too.
func applyJoin(root Operator, h *gql.Hint) (Operator, error) {
	var found *CrossProduct
	var parent Operator
	var walk func(op, par Operator)
	walk = func(op, par Operator) {
		if cp, ok := op.(*CrossProduct); ok && found == nil {
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
			h.Var, h.Props[0], h.RightVar, h.RightProp, h.Var, h.RightVar).At(h.Pos.Line, h.Pos.Column)
	}
	lv, lp, rv, rp := h.Var, h.Props[0], h.RightVar, h.RightProp
	if colIndex(found.Left, lv) < 0 {
		lv, lp, rv, rp = rv, rp, lv, lp
	}
	lc, rc := found.Left.Columns(), found.Right.Columns()
	li, ri := colIndex(found.Left, lv), colIndex(found.Right, rv)
	hj := &HashJoin{Left: found.Left, Right: found.Right, Cols: found.Cols,
		LeftKey:  &Property{Of: &ColRef{Idx: li, Name: lv, T: lc[li].Type}, Key: lp},
		RightKey: &Property{Of: &ColRef{Idx: ri, Name: rv, T: rc[ri].Type}, Key: rp}}
	if parent == nil {
		return hj, nil
	}
	if !replaceChild(parent, found, hj) {
		return nil, errs.NotSupported("cannot use join hint here: the join is below a %s", OperatorName(parent)).At(h.Pos.Line, h.Pos.Column)
	}
	return root, nil
}

func colIndex(op Operator, name string) int {
	for i, c := range op.Columns() {
		if c.Name == name && !c.Hidden {
			return i
		}
	}
	return -1
}

// replaceChild puts n in place of parent's child old.
func replaceChild(parent, old, n Operator) bool {
	set := func(p *Operator) bool {
		if *p == old {
			*p = n
			return true
		}
		return false
	}
	switch o := parent.(type) {
	case *Expand:
		return set(&o.Input)
	case *Filter:
		return set(&o.Input)
	case *Project:
		return set(&o.Input)
	case *Aggregate:
		return set(&o.Input)
	case *Sort:
		return set(&o.Input)
	case *Distinct:
		return set(&o.Input)
	case *Skip:
		return set(&o.Input)
	case *Limit:
		return set(&o.Input)
	case *Unwind:
		return set(&o.Input)
	case *Create:
		return set(&o.Input)
	case *Optional:
		return set(&o.Input) || set(&o.Inner)
	case *VarLengthExpand:
		return set(&o.Input)
	case *ShortestPath:
		return set(&o.Input)
	case *CrossProduct:
		return set(&o.Left) || set(&o.Right)
	case *HashJoin:
		return set(&o.Left) || set(&o.Right)
	case *IndexJoin:
		return set(&o.Left)
	}
	return false
}
