package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// varLengthHop plans -[r:T*min..max {props}]- from the node in column from
// to the node pattern to (already bound in column into when into >= 0).
// rels are the relationship columns of the same MATCH the chain must not
// reuse; withPath asks for a path segment column for a named path;
// reversed says the pattern part is planned from its last node.
func (b *binder) varLengthHop(from, into int, rp *gql.RelPattern, to *gql.NodePattern, rels []int, withPath, reversed bool) error {
	lo, hi := rangeBounds(rp.VarLength)
	keys, vals, err := b.relProps(rp.Props)
	if err != nil {
		return err
	}
	in := b.root
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
	if withPath {
		cols = append(cols, Column{Name: b.sc.hiddenName("path"), Type: vector.Any, Kind: KindPath, Hidden: true})
	}
	vl := &VarLengthExpand{Input: in, From: from, RelVar: rp.Var, ToVar: to.Var, Types: rp.Types,
		Dir: direction(rp.Dir), Min: lo, Max: hi, Into: into, RelKeys: keys, RelVals: vals,
		Distinct: append([]int(nil), rels...), PathCol: withPath, Reversed: reversed, Cols: cols}
	if into < 0 {
		vl.ToLabels = to.Labels
	}
	vl.Pattern = hopText(colName(b.sc.cols[from]), colName(relCol), rp.Types, vl.Dir, lo, hi, toName, vl.ToLabels)
	b.secureChain(&vl.RelTest, &vl.NodeTest)
	b.set(vl)
	return nil
}

// rangeBounds resolves *, *n, *n.., *..m, *n..m: the minimum defaults to
// 1, the maximum to unbounded.
func rangeBounds(r *gql.Range) (lo, hi int) {
	lo, hi = 1, Unbounded
	if r.Min != nil {
		lo = int(*r.Min)
	}
	if r.Max != nil {
		hi = int(*r.Max)
	}
	return lo, hi
}

// relProps binds the inline property map of a variable-length pattern:
// every relationship of the chain must carry these values.
func (b *binder) relProps(props gql.Expr) ([]string, []Expr, error) {
	if props == nil {
		return nil, nil, nil
	}
	m, ok := props.(*gql.MapLit)
	if !ok {
		return nil, nil, notSupported(props.Position(), "a parameter as a property map in MATCH is not supported yet")
	}
	vals := make([]Expr, len(m.Keys))
	for i := range m.Keys {
		v, err := b.expr(m.Values[i], noAggregates)
		if err != nil {
			return nil, nil, err
		}
		vals[i] = v
	}
	return m.Keys, vals, nil
}

// hopText renders a variable-length hop for EXPLAIN.
func hopText(from, rel string, types []string, dir Direction, lo, hi int, to string, toLabels []string) string {
	left, right := "-", "->"
	switch dir {
	case In:
		left, right = "<-", "-"
	case Both:
		right = "-"
	}
	t := ""
	if len(types) > 0 {
		t = ":" + strings.Join(types, "|")
	}
	r := fmt.Sprintf("*%d..", lo)
	if hi != Unbounded {
		r += fmt.Sprint(hi)
	}
	return fmt.Sprintf("(%s)%s[%s%s%s]%s(%s%s)", from, left, rel, t, r, right, to, labelText(toLabels))
}

// namePath binds a path variable to a PATH built from the part's columns in
// written order.
func (b *binder) namePath(part *gql.PatternPart, pc *partCols) error {
	if b.bound(part.Var) {
		return semanticAt(part.Pos, "variable %s is already defined", part.Var)
	}
	n := len(pc.hops)
	at := func(i int) int { // planned index of written element i
		if pc.reversed {
			return n - i
		}
		return i
	}
	args := []Expr{b.sc.ref(pc.nodes[at(0)])}
	for i := 0; i < n; i++ {
		h := i
		if pc.reversed {
			h = n - 1 - i
		}
		args = append(args, b.sc.ref(pc.hops[h]), &Const{Val: pc.reversed && pc.seg[h], T: vector.Bool},
			b.sc.ref(pc.nodes[at(i+1)]))
	}
	path := &Call{Name: functions.OpPath, Args: args, T: vector.Any, Kind: KindPath}
	exprs := make([]Expr, 0, len(b.sc.cols)+1)
	for i := range b.sc.cols {
		exprs = append(exprs, b.sc.ref(i))
	}
	exprs = append(exprs, path)
	b.set(&Project{Input: b.root, Exprs: exprs,
		Cols: appendCols(b.sc.cols, Column{Name: part.Var, Type: vector.Any, Kind: KindPath})})
	return nil
}

// shortestPart plans shortestPath / allShortestPaths (and ANY / ALL
// SHORTEST): both ends are bound (or scanned, which searches every pair),
// then a breadth-first search per row.
func (b *binder) shortestPart(part *gql.PatternPart, before int) (*partCols, error) {
	name := "shortestPath"
	if part.Shortest == gql.ShortestAll {
		name = "allShortestPaths"
	}
	if len(part.Rels) != 1 {
		return nil, semanticAt(part.Pos, "%s requires a pattern with exactly one relationship", name)
	}
	rp, err := b.relTypeExpr(part.Rels[0], true)
	if err != nil {
		return nil, err
	}
	lo, hi := 1, 1
	if rp.VarLength != nil {
		lo, hi = rangeBounds(rp.VarLength)
	}
	if lo > 1 {
		return nil, semanticAt(rp.Pos, "%s does not support a minimal length other than 0 or 1", name)
	}
	if rp.Var != "" {
		if col, ok := b.sc.lookup(rp.Var); ok {
			if col >= before {
				return nil, semanticAt(rp.Pos, "variable %s is already bound in this pattern", rp.Var)
			}
			return nil, notSupported(rp.Pos, "binding relationship variable %s twice is not supported yet", rp.Var)
		}
		if rp.Var == part.Nodes[0].Var || rp.Var == part.Nodes[1].Var {
			return nil, semanticAt(rp.Pos, "variable %s cannot name both a node and a relationship", rp.Var)
		}
	}
	keys, vals, err := b.relProps(rp.Props)
	if err != nil {
		return nil, err
	}
	from, err := b.startNode(part.Nodes[0])
	if err != nil {
		return nil, err
	}
	to, err := b.startNode(part.Nodes[1])
	if err != nil {
		return nil, err
	}
	relCol := Column{Name: rp.Var, Type: vector.Any, Kind: "LIST"}
	if rp.Var == "" {
		relCol = Column{Name: b.sc.hiddenName("rels"), Type: vector.Any, Kind: "LIST", Hidden: true}
	}
	seg := Column{Name: b.sc.hiddenName("path"), Type: vector.Any, Kind: KindPath, Hidden: true}
	dir := direction(rp.Dir)
	sp := &ShortestPath{Input: b.root, From: from, To: to, RelVar: rp.Var, Types: rp.Types, Dir: dir,
		Min: lo, Max: hi, RelKeys: keys, RelVals: vals, All: part.Shortest == gql.ShortestAll,
		Steer: part.Legacy, Cols: appendCols(b.sc.cols, relCol, seg)}
	sp.Pattern = hopText(colName(b.sc.cols[from]), colName(relCol), rp.Types, dir, lo, hi, colName(b.sc.cols[to]), nil)
	if b.sec.Restricts() {
		// Only a steered search (shortestPath, allShortestPaths) looks
		// for the shortest paths among the visible elements; a GQL
		// SHORTEST search filters what it found and could hide a
		// shorter path through a hidden element, telling of it.
		if !sp.Steer {
			return nil, refuseUnderSecurity(part.Pos, "a GQL SHORTEST path search")
		}
		b.secureChain(&sp.RelTest, &sp.NodeTest)
	}
	b.set(sp)
	n := len(b.sc.cols)
	return &partCols{nodes: []int{from, to}, hops: []int{n - 1}, seg: []bool{true}}, nil
}

// whereAround plans the WHERE of a MATCH with shortest path searches: the
// conjuncts that only read columns bound before a search filter its input,
// so that it runs only for the rows that pass them (the endpoints' own
// conditions, typically); the rest filter the result.
func (b *binder) whereAround(e gql.Expr, searches []*ShortestPath) error {
	pred, err := b.expr(e, noAggregates)
	if err != nil {
		return err
	}
	var rest Expr
	for _, c := range andTerms(pred, nil) {
		top, ok := highestCol(c)
		pushed := false
		for _, sp := range searches { // lowest in the plan first
			if ok && top < len(sp.Input.Columns()) {
				sp.Input = &Filter{Input: sp.Input, Pred: c}
				pushed = true
				break
			}
		}
		switch {
		case pushed:
		case rest == nil:
			rest = c
		default:
			rest = &Binary{Op: OpAnd, L: rest, R: c}
		}
	}
	if rest != nil {
		b.set(&Filter{Input: b.root, Pred: rest})
	}
	return nil
}

// andTerms splits a predicate at its top-level ANDs.
func andTerms(e Expr, out []Expr) []Expr {
	if x, ok := e.(*Binary); ok && x.Op == OpAnd {
		return andTerms(x.R, andTerms(x.L, out))
	}
	return append(out, e)
}

// highestCol is the highest column an expression reads (-1 for none); ok is
// false for an expression it does not know how to look into.
func highestCol(e Expr) (int, bool) {
	top := -1
	ok := true
	var walk func(e Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case *ColRef:
			top = max(top, x.Idx)
		case *Const, *Param:
		case *Property:
			walk(x.Of)
		case *Binary:
			walk(x.L)
			walk(x.R)
		case *Not:
			walk(x.X)
		case *Neg:
			walk(x.X)
		case *IsNull:
			walk(x.X)
		case *HasLabels:
			walk(x.X)
		case *List:
			for _, y := range x.Elems {
				walk(y)
			}
		case *Map:
			for _, y := range x.Vals {
				walk(y)
			}
		case *Call:
			for _, y := range x.Args {
				walk(y)
			}
		default:
			ok = false
		}
	}
	walk(e)
	return top, ok
}
