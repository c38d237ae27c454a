package plan

import (
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// A path mode or selector over a pattern of several relationships or
// groups, (a)-[:X]->(m)((x)-[:R]->(y))+(b): the whole path is one
// QuantifiedExpand, each relationship a group of one iteration, the node
// patterns between them its Mids, so the mode holds along the whole path
// and the selector chooses among whole paths per pair of endpoints.

// matchQuantified plans a pattern part through matchPart, or, for a mode
// or selector over several relationships or groups, as one search.
func (b *binder) matchQuantified(part *gql.PatternPart, rels []int, before int) ([]int, *partCols, error) {
	s := searchOf(part)
	if len(part.Rels) > 1 && (s.Mode != gql.ModeDefault || s.Select != gql.SelectNone) {
		return b.searchPart(part, s, rels)
	}
	part, err := b.quantifiedPart(part)
	if err != nil {
		return nil, nil, err
	}
	return b.matchPart(part, rels, before)
}

// searchPart plans a part of several relationships or groups under a mode
// or selector as one QuantifiedExpand from its first node.
func (b *binder) searchPart(part *gql.PatternPart, s gql.PathSearch, rels []int) ([]int, *partCols, error) {
	nodes, relps := part.Nodes, part.Rels
	if b.sec.Restricts() {
		return nil, nil, refuseUnderSecurity(s.Pos, "a path search over several relationships")
	}
	if err := b.searchNames(part); err != nil {
		return nil, nil, err
	}
	if s.Mode == gql.ModeWalk && (s.Select == gql.SelectNone || s.Select == gql.SelectAll) {
		for _, rp := range relps {
			if rp.VarLength != nil && rp.VarLength.Max == nil {
				return nil, nil, semanticAt(s.Pos, "a WALK pattern without an upper bound matches infinitely many paths: give it an upper bound or a selector (ANY, ANY k, SHORTEST k)")
			}
		}
	}
	from, err := b.startNode(nodes[0])
	if err != nil {
		return nil, nil, err
	}
	last := nodes[len(nodes)-1]
	into := -1
	if last.Var != "" {
		if col, ok := b.sc.lookup(last.Var); ok {
			if err := b.checkKind(last.Pos, col, last.Var, vector.Node); err != nil {
				return nil, nil, err
			}
			into = col
		}
	}
	q := &QuantifiedExpand{Input: b.root, From: from, Into: into, Mode: s.Mode, Select: s.Select, K: int(s.K),
		Groups: s.Groups, Distinct: append([]int(nil), rels...)}
	relIdx := len(b.sc.cols)
	cols := appendCols(b.sc.cols, Column{Name: b.sc.hiddenName("rels"), Type: vector.Any, Kind: "LIST", Hidden: true})
	toName := b.sc.cols[max(into, 0)].Name
	if into < 0 {
		q.ToLabels = last.Labels
		cols = append(cols, b.sc.column(last.Var, vector.Node))
		toName = colName(cols[len(cols)-1])
	}
	var text strings.Builder
	text.WriteString("(" + colName(b.sc.cols[from]) + ")")
	for i, rp := range relps {
		seg, segCols, err := b.segOf(rp)
		if err != nil {
			return nil, nil, err
		}
		q.Segs = append(q.Segs, seg)
		cols = append(cols, segCols...)
		lo, hi := seg.Min, seg.Max
		inner, _ := groupOf(rp)
		next, labels := toName, q.ToLabels
		if i+1 < len(relps) {
			next, labels = nodes[i+1].Var, nodes[i+1].Labels
		}
		t := groupText("", inner, lo, hi, next, labels)
		text.WriteString(strings.TrimPrefix(t, "()"))
	}
	for _, n := range nodes[1 : len(nodes)-1] {
		mid, col, err := b.midOf(n)
		if err != nil {
			return nil, nil, err
		}
		q.Mids = append(q.Mids, mid)
		if col != nil {
			cols = append(cols, *col)
		}
	}
	if part.Var != "" {
		q.PathCol = true
		cols = append(cols, Column{Name: b.sc.hiddenName("path"), Type: vector.Any, Kind: KindPath, Hidden: true})
	}
	q.Cols, q.Pattern = cols, text.String()
	b.set(q)
	end := into
	if into < 0 {
		end = relIdx + 1
	} else if err := b.labelFilter(into, last.Labels); err != nil {
		return nil, nil, err
	}
	if err := b.propertyFilter(end, last.Props); err != nil {
		return nil, nil, err
	}
	pc := &partCols{nodes: []int{from, end}, hops: []int{len(cols) - 1}, seg: []bool{true}}
	return append(rels, relIdx), pc, nil
}

// searchNames refuses a relationship or group variable named twice in a
// searched part or like one of its nodes (a group's variables are lists,
// its other elements single values), and a new node variable written
// twice after the start (the search binds each place once).
func (b *binder) searchNames(part *gql.PatternPart) error {
	nodes := map[string]bool{}
	for i, n := range part.Nodes {
		if n.Var == "" {
			continue
		}
		if i > 0 && nodes[n.Var] && !b.bound(n.Var) && n.Var != part.Nodes[0].Var {
			return notSupported(n.Pos, "node variable %s written twice in a path under a mode or selector is not supported yet", n.Var)
		}
		nodes[n.Var] = true
	}
	seen := map[string]bool{}
	for _, rp := range part.Rels {
		inner, _ := groupOf(rp)
		for pos, name := range groupVars(inner) {
			if name == "" || rp.Group == nil && pos != 1 {
				continue
			}
			at := inner.Nodes[pos/2].Pos
			if pos%2 == 1 {
				at = inner.Rels[pos/2].Pos
			}
			if seen[name] || nodes[name] {
				return semanticAt(at, "variable %s is bound twice in this pattern", name)
			}
			seen[name] = true
		}
	}
	return nil
}

// segOf binds one relationship or group of a searched part and the
// columns it appends: a group's variables as lists, a variable-length
// relationship's as a list, a single relationship's as itself.
func (b *binder) segOf(rp *gql.RelPattern) (QuantSeg, []Column, error) {
	lo, hi := 1, 1
	if rp.VarLength != nil {
		lo, hi = rangeBounds(rp.VarLength)
	}
	inner, where := groupOf(rp)
	test, outer, err := b.groupTest(inner, where)
	if err != nil {
		return QuantSeg{}, nil, err
	}
	seg := QuantSeg{Steps: groupSteps(inner), Min: lo, Max: hi, Test: test, Outer: outer}
	var cols []Column
	if rp.Group == nil {
		if rp.Var != "" {
			seg.Lists = []int{1}
			if rp.VarLength == nil {
				seg.Single = true
				cols = append(cols, Column{Name: rp.Var, Type: vector.Rel})
			} else {
				cols = append(cols, Column{Name: rp.Var, Type: vector.Any, Kind: "LIST"})
			}
		}
		return seg, cols, nil
	}
	for pos, name := range groupVars(inner) {
		if name != "" {
			seg.Lists = append(seg.Lists, pos)
			cols = append(cols, Column{Name: name, Type: vector.Any, Kind: "LIST"})
		}
	}
	return seg, cols, nil
}

// midOf binds a node pattern between two relationships or groups of a
// searched part: its labels and properties, and, when its variable is
// bound before, equality with that node; a new variable gets a column.
func (b *binder) midOf(n *gql.NodePattern) (QuantMid, *Column, error) {
	bound := -1
	c := *n
	if c.Var != "" {
		if col, ok := b.sc.lookup(c.Var); ok {
			if err := b.checkKind(c.Pos, col, c.Var, vector.Node); err != nil {
				return QuantMid{}, nil, err
			}
			bound, c.Var = col, ""
		}
	}
	test, outer, err := b.groupTest(&gql.PatternPart{Pos: c.Pos, Nodes: []*gql.NodePattern{&c}}, nil)
	if err != nil {
		return QuantMid{}, nil, err
	}
	mid := QuantMid{Test: test, Outer: outer}
	if bound >= 0 {
		at := -1
		for j, o := range mid.Outer {
			if o == bound {
				at = j
			}
		}
		if at < 0 {
			at = len(mid.Outer)
			mid.Outer = append(mid.Outer, bound)
		}
		col := b.sc.cols[bound]
		eq := &Binary{Op: OpEq, L: &ColRef{Idx: 0, Name: "#mid", T: vector.Node},
			R: &ColRef{Idx: 1 + at, Name: col.Name, T: col.Type, Kind: col.Kind}}
		if mid.Test == nil {
			mid.Test = eq
		} else {
			mid.Test = &Binary{Op: OpAnd, L: mid.Test, R: eq}
		}
		return mid, nil, nil
	}
	if n.Var == "" {
		return mid, nil, nil
	}
	mid.Out = true
	col := b.sc.column(n.Var, vector.Node)
	return mid, &col, nil
}
