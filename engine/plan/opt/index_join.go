package opt

import (
	"math"

	"github.com/quiverdb/quiver/engine/plan"
)

// joinCand is a label scan on the right of a CrossProduct whose
// properties a filter above compares with values of the left rows.
type joinCand struct {
	cp      *plan.CrossProduct
	replace func(plan.Operator)
	scan    *plan.NodeScan
	preds   []plan.IndexPred // op plan.OpEq; value over the plan.CrossProduct's left columns
}

// correlatedPred recognises col.prop = expr where expr reads only columns
// (no subqueries); maxCol is the largest column expr reads, -1 for none.
func correlatedPred(e plan.Expr) (col int, p plan.IndexPred, maxCol int, ok bool) {
	b, isBin := e.(*plan.Binary)
	if !isBin || b.Op != plan.OpEq {
		return 0, plan.IndexPred{}, 0, false
	}
	try := func(l, r plan.Expr) (int, plan.IndexPred, int, bool) {
		c, prop, ok := plan.PropOfCol(l)
		if !ok {
			return 0, plan.IndexPred{}, 0, false
		}
		maxCol, known := -1, true
		known = plan.Walk(r, func(x plan.Expr) {
			if cr, ok := x.(*plan.ColRef); ok && cr.Idx > maxCol {
				maxCol = cr.Idx
			}
		}) && known
		if !known || maxCol < 0 {
			return 0, plan.IndexPred{}, 0, false
		}
		return c, plan.IndexPred{Prop: prop, Op: plan.OpEq, Value: r}, maxCol, true
	}
	if c, p, m, ok := try(b.L, b.R); ok {
		return c, p, m, true
	}
	return try(b.R, b.L)
}

// correlatedOrigin follows column col down like origin, and succeeds only
// when it reaches a NodeScan that is the Right of a CrossProduct whose
// left columns cover maxCol.
func correlatedOrigin(op plan.Operator, col, maxCol int, replace func(plan.Operator)) (*plan.CrossProduct, func(plan.Operator), *plan.NodeScan) {
	switch o := op.(type) {
	case *plan.Filter:
		return correlatedOrigin(o.Input, col, maxCol, func(n plan.Operator) { o.Input = n })
	case *plan.Expand:
		if col < len(o.Input.Columns()) {
			return correlatedOrigin(o.Input, col, maxCol, func(n plan.Operator) { o.Input = n })
		}
	case *plan.CrossProduct:
		nl := len(o.Left.Columns())
		if col < nl {
			return correlatedOrigin(o.Left, col, maxCol, func(n plan.Operator) { o.Left = n })
		}
		if scan, ok := o.Right.(*plan.NodeScan); ok && col == nl && maxCol < nl {
			return o, replace, scan
		}
	}
	return nil, nil, nil
}

// chooseJoin replaces a CrossProduct with an IndexJoin when an index on
// the scan's label has all its properties compared with left values.
func (s *selector) chooseJoin(c *joinCand) {
	v := c.scan.Var
	hint := s.hints.Index[v]
	if s.hints.NoIndex[v] && hint == nil {
		return
	}
	for _, h := range s.hints.Joins {
		if h.Var == v || h.RightVar == v {
			return // USING JOIN asked for a hash join here
		}
	}
	var best *plan.IndexJoin
	bestRows := math.Inf(1)
	for i := range s.indexes {
		ix := &s.indexes[i]
		if !plan.HasLabel(c.scan.Labels, ix.Label) {
			continue
		}
		if hint != nil && (hint.Label != ix.Label || joinProps(hint.Props) != joinProps(ix.Props)) {
			continue
		}
		j := &plan.IndexJoin{Left: c.cp.Left, Var: v, Labels: c.scan.Labels, Index: ix.Name, Type: ix.Type,
			Props: ix.Props, Cols: c.cp.Cols}
		for _, prop := range ix.Props {
			for _, p := range c.preds {
				if p.Prop == prop {
					j.Keys = append(j.Keys, p.Value)
					break
				}
			}
		}
		if len(j.Keys) != len(ix.Props) {
			continue
		}
		rows := plan.SeekRows(&plan.IndexSeek{Eq: j.Keys, Props: ix.Props}, ix)
		if rows < bestRows {
			best, bestRows = j, rows
		}
	}
	if best == nil {
		return
	}
	s.used[v] = true
	c.replace(best)
}
