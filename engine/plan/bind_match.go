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
	var searches []*ShortestPath
	before := len(b.sc.cols)
	b.keyed = keyedVars(m.Where)
	for _, part := range m.Pattern.Parts {
		var (
			pc  *partCols
			err error
		)
		if part.Shortest != gql.ShortestNone && !quantified(part) {
			pc, err = b.shortestPart(part, before)
			if sp, ok := b.root.(*ShortestPath); ok {
				searches = append(searches, sp)
			}
		} else {
			rels, pc, err = b.matchQuantified(part, rels, before)
		}
		if err != nil {
			return err
		}
		if part.Var != "" {
			if err := b.namePath(part, pc); err != nil {
				return err
			}
		}
	}
	if m.Where != nil && len(searches) > 0 {
		return b.whereAround(m.Where, searches)
	}
	if m.Where != nil {
		return b.where(m.Where)
	}
	return nil
}

// partCols records where a planned pattern part put its elements, in the
// order the part was planned (reversed when it started from its last node).
type partCols struct {
	nodes    []int
	hops     []int  // relationship column, or path segment column when seg
	seg      []bool // hop is a var-length segment (a vector.Path column)
	reversed bool
}

// matchPart plans one pattern part; before is the number of columns bound
// by earlier clauses. It walks the part hop by hop, each hop's cases (a
// bound relationship variable, a variable-length or quantified hop, a
// label expression at the far end) a few lines that share the walk's
// state, which is why it stays one function.
func (b *binder) matchPart(part *gql.PatternPart, rels []int, before int) ([]int, *partCols, error) {
	nodes, relps := part.Nodes, part.Rels
	pc := &partCols{}
	// Start from the more selective end: a bound node (expanding from
	// known rows beats a scan joined by a cartesian product), else one with
	// properties or labels to filter on. The cost-based choice comes with
	// statistics; this rule already avoids scanning every node to reach a
	// key lookup at the far end.
	if len(relps) > 0 && !quantified(part) && b.opts.On(RuleSelectiveStart) && b.selectivity(nodes[len(nodes)-1]) > b.selectivity(nodes[0]) {
		nodes, relps = reversePattern(nodes, relps)
		pc.reversed = true
		b.fire(RuleSelectiveStart)
	}
	from, err := b.startNode(nodes[0])
	if err != nil {
		return nil, nil, err
	}
	pc.nodes = append(pc.nodes, from)
	for i, rp := range relps {
		if rp, err = b.relTypeExpr(rp, rp.VarLength != nil); err != nil {
			return nil, nil, err
		}
		if types := uniqueTypes(rp.Types); len(types) != len(rp.Types) {
			c := *rp
			c.Types = types
			rp = &c
		}
		to := nodes[i+1]
		if rp.Var != "" && (rp.Var == to.Var || rp.Var == nodes[i].Var) {
			return nil, nil, semanticAt(rp.Pos, "variable %s cannot name both a node and a relationship", rp.Var)
		}
		// A relationship variable bound by an earlier clause: match any
		// relationship, then keep the one (or the list) it holds.
		boundRel := -1
		if rp.Var != "" {
			if col, ok := b.sc.lookup(rp.Var); ok {
				if col >= before {
					return nil, nil, semanticAt(rp.Pos, "variable %s is already bound in this pattern", rp.Var)
				}
				if err := b.checkRelKind(rp, col); err != nil {
					return nil, nil, err
				}
				boundRel = col
				anon := *rp
				anon.Var = ""
				rp = &anon
			}
		}
		into := -1
		if to.Var != "" {
			if col, ok := b.sc.lookup(to.Var); ok {
				if err := b.checkKind(to.Pos, col, to.Var, vector.Node); err != nil {
					return nil, nil, err
				}
				into = col
			}
		}
		in := b.root
		relIdx := len(in.Columns())
		if quantified(part) && rp.VarLength != nil {
			if err := b.quantifiedHop(from, into, rp, to, rels, part); err != nil {
				return nil, nil, err
			}
		} else if rp.VarLength != nil {
			if err := b.varLengthHop(from, into, rp, to, rels, part.Var != "", pc.reversed); err != nil {
				return nil, nil, err
			}
		} else {
			relCol := b.sc.column(rp.Var, vector.Rel)
			cols := appendCols(b.sc.cols, relCol)
			if into < 0 {
				cols = append(cols, b.sc.column(to.Var, vector.Node))
			}
			ex := &Expand{Input: in, From: from, RelVar: rp.Var, ToVar: to.Var, Types: rp.Types,
				Dir: direction(rp.Dir), Into: into, Distinct: append([]int(nil), rels...), Cols: cols}
			if into < 0 && b.opts.On(RuleExpandLabels) {
				ex.ToLabels = to.Labels
				if len(to.Labels) > 0 {
					b.fire(RuleExpandLabels)
				}
			}
			b.set(ex)
			b.secureRel(relIdx)
			if into < 0 {
				b.secureNode(relIdx + 1)
			}
		}
		if vl, ok := b.root.(*VarLengthExpand); ok && boundRel >= 0 {
			// The filter below reads the list: keep it built.
			vl.RelVar = b.sc.cols[boundRel].Name
		}
		rels = append(rels, relIdx)
		if boundRel >= 0 {
			b.set(&Filter{Input: b.root, Pred: &Binary{Op: OpEq, L: b.sc.ref(relIdx), R: b.sc.ref(boundRel)}})
		}
		hop, seg := relIdx, false
		if rp.VarLength != nil && part.Var != "" {
			hop, seg = len(b.sc.cols)-1, true
		}
		if rp.VarLength == nil {
			if err := b.propertyFilter(relIdx, rp.Props); err != nil {
				return nil, nil, err
			}
		}
		if err := b.relTypeFilter(relIdx, rp); err != nil {
			return nil, nil, err
		}
		if into >= 0 {
			if err := b.labelFilter(into, to.Labels); err != nil {
				return nil, nil, err
			}
			from = into
		} else {
			from = relIdx + 1
			if rp.VarLength == nil && !b.opts.On(RuleExpandLabels) {
				if err := b.labelFilter(from, to.Labels); err != nil {
					return nil, nil, err
				}
			}
		}
		if err := b.labelExprFilter(from, to.LabelExpr); err != nil {
			return nil, nil, err
		}
		if err := b.propertyFilter(from, to.Props); err != nil {
			return nil, nil, err
		}
		pc.nodes = append(pc.nodes, from)
		pc.hops = append(pc.hops, hop)
		pc.seg = append(pc.seg, seg)
	}
	return rels, pc, nil
}

// checkRelKind requires an already bound relationship variable to hold a
// relationship (a list of them for a variable-length pattern).
func (b *binder) checkRelKind(rp *gql.RelPattern, col int) error {
	c := b.sc.cols[col]
	ok := c.Type == vector.Rel || c.Type == vector.Any && c.Kind != "LIST" && c.Kind != "MAP" && c.Kind != KindPath
	want := "relationship"
	if rp.VarLength != nil {
		ok, want = c.Type == vector.Any && (c.Kind == "LIST" || c.Kind == ""), "list of relationships"
	}
	if !ok {
		return semanticAt(rp.Pos, "variable %s is already bound to a %s, not a %s", rp.Var, c.Type, want)
	}
	return nil
}

// uniqueTypes drops repeated relationship types ([:T|:T] is [:T]).
func uniqueTypes(types []string) []string {
	var out []string
	seen := make(map[string]bool, len(types))
	for _, t := range types {
		if !seen[t] {
			seen[t] = true
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
	case n.Props != nil || b.keyed[n.Var] && len(n.Labels) > 0:
		// A key in WHERE helps only through an index, and indexes are
		// per label: an unlabelled node would be a scan of every node.
		return 2
	case len(n.Labels) > 0 || n.LabelExpr != nil:
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
			if err := b.labelExprFilter(col, n.LabelExpr); err != nil {
				return 0, err
			}
			return col, b.propertyFilter(col, n.Props)
		}
	}
	if n.LabelExpr != nil {
		col, err := b.labelScan(n)
		if err == nil {
			b.secureNode(col)
		}
		return col, err
	}
	scan := &NodeScan{Var: n.Var, Labels: n.Labels, Cols: []Column{b.sc.column(n.Var, vector.Node)}}
	col := 0
	if b.root == nil {
		b.set(scan)
	} else {
		col = len(b.sc.cols)
		b.set(&CrossProduct{Left: b.root, Right: scan, Cols: appendCols(b.sc.cols, scan.Cols...)})
	}
	b.secureNode(col)
	return col, b.propertyFilter(col, n.Props)
}

// checkKind fails when a variable is reused as another kind of thing.
func (b *binder) checkKind(p gql.Pos, col int, name string, want vector.Type) error {
	got := b.sc.cols[col].Type
	if got == vector.Null || got == vector.Any && b.sc.cols[col].Kind == "" {
		return nil // null, or a value only known when the query runs
	}
	if got != want {
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
		eq := &Binary{Op: OpEq, L: b.decrypt(&Property{Of: b.sc.ref(col), Key: k}, k), R: v}
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
