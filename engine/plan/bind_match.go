package plan

import (
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// match plans a MATCH clause: each pattern part becomes a scan (or starts
// from an already bound node) followed by expansions; parts that share no
// variable are joined by a cartesian product. Inline property maps and
// WHERE become filters above the expansions.
func (b *binder) match(m *gql.Match) error {
	var rels []int // relationship columns of this clause, for uniqueness
	for _, part := range m.Pattern.Parts {
		if part.Var != "" {
			return notSupported(part.Pos, "named paths are not supported yet")
		}
		if part.Shortest != gql.ShortestNone {
			return notSupported(part.Pos, "shortest paths are not supported yet")
		}
		var err error
		if rels, err = b.matchPart(part, rels); err != nil {
			return err
		}
	}
	if m.Where != nil {
		return b.where(m.Where)
	}
	return nil
}

func (b *binder) matchPart(part *gql.PatternPart, rels []int) ([]int, error) {
	nodes, relps := part.Nodes, part.Rels
	// Start from the more selective end: a bound node (expanding from
	// known rows beats a scan joined by a cartesian product), else one with
	// properties or labels to filter on. The cost-based choice comes with
	// statistics; this rule already avoids scanning every node to reach a
	// key lookup at the far end.
	if len(relps) > 0 && b.selectivity(nodes[len(nodes)-1]) > b.selectivity(nodes[0]) {
		nodes, relps = reversePattern(nodes, relps)
	}
	from, err := b.startNode(nodes[0])
	if err != nil {
		return nil, err
	}
	for i, rp := range relps {
		if rp.VarLength != nil {
			return nil, notSupported(rp.Pos, "variable-length relationships are not supported yet")
		}
		// A relationship variable bound by an earlier clause: expand as
		// an anonymous relationship and keep the rows where it is that one.
		boundRel := -1
		if rp.Var != "" {
			if col, ok := b.sc.lookup(rp.Var); ok {
				if t := b.sc.cols[col].Type; t != vector.Rel && t != vector.Any {
					return nil, semanticAt(rp.Pos, "variable %s is already bound to a %s, not a relationship", rp.Var, t)
				}
				for _, r := range rels {
					if r == col {
						return nil, semanticAt(rp.Pos, "relationship variable %s cannot be used twice in one pattern: a relationship is matched at most once", rp.Var)
					}
				}
				boundRel = col
			}
		}
		to := nodes[i+1]
		if rp.Var != "" && (rp.Var == to.Var || rp.Var == nodes[i].Var) {
			return nil, semanticAt(rp.Pos, "variable %s cannot name both a node and a relationship", rp.Var)
		}
		into := -1
		if to.Var != "" {
			if col, ok := b.sc.lookup(to.Var); ok {
				if err := b.checkKind(to.Pos, col, to.Var, vector.Node); err != nil {
					return nil, err
				}
				into = col
			}
		}
		in := b.root
		relVar := rp.Var
		if boundRel >= 0 {
			relVar = ""
		}
		relCol := b.sc.column(relVar, vector.Rel)
		cols := appendCols(b.sc.cols, relCol)
		if into < 0 {
			cols = append(cols, b.sc.column(to.Var, vector.Node))
		}
		ex := &Expand{Input: in, From: from, RelVar: relVar, ToVar: to.Var, Types: uniqueTypes(rp.Types),
			Dir: direction(rp.Dir), Into: into, Distinct: append([]int(nil), rels...), Cols: cols}
		if into < 0 {
			ex.ToLabels = to.Labels
		}
		b.set(ex)
		relIdx := len(in.Columns())
		rels = append(rels, relIdx)
		if boundRel >= 0 {
			b.set(&Filter{Input: b.root, Pred: &Binary{Op: OpEq, L: b.sc.ref(relIdx), R: b.sc.ref(boundRel)}})
		}
		if err := b.propertyFilter(relIdx, rp.Props); err != nil {
			return nil, err
		}
		if into >= 0 {
			if err := b.labelFilter(into, to.Labels); err != nil {
				return nil, err
			}
			from = into
		} else {
			from = relIdx + 1
		}
		if err := b.propertyFilter(from, to.Props); err != nil {
			return nil, err
		}
	}
	return rels, nil
}

// uniqueTypes drops repeated relationship types ([:T|:T] is [:T]).
func uniqueTypes(types []string) []string {
	var out []string
	for i, t := range types {
		dup := false
		for _, u := range types[:i] {
			dup = dup || u == t
		}
		if !dup {
			out = append(out, t)
		}
	}
	return out
}

// selectivity ranks a node pattern as a starting point.
func (b *binder) selectivity(n *gql.NodePattern) int {
	switch {
	case b.bound(n.Var):
		return 3
	case n.Props != nil:
		return 2
	case len(n.Labels) > 0:
		return 1
	}
	return 0
}

// bound reports whether a named variable is already in scope.
func (b *binder) bound(name string) bool {
	if name == "" {
		return false
	}
	_, ok := b.sc.lookup(name)
	return ok
}

func reversePattern(nodes []*gql.NodePattern, rels []*gql.RelPattern) ([]*gql.NodePattern, []*gql.RelPattern) {
	rn := make([]*gql.NodePattern, len(nodes))
	rr := make([]*gql.RelPattern, len(rels))
	for i, n := range nodes {
		rn[len(nodes)-1-i] = n
	}
	for i, r := range rels {
		c := *r
		switch c.Dir {
		case gql.DirRight:
			c.Dir = gql.DirLeft
		case gql.DirLeft:
			c.Dir = gql.DirRight
		}
		rr[len(rels)-1-i] = &c
	}
	return rn, rr
}

// startNode plans the first node of a pattern part and returns its column.
func (b *binder) startNode(n *gql.NodePattern) (int, error) {
	if n.Var != "" {
		if col, ok := b.sc.lookup(n.Var); ok {
			if err := b.checkKind(n.Pos, col, n.Var, vector.Node); err != nil {
				return 0, err
			}
			if err := b.labelFilter(col, n.Labels); err != nil {
				return 0, err
			}
			return col, b.propertyFilter(col, n.Props)
		}
	}
	scan := &NodeScan{Var: n.Var, Labels: n.Labels, Cols: []Column{b.sc.column(n.Var, vector.Node)}}
	col := 0
	if b.root == nil {
		b.set(scan)
	} else {
		col = len(b.sc.cols)
		b.set(&CrossProduct{Left: b.root, Right: scan, Cols: appendCols(b.sc.cols, scan.Cols...)})
	}
	return col, b.propertyFilter(col, n.Props)
}

// checkKind fails when a variable is reused as another kind of thing.
func (b *binder) checkKind(p gql.Pos, col int, name string, want vector.Type) error {
	c := b.sc.cols[col]
	if c.Type == vector.Any && c.Kind == "" {
		// A value of unknown type (from a list, a function, a
		// parameter): checked when the query runs.
		return nil
	}
	if got := c.Type; got != want {
		return semanticAt(p, "variable %s is already bound to a %s, not a %s", name, got, want)
	}
	return nil
}

// labelFilter requires the node in column col to carry labels.
func (b *binder) labelFilter(col int, labels []string) error {
	if len(labels) == 0 {
		return nil
	}
	b.set(&Filter{Input: b.root, Pred: &HasLabels{X: b.sc.ref(col), Labels: labels}})
	return nil
}

// propertyFilter turns an inline property map {k: v, ...} on the entity in
// column col into equality filters.
func (b *binder) propertyFilter(col int, props gql.Expr) error {
	if props == nil {
		return nil
	}
	m, ok := props.(*gql.MapLit)
	if !ok {
		return semanticAt(props.Position(), "a parameter cannot be used as a property map in MATCH; compare properties in WHERE")
	}
	var pred Expr
	for i, k := range m.Keys {
		v, err := b.expr(m.Values[i], noAggregates)
		if err != nil {
			return err
		}
		eq := &Binary{Op: OpEq, L: &Property{Of: b.sc.ref(col), Key: k}, R: v}
		if pred == nil {
			pred = eq
		} else {
			pred = &Binary{Op: OpAnd, L: pred, R: eq}
		}
	}
	if pred != nil {
		b.set(&Filter{Input: b.root, Pred: pred})
	}
	return nil
}

func direction(d gql.Direction) Direction {
	switch d {
	case gql.DirRight:
		return Out
	case gql.DirLeft:
		return In
	}
	return Both
}
