package plan

import (
	"fmt"
	"math"
	"strings"
)

// IndexJoin pairs each row of Left with the nodes an index finds for
// values computed from that row: the plan of
// `UNWIND $ids AS k MATCH (n:P) WHERE n.id = k` (or MATCH … {id: k}),
// which would otherwise be a cartesian product with a label scan and a
// filter. Keys[i] (over Left's columns) is the value of Props[i]; the
// filter stays above, as for an IndexSeek. Output columns are Left's
// followed by the node, as the CrossProduct's it replaces.
type IndexJoin struct {
	Left   Operator
	Var    string
	Labels []string
	Index  string
	Type   string
	Props  []string
	Keys   []Expr
	Cols   []Column
}

func (o *IndexJoin) Columns() []Column    { return o.Cols }
func (o *IndexJoin) Children() []Operator { return []Operator{o.Left} }

// joinCand is a label scan on the right of a CrossProduct whose
// properties a filter above compares with values of the left rows.
type joinCand struct {
	cp      *CrossProduct
	replace func(Operator)
	scan    *NodeScan
	preds   []pred // op OpEq; value over the CrossProduct's left columns
}

// correlatedPred recognises col.prop = expr where expr reads only columns
// (no subqueries); maxCol is the largest column expr reads, -1 for none.
func correlatedPred(e Expr) (col int, p pred, maxCol int, ok bool) {
	b, isBin := e.(*Binary)
	if !isBin || b.Op != OpEq {
		return 0, pred{}, 0, false
	}
	try := func(l, r Expr) (int, pred, int, bool) {
		c, prop, ok := propOfCol(l)
		if !ok {
			return 0, pred{}, 0, false
		}
		maxCol, known := -1, true
		known = Walk(r, func(x Expr) {
			if cr, ok := x.(*ColRef); ok && cr.Idx > maxCol {
				maxCol = cr.Idx
			}
		}) && known
		if !known || maxCol < 0 {
			return 0, pred{}, 0, false
		}
		return c, pred{prop, OpEq, r}, maxCol, true
	}
	if c, p, m, ok := try(b.L, b.R); ok {
		return c, p, m, true
	}
	return try(b.R, b.L)
}

// correlatedOrigin follows column col down like origin, and succeeds only
// when it reaches a NodeScan that is the Right of a CrossProduct whose
// left columns cover maxCol.
func correlatedOrigin(op Operator, col, maxCol int, replace func(Operator)) (*CrossProduct, func(Operator), *NodeScan) {
	switch o := op.(type) {
	case *Filter:
		return correlatedOrigin(o.Input, col, maxCol, func(n Operator) { o.Input = n })
	case *Expand:
		if col < len(o.Input.Columns()) {
			return correlatedOrigin(o.Input, col, maxCol, func(n Operator) { o.Input = n })
		}
	case *CrossProduct:
		nl := len(o.Left.Columns())
		if col < nl {
			return correlatedOrigin(o.Left, col, maxCol, func(n Operator) { o.Left = n })
		}
		if scan, ok := o.Right.(*NodeScan); ok && col == nl && maxCol < nl {
			return o, replace, scan
		}
	}
	return nil, nil, nil
}

// chooseJoin replaces a CrossProduct with an IndexJoin when an index on
// the scan's label has all its properties compared with left values.
func (s *selector) chooseJoin(c *joinCand) {
	v := c.scan.Var
	hint := s.hints.index[v]
	if s.hints.noIndex[v] && hint == nil {
		return
	}
	for _, h := range s.hints.joins {
		if h.Var == v || h.RightVar == v {
			return // USING JOIN asked for a hash join here
		}
	}
	var best *IndexJoin
	bestRows := math.Inf(1)
	for i := range s.indexes {
		ix := &s.indexes[i]
		if !hasLabel(c.scan.Labels, ix.Label) {
			continue
		}
		if hint != nil && (hint.Label != ix.Label || joinProps(hint.Props) != joinProps(ix.Props)) {
			continue
		}
		j := &IndexJoin{Left: c.cp.Left, Var: v, Labels: c.scan.Labels, Index: ix.Name, Type: ix.Type,
			Props: ix.Props, Cols: c.cp.Cols}
		for _, prop := range ix.Props {
			for _, p := range c.preds {
				if p.prop == prop {
					j.Keys = append(j.Keys, p.value)
					break
				}
			}
		}
		if len(j.Keys) != len(ix.Props) {
			continue
		}
		rows := SeekRows(&IndexSeek{Eq: j.Keys, Props: ix.Props}, ix)
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

// Condition is the predicate the join's seeks answer: "n.id = k".
func (o *IndexJoin) Condition() string {
	s := ""
	for i, k := range o.Keys {
		if i > 0 {
			s += " AND "
		}
		s += o.Var + "." + o.Props[i] + " = " + k.String()
	}
	return s
}

func (o *IndexJoin) Describe() Description {
	return Description{Name: "IndexJoin",
		Args: fmt.Sprintf("%s:%s(%s) %s %s [%s]", o.Var, strings.Join(o.Labels, ":"),
			strings.Join(o.Props, ", "), o.Type, o.Index, o.Condition()),
		Label: labelList(o.Labels), Index: o.Index, Filter: o.Condition()}
}
