package plan

import (
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// Quantified path patterns, path modes and selectors. A pattern part with
// a quantified group, a mode or a selector (beyond ANY / ALL SHORTEST over
// a plain variable-length relationship, which stay ShortestPath) plans each
// group as one QuantifiedExpand: its node patterns, relationship
// properties and WHERE become one test of each iteration (HopTest), made
// while the search expands; its variables become lists of the
// iterations' values.

// quantified reports whether a pattern part is planned through
// QuantifiedExpand.
func quantified(part *gql.PatternPart) bool {
	if part.Search != nil {
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

// quantifiedPart checks a quantified part before matchPart plans it and
// returns the part to plan: a mode or selector applies to a part of one
// relationship, which an anonymous fixed-length relationship becomes a
// quantifier {1,1} of.
func (b *binder) quantifiedPart(part *gql.PatternPart) (*gql.PatternPart, error) {
	s := searchOf(part)
	if s.Mode == gql.ModeDefault && s.Select == gql.SelectNone {
		return part, nil
	}
	if len(part.Rels) != 1 {
		return nil, notSupported(s.Pos, "a path mode or selector over a pattern of other than one relationship or quantified group is not supported yet")
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
	lo, hi := rangeBounds(rp.VarLength)
	if rp.Group != nil {
		if len(rp.Group.Path.Rels) > 1 {
			return notSupported(rp.Group.Path.Rels[1].Pos, "quantified path pattern with more than one relationship is not supported yet")
		}
	}
	if s.Mode == gql.ModeWalk && hi == Unbounded && (s.Select == gql.SelectNone || s.Select == gql.SelectAll) {
		return semanticAt(s.Pos, "a WALK pattern without an upper bound matches infinitely many paths: give it an upper bound or a selector (ANY, ANY k, SHORTEST k)")
	}
	test, xName, yName, err := b.hopTest(rp)
	if err != nil {
		return err
	}
	relCol := Column{Name: rp.Var, Type: vector.Any, Kind: "LIST"}
	if rp.Var == "" {
		relCol = Column{Name: b.sc.hiddenName("rels"), Type: vector.Any, Kind: "LIST", Hidden: true}
	}
	cols := appendCols(b.sc.cols, relCol)
	toName := b.sc.cols[max(into, 0)].Name
	if into < 0 {
		cols = append(cols, b.sc.column(to.Var, vector.Node))
		toName = colName(cols[len(cols)-1])
	}
	q := &QuantifiedExpand{Input: b.root, From: from, Into: into, Types: uniqueTypes(rp.Types), Dir: direction(rp.Dir),
		Min: lo, Max: hi, HopTest: test, Mode: s.Mode, Select: s.Select, K: int(s.K), Groups: s.Groups,
		Distinct: append([]int(nil), rels...)}
	if into < 0 {
		q.ToLabels = to.Labels
	}
	for _, name := range []string{xName, yName} {
		if name != "" {
			cols = append(cols, Column{Name: name, Type: vector.Any, Kind: "LIST"})
		}
	}
	q.XList, q.YList = xName != "", yName != ""
	if part.Var != "" {
		q.PathCol = true
		cols = append(cols, Column{Name: b.sc.hiddenName("path"), Type: vector.Any, Kind: KindPath, Hidden: true})
	}
	q.Cols = cols
	q.Pattern = hopText(colName(b.sc.cols[from]), colName(relCol), q.Types, q.Dir, lo, hi, toName, q.ToLabels)
	b.set(q)
	return nil
}

// hopTest binds the test one iteration of a group must pass: its node
// patterns' labels and properties, its relationship's properties and its
// WHERE, over a row of three columns (x, r, y). It returns the group's
// node variables, which the caller binds as lists.
func (b *binder) hopTest(rp *gql.RelPattern) (Expr, string, string, error) {
	var x, y gql.NodePattern
	if rp.Group != nil {
		x, y = *rp.Group.Path.Nodes[0], *rp.Group.Path.Nodes[1]
	}
	for _, n := range []*gql.NodePattern{&x, &y} {
		if n.Var == "" {
			continue
		}
		if b.bound(n.Var) {
			return nil, "", "", semanticAt(n.Pos, "variable %s is already defined; a quantified path pattern's variables are its own", n.Var)
		}
		if n.Var == rp.Var || n == &y && n.Var == x.Var {
			return nil, "", "", notSupported(n.Pos, "variable %s named twice in a quantified path pattern is not supported yet", n.Var)
		}
	}
	if rp.Var != "" && rp.Group != nil && b.bound(rp.Var) {
		return nil, "", "", semanticAt(rp.Pos, "variable %s is already defined; a quantified path pattern's variables are its own", rp.Var)
	}
	var where gql.Expr
	if rp.Group != nil {
		where = rp.Group.Where
	}
	inner := map[string]bool{x.Var: true, y.Var: true, rp.Var: true}
	for _, e := range []gql.Expr{x.Props, y.Props, rp.Props, where} {
		if err := b.outerRefs(e, inner); err != nil {
			return nil, "", "", err
		}
	}
	outer := b.sc
	b.sc = scope{anon: outer.anon}
	b.sc.cols = []Column{b.sc.column(x.Var, vector.Node), b.sc.column(rp.Var, vector.Rel), b.sc.column(y.Var, vector.Node)}
	test, err := b.iterationTest(&x, rp, &y, where)
	outer.anon = b.sc.anon
	b.sc = outer
	return test, x.Var, y.Var, err
}

// iterationTest builds hopTest's predicate in the scope of (x, r, y).
func (b *binder) iterationTest(x *gql.NodePattern, rp *gql.RelPattern, y *gql.NodePattern, where gql.Expr) (Expr, error) {
	var test Expr
	and := func(e Expr) {
		if test == nil {
			test = e
		} else {
			test = &Binary{Op: OpAnd, L: test, R: e}
		}
	}
	for i, props := range []gql.Expr{x.Props, rp.Props, y.Props} {
		if props == nil {
			continue
		}
		m, ok := props.(*gql.MapLit)
		if !ok {
			return nil, semanticAt(props.Position(), "a parameter cannot be used as a property map in MATCH; compare properties in WHERE")
		}
		for k, key := range m.Keys {
			v, err := b.expr(m.Values[k], noAggregates)
			if err != nil {
				return nil, err
			}
			and(&Binary{Op: OpEq, L: &Property{Of: b.sc.ref(i), Key: key}, R: v})
		}
	}
	if len(x.Labels) > 0 {
		and(&HasLabels{X: b.sc.ref(0), Labels: x.Labels})
	}
	if len(y.Labels) > 0 {
		and(&HasLabels{X: b.sc.ref(2), Labels: y.Labels})
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

// outerRefs refuses a group's condition that reads a variable bound
// outside the group: the test is made on the group's own elements only.
func (b *binder) outerRefs(e gql.Expr, inner map[string]bool) error {
	var err error
	gql.Walk(e, func(e gql.Expr) bool {
		if v, ok := e.(*gql.Variable); ok && err == nil && !inner[v.Name] && b.bound(v.Name) {
			err = notSupported(v.Pos, "a quantified path pattern's condition reading variable %s from outside the group is not supported yet", v.Name)
		}
		return err == nil
	})
	return err
}
