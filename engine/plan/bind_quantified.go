package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// Quantified path patterns, path modes and selectors. A pattern part with
// a quantified group, a mode or a selector (beyond ANY / ALL SHORTEST over
// a plain variable-length relationship, which stay ShortestPath) plans each
// group as one QuantifiedExpand (a whole part of several relationships
// under a mode or selector: bind_search.go): the group's node patterns,
// relationship properties and WHERE become one test of each iteration
// (QuantSeg.Test), made while the search expands; its variables become
// lists of the iterations' values.

// quantified reports whether a pattern part is planned through
// QuantifiedExpand: a group, a mode or a selector, ANY / ALL SHORTEST
// over several relationships or groups included.
func quantified(part *gql.PatternPart) bool {
	if part.Search != nil || part.Shortest != gql.ShortestNone && !part.Legacy && len(part.Rels) > 1 {
		return true
	}
	for _, r := range part.Rels {
		if r.Group != nil {
			return true
		}
	}
	return false
}

// searchOf is the mode and selector a quantified part asks for: its
// written prefix, or ANY / ALL SHORTEST as SHORTEST 1 [GROUPS].
func searchOf(part *gql.PatternPart) gql.PathSearch {
	if part.Search != nil {
		return *part.Search
	}
	s := gql.PathSearch{Pos: part.Pos, K: 1}
	if part.Shortest != gql.ShortestNone {
		s.Select, s.Groups = gql.SelectShortest, part.Shortest == gql.ShortestAll
	}
	return s
}

// quantifiedPart checks a quantified part of at most one relationship
// before matchPart plans it and returns the part to plan: under a mode or
// selector an anonymous fixed-length relationship becomes a quantifier
// {1,1} of it (bind_search.go plans longer parts).
func (b *binder) quantifiedPart(part *gql.PatternPart) (*gql.PatternPart, error) {
	s := searchOf(part)
	if s.Mode == gql.ModeDefault && s.Select == gql.SelectNone {
		return part, nil
	}
	if len(part.Rels) == 0 {
		return part, nil // one node: one path, of no relationship
	}
	rp := part.Rels[0]
	if rp.VarLength != nil {
		return part, nil
	}
	if rp.Var != "" {
		return nil, notSupported(rp.Pos, "a path mode or selector over a single named relationship is not supported yet; write it as a quantified group ((a)-[%s]->(b)){1}", rp.Var)
	}
	one := int64(1)
	c, r := *part, *rp
	r.VarLength = &gql.Range{Min: &one, Max: &one}
	c.Rels = []*gql.RelPattern{&r}
	return &c, nil
}

// quantifiedHop plans one hop of a quantified part (a group, or a
// variable-length relationship under a mode or selector) from the node in
// column from to the node pattern to (bound in column into when into >=
// 0); rels are the relationship columns of the MATCH the hop must not
// reuse.
func (b *binder) quantifiedHop(from, into int, rp *gql.RelPattern, to *gql.NodePattern, rels []int, part *gql.PatternPart) error {
	s := searchOf(part)
	if b.sec.Restricts() {
		return refuseUnderSecurity(rp.Pos, "a quantified path pattern")
	}
	lo, hi := rangeBounds(rp.VarLength)
	if s.Mode == gql.ModeWalk && hi == Unbounded && (s.Select == gql.SelectNone || s.Select == gql.SelectAll) {
		return semanticAt(s.Pos, "a WALK pattern without an upper bound matches infinitely many paths: give it an upper bound or a selector (ANY, ANY k, SHORTEST k)")
	}
	inner, where := groupOf(rp)
	test, outer, err := b.groupTest(inner, where)
	if err != nil {
		return err
	}
	single := len(inner.Rels) == 1
	relCol := Column{Name: rp.Var, Type: vector.Any, Kind: "LIST"}
	if rp.Var == "" || !single {
		relCol = Column{Name: b.sc.hiddenName("rels"), Type: vector.Any, Kind: "LIST", Hidden: true}
	}
	cols := appendCols(b.sc.cols, relCol)
	toName := b.sc.cols[max(into, 0)].Name
	if into < 0 {
		cols = append(cols, b.sc.column(to.Var, vector.Node))
		toName = colName(cols[len(cols)-1])
	}
	seg := QuantSeg{Min: lo, Max: hi, Test: test, Outer: outer, Steps: groupSteps(inner)}
	q := &QuantifiedExpand{Input: b.root, From: from, Into: into,
		Mode: s.Mode, Select: s.Select, K: int(s.K), Groups: s.Groups, Distinct: append([]int(nil), rels...)}
	if into < 0 {
		q.ToLabels = to.Labels
	}
	for pos, name := range groupVars(inner) {
		if name != "" && !(single && pos == 1) { // a single relationship's list is relCol
			seg.Lists = append(seg.Lists, pos)
			cols = append(cols, Column{Name: name, Type: vector.Any, Kind: "LIST"})
		}
	}
	q.Segs = []QuantSeg{seg}
	if part.Var != "" {
		q.PathCol = true
		cols = append(cols, Column{Name: b.sc.hiddenName("path"), Type: vector.Any, Kind: KindPath, Hidden: true})
	}
	q.Cols = cols
	if single {
		q.Pattern = hopText(colName(b.sc.cols[from]), colName(relCol), seg.Steps[0].Types, seg.Steps[0].Dir, lo, hi, toName, q.ToLabels)
	} else {
		q.Pattern = groupText(colName(b.sc.cols[from]), inner, lo, hi, toName, q.ToLabels)
	}
	b.set(q)
	return nil
}

// groupSteps are the relationships of one iteration. A type expression
// (bind_labels.go) follows the finite set of types it admits, or every
// type when it excludes some (!R): iterationTest tests the type then.
func groupSteps(inner *gql.PatternPart) []QuantStep {
	var steps []QuantStep
	for _, r := range inner.Rels {
		types := r.Types
		if r.TypeExpr != nil {
			types = nil
			if s := relTypeSet(bindLabelExpr(r.TypeExpr)); !s.co {
				types = s.names
				if len(types) == 0 { // R&S: no relationship has two types
					types = []string{""}
				}
			}
		}
		steps = append(steps, QuantStep{Types: uniqueTypes(types), Dir: direction(r.Dir)})
	}
	return steps
}

// groupOf is the pattern one iteration of rp matches and its condition:
// the group's, or (x)-[rp]-(y) without quantifier for a variable-length
// relationship.
func groupOf(rp *gql.RelPattern) (*gql.PatternPart, gql.Expr) {
	if rp.Group != nil {
		return rp.Group.Path, rp.Group.Where
	}
	r := *rp
	r.VarLength = nil
	return &gql.PatternPart{Pos: rp.Pos, Nodes: []*gql.NodePattern{{Pos: rp.Pos}, {Pos: rp.Pos}},
		Rels: []*gql.RelPattern{&r}}, nil
}

// groupVars names the variables of an iteration's positions: node i at
// 2i, relationship i at 2i+1 ("" for an anonymous one).
func groupVars(inner *gql.PatternPart) []string {
	names := make([]string, 0, 2*len(inner.Nodes)-1)
	for i, n := range inner.Nodes {
		if i > 0 {
			names = append(names, inner.Rels[i-1].Var)
		}
		names = append(names, n.Var)
	}
	return names
}

// groupTest binds the test one iteration must pass: its node patterns'
// labels and properties, its relationships' properties and its WHERE,
// over a row of the iteration's elements in order, then the variables
// bound before that it reads (outer lists their columns).
func (b *binder) groupTest(inner *gql.PatternPart, where gql.Expr) (test Expr, outer []int, err error) {
	names := groupVars(inner)
	own := map[string]bool{}
	for pos, name := range names {
		if name == "" {
			continue
		}
		at := inner.Nodes[pos/2].Pos
		if pos%2 == 1 {
			at = inner.Rels[pos/2].Pos
		}
		if own[name] {
			return nil, nil, notSupported(at, "variable %s named twice in a quantified path pattern is not supported yet", name)
		}
		own[name] = true
		if b.bound(name) {
			return nil, nil, semanticAt(at, "variable %s is already defined; a quantified path pattern's variables are its own", name)
		}
	}
	exprs := []gql.Expr{where}
	for _, n := range inner.Nodes {
		exprs = append(exprs, n.Props)
	}
	for _, r := range inner.Rels {
		exprs = append(exprs, r.Props)
	}
	for _, e := range exprs {
		outer = b.outerRefs(e, own, outer)
	}
	saved := b.sc
	b.sc = scope{anon: saved.anon}
	for pos, name := range names {
		t := vector.Node
		if pos%2 == 1 {
			t = vector.Rel
		}
		b.sc.cols = append(b.sc.cols, b.sc.column(name, t))
	}
	for _, c := range outer {
		col := saved.cols[c]
		b.sc.cols = append(b.sc.cols, Column{Name: col.Name, Type: col.Type, Kind: col.Kind})
	}
	test, err = b.iterationTest(inner, where)
	saved.anon = b.sc.anon
	b.sc = saved
	return test, outer, err
}

// iterationTest builds groupTest's predicate in the scope of the
// iteration's elements.
func (b *binder) iterationTest(inner *gql.PatternPart, where gql.Expr) (Expr, error) {
	var test Expr
	and := func(e Expr) {
		if test == nil {
			test = e
		} else {
			test = &Binary{Op: OpAnd, L: test, R: e}
		}
	}
	prop := func(col int, props gql.Expr) error {
		if props == nil {
			return nil
		}
		m, ok := props.(*gql.MapLit)
		if !ok {
			return semanticAt(props.Position(), "a parameter cannot be used as a property map in MATCH; compare properties in WHERE")
		}
		for k, key := range m.Keys {
			v, err := b.expr(m.Values[k], noAggregates)
			if err != nil {
				return err
			}
			and(&Binary{Op: OpEq, L: b.decrypt(&Property{Of: b.sc.ref(col), Key: key}, key), R: v})
		}
		return nil
	}
	for i, n := range inner.Nodes {
		if err := prop(2*i, n.Props); err != nil {
			return nil, err
		}
		if len(n.Labels) > 0 {
			and(&HasLabels{X: b.sc.ref(2 * i), Labels: n.Labels})
		}
		if n.LabelExpr != nil {
			and(&HasLabels{X: b.sc.ref(2 * i), Expr: bindLabelExpr(n.LabelExpr)})
		}
	}
	for i, r := range inner.Rels {
		if err := prop(2*i+1, r.Props); err != nil {
			return nil, err
		}
		if r.TypeExpr != nil {
			and(&HasLabels{X: b.sc.ref(2*i + 1), Expr: bindLabelExpr(r.TypeExpr)})
		}
	}
	if where != nil {
		pred, err := b.expr(where, noAggregates)
		if err != nil {
			return nil, err
		}
		switch t := pred.Type(); t {
		case vector.Node, vector.Rel, vector.Int64, vector.Float64, vector.String:
			return nil, semanticAt(where.Position(), "WHERE expects a boolean, got %s", t)
		}
		and(pred)
	}
	return test, nil
}

// groupText renders a group of several relationships for EXPLAIN.
func groupText(from string, inner *gql.PatternPart, lo, hi int, to string, toLabels []string) string {
	var sb strings.Builder
	sb.WriteString("(" + from + ")((")
	for i, n := range inner.Nodes {
		if i > 0 {
			r := inner.Rels[i-1]
			left, right := "-", "->"
			switch direction(r.Dir) {
			case In:
				left, right = "<-", "-"
			case Both:
				right = "-"
			}
			t := ""
			if types := uniqueTypes(r.Types); len(types) > 0 {
				t = ":" + strings.Join(types, "|")
			}
			sb.WriteString(left + "[" + r.Var + t + "]" + right + "(")
		}
		sb.WriteString(n.Var + labelText(n.Labels) + ")")
	}
	r := fmt.Sprintf("){%d,", lo)
	if hi != Unbounded {
		r += fmt.Sprint(hi)
	}
	sb.WriteString(r + "}(" + to + labelText(toLabels) + ")")
	return sb.String()
}

// outerRefs adds to cols the columns of the variables bound before the
// group that e reads (each once).
func (b *binder) outerRefs(e gql.Expr, own map[string]bool, cols []int) []int {
	gql.Walk(e, func(e gql.Expr) bool {
		if v, ok := e.(*gql.Variable); ok && !own[v.Name] {
			if c, ok := b.sc.lookup(v.Name); ok && !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
		return true
	})
	return cols
}
