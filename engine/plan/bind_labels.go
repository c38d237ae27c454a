package plan

import (
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// This file binds label expressions in patterns (gql.LabelExpr): a node's
// is scanned from the label bitmaps (LabelScan) or tested as a filter
// where the node is already bound or reached by an expansion; a
// relationship's resolves without the catalog to a set of types
// (relTypeSet) that the expansion follows.

// labelScan plans the scan that starts a pattern at a node with a label
// expression (startNode's unbound case) and returns its column.
func (b *binder) labelScan(n *gql.NodePattern) (int, error) {
	scan := &LabelScan{Var: n.Var, Expr: bindLabelExpr(n.LabelExpr), Cols: []Column{b.sc.column(n.Var, vector.Node)}}
	col := 0
	if b.root == nil {
		b.set(scan)
	} else {
		col = len(b.sc.cols)
		b.set(&CrossProduct{Left: b.root, Right: scan, Cols: appendCols(b.sc.cols, scan.Cols...)})
	}
	return col, b.propertyFilter(col, n.Props)
}

// labelExprFilter requires the node in column col to satisfy a label
// expression, when it has one: a bound node, or the far end of an
// expansion. The test reads label membership a batch at a time.
func (b *binder) labelExprFilter(col int, e *gql.LabelExpr) error {
	if e == nil {
		return nil
	}
	b.set(&Filter{Input: b.root, Pred: &HasLabels{X: b.sc.ref(col), Expr: bindLabelExpr(e)}})
	return nil
}

// relTypeExpr resolves a relationship pattern's type expression to the
// types an expansion follows: a copy of rp with Types set when the
// expression admits a finite set of types, none when it admits every
// type. An expression that admits no type (R&S: a relationship has one)
// empties the expansion's input, so that it does no work; one that admits
// every type but some (!R) is tested by relTypeFilter after a single hop.
// A variable-length or shortest path hop cannot take these two yet.
func (b *binder) relTypeExpr(rp *gql.RelPattern, path bool) (*gql.RelPattern, error) {
	if rp.TypeExpr == nil {
		return rp, nil
	}
	s := relTypeSet(bindLabelExpr(rp.TypeExpr))
	c := *rp
	switch {
	case !s.co && len(s.names) > 0:
		c.Types = s.names
	case s.co && len(s.names) == 0:
		c.Types = nil
	case path:
		return nil, notSupported(rp.TypeExpr.Pos, "the relationship type expression %s in a variable-length or shortest path pattern is not supported yet; list the types with |", rp.TypeExpr.String())
	case !s.co:
		b.set(&Filter{Input: b.root, Pred: &Const{Val: false, T: vector.Bool}})
	}
	return &c, nil
}

// relTypeFilter tests the relationship in column col against the types
// its expression excludes (!R), which the expansion followed.
func (b *binder) relTypeFilter(col int, rp *gql.RelPattern) error {
	if rp.TypeExpr == nil || rp.VarLength != nil {
		return nil
	}
	s := relTypeSet(bindLabelExpr(rp.TypeExpr))
	if s.co && len(s.names) > 0 {
		b.set(&Filter{Input: b.root, Pred: &Not{X: &HasLabels{X: b.sc.ref(col), Labels: s.names, Any: true}}})
	}
	return nil
}

// writableLabels refuses a label expression in a pattern that creates
// (CREATE, MERGE): only a conjunction of labels, or one type, says what
// to make.
func writableLabels(part *gql.PatternPart) error {
	for _, n := range part.Nodes {
		if n.LabelExpr != nil {
			return syntaxAt(n.LabelExpr.Pos, "a node to create takes labels joined by : or & only, not the label expression %s", n.LabelExpr.String())
		}
	}
	for _, r := range part.Rels {
		if r.TypeExpr != nil {
			return syntaxAt(r.TypeExpr.Pos, "a relationship to create takes one type, not the type expression %s", r.TypeExpr.String())
		}
	}
	return nil
}
