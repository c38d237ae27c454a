package plan

import (
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// create plans a CREATE clause: every node pattern that is not an already
// bound variable makes a node, every relationship pattern makes a
// relationship; all of them once per input row.
func (b *binder) create(c *gql.Create) error {
	b.writes = true
	in := b.input()
	if b.root == nil {
		b.set(in)
	}
	cb := &createBinding{b: b, op: &Create{Input: in}, cols: appendCols(b.sc.cols), local: map[string]int{}}
	var paths []createdPath
	pathVars := map[string]bool{}
	for _, part := range c.Pattern.Parts {
		if err := cb.checkPart(part, pathVars); err != nil {
			return err
		}
		nodeCols, err := cb.nodes(part)
		if err != nil {
			return err
		}
		relCols, err := cb.rels(part, nodeCols)
		if err != nil {
			return err
		}
		if part.Var != "" {
			paths = append(paths, createdPath{part.Var, nodeCols, relCols})
			pathVars[part.Var] = true
		}
	}
	cb.op.Cols = cb.cols
	b.set(cb.op)
	if len(paths) > 0 {
		b.projectCreatedPaths(cb.op, paths)
	}
	return nil
}

// createBinding is the state of binding one CREATE clause: the operator,
// its columns so far and the variables the clause introduces (→ column).
type createBinding struct {
	b     *binder
	op    *Create
	cols  []Column
	local map[string]int
}

// createdPath is a named path of a CREATE: the columns of its nodes and
// relationships.
type createdPath struct {
	name  string
	nodes []int
	rels  []int
}

// colOf is the column of a variable: one the clause made, or the input's.
func (cb *createBinding) colOf(name string) (int, bool) {
	if name == "" {
		return 0, false
	}
	if i, ok := cb.local[name]; ok {
		return i, true
	}
	return cb.b.sc.lookup(name)
}

// checkPart rejects a pattern part that uses a path variable as a node,
// binds a bound variable to a path, recreates a lone bound node or asks
// for shortest paths.
func (cb *createBinding) checkPart(part *gql.PatternPart, pathVars map[string]bool) error {
	for _, n := range part.Nodes {
		if pathVars[n.Var] {
			return semanticAt(n.Pos, "variable %s is a path, not a node", n.Var)
		}
	}
	if part.Var != "" {
		if _, ok := cb.colOf(part.Var); ok || pathVars[part.Var] {
			return semanticAt(part.Pos, "variable %s is already bound", part.Var)
		}
	}
	if len(part.Nodes) == 1 && len(part.Rels) == 0 && part.Nodes[0].Var != "" {
		if _, ok := cb.colOf(part.Nodes[0].Var); ok {
			return semanticAt(part.Nodes[0].Pos, "variable %s is already bound; CREATE cannot create it again", part.Nodes[0].Var)
		}
	}
	if part.Shortest != gql.ShortestNone {
		return syntaxAt(part.Pos, "shortest paths cannot be created")
	}
	return nil
}

// nodes binds the part's node patterns: a bound node is used as it is,
// any other is made; it returns each node's column.
func (cb *createBinding) nodes(part *gql.PatternPart) ([]int, error) {
	nodeCols := make([]int, len(part.Nodes))
	for i, n := range part.Nodes {
		if col, ok := cb.colOf(n.Var); ok {
			if len(part.Rels) == 0 {
				return nil, semanticAt(n.Pos, "variable %s is already bound; CREATE cannot create it again", n.Var)
			}
			if c := cb.cols[col]; c.Type != vector.Node && (c.Type != vector.Any || c.Kind != "") {
				return nil, semanticAt(n.Pos, "variable %s is already bound to a %s, not a node", n.Var, cb.cols[col].Type)
			}
			if len(n.Labels) > 0 || n.Props != nil {
				return nil, semanticAt(n.Pos, "variable %s is already bound; CREATE cannot add labels or properties to it here", n.Var)
			}
			nodeCols[i] = col
			continue
		}
		keys, vals, err := cb.b.createPropsOver(n.Props, cb.cols)
		if err != nil {
			return nil, err
		}
		cb.op.Nodes = append(cb.op.Nodes, CreateNode{Labels: n.Labels, Keys: keys, Vals: vals})
		cb.op.Made = append(cb.op.Made, len(cb.op.Nodes)-1)
		cb.cols = append(cb.cols, cb.b.sc.column(n.Var, vector.Node))
		nodeCols[i] = len(cb.cols) - 1
		if n.Var != "" {
			cb.local[n.Var] = nodeCols[i]
		}
	}
	return nodeCols, nil
}

// rels binds the part's relationship patterns between the nodes of
// nodeCols, each of one type and a direction; it returns each one's
// column.
func (cb *createBinding) rels(part *gql.PatternPart, nodeCols []int) ([]int, error) {
	relCols := make([]int, len(part.Rels))
	for i, r := range part.Rels {
		if r.Var != "" {
			if _, ok := cb.colOf(r.Var); ok {
				return nil, semanticAt(r.Pos, "variable %s is already bound; CREATE cannot reuse it for a relationship", r.Var)
			}
		}
		if len(r.Types) != 1 {
			return nil, syntaxAt(r.Pos, "a relationship to create needs exactly one type")
		}
		if r.VarLength != nil {
			return nil, syntaxAt(r.Pos, "variable-length relationships cannot be created")
		}
		from, to := nodeCols[i], nodeCols[i+1]
		switch r.Dir {
		case gql.DirLeft:
			from, to = to, from
		case gql.DirBoth:
			return nil, syntaxAt(r.Pos, "a relationship to create needs a direction")
		}
		keys, vals, err := cb.b.createPropsOver(r.Props, cb.cols)
		if err != nil {
			return nil, err
		}
		cb.op.Rels = append(cb.op.Rels, CreateRel{Type: r.Types[0], From: from, To: to, Keys: keys, Vals: vals})
		cb.op.Made = append(cb.op.Made, -len(cb.op.Rels))
		cb.cols = append(cb.cols, cb.b.sc.column(r.Var, vector.Rel))
		relCols[i] = len(cb.cols) - 1
		if r.Var != "" {
			cb.local[r.Var] = len(cb.cols) - 1
		}
	}
	return relCols, nil
}

// projectCreatedPaths computes the named paths of a CREATE from the
// columns just made.
func (b *binder) projectCreatedPaths(op *Create, paths []createdPath) {
	exprs := make([]Expr, 0, len(b.sc.cols)+len(paths))
	for i := range b.sc.cols {
		exprs = append(exprs, b.sc.ref(i))
	}
	out := appendCols(b.sc.cols)
	for _, p := range paths {
		args := []Expr{b.sc.ref(p.nodes[0])}
		for i, r := range p.rels {
			args = append(args, b.sc.ref(r), &Const{Val: false, T: vector.Bool}, b.sc.ref(p.nodes[i+1]))
		}
		exprs = append(exprs, &Call{Name: functions.OpPath, Args: args, T: vector.Any, Kind: KindPath})
		out = append(out, Column{Name: p.name, Type: vector.Any, Kind: KindPath})
	}
	b.set(&Project{Input: op, Exprs: exprs, Cols: out})
}

// createPropsOver binds a property map over cols: the input's columns
// plus what the clause made before this element, so that
// CREATE (a {id: 0}), (b {ref: a.id}) can read a. The executor evaluates
// each element's properties after the elements before it exist.
func (b *binder) createPropsOver(props gql.Expr, cols []Column) ([]string, []Expr, error) {
	saved := b.sc.cols
	b.sc.cols = cols
	defer func() { b.sc.cols = saved }()
	return b.createProps(props)
}

// createProps binds an inline property map of a pattern to create.
func (b *binder) createProps(props gql.Expr) ([]string, []Expr, error) {
	if props == nil {
		return nil, nil, nil
	}
	if p, ok := props.(*gql.Param); ok {
		// The parameter's value is known now: its entries become
		// constant properties.
		v, ok := b.params[p.Name]
		if !ok {
			return nil, nil, errs.New(errs.CodeInvalidParam, errs.CatData, "missing parameter $%s", p.Name)
		}
		pm, ok := v.(map[string]vector.Value)
		if !ok {
			return nil, nil, errs.DataCode(errs.CodeInvalidParam, "parameter $%s must be a map of properties, got %s", p.Name, vector.TypeOf(v)).At(p.Pos.Line, p.Pos.Column)
		}
		keys := make([]string, 0, len(pm))
		for k := range pm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vals := make([]Expr, len(keys))
		for i, k := range keys {
			vals[i] = &Const{Val: pm[k], T: vector.TypeOf(pm[k])}
		}
		return keys, vals, nil
	}
	m, ok := props.(*gql.MapLit)
	if !ok {
		// CREATE (n $props): the map is spread at runtime; an empty key
		// in Keys marks it (see CreateNode).
		v, err := b.expr(props, noAggregates)
		if err != nil {
			return nil, nil, err
		}
		if t := v.Type(); t != vector.Any && t != vector.Null {
			return nil, nil, semanticAt(props.Position(), "a property map must be a map, got %s", t)
		}
		return []string{""}, []Expr{v}, nil
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
