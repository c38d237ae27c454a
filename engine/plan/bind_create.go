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
	op := &Create{Input: in}
	cols := appendCols(b.sc.cols)
	local := map[string]int{} // variables this clause introduces → column
	colOf := func(name string) (int, bool) {
		if name == "" {
			return 0, false
		}
		if i, ok := local[name]; ok {
			return i, true
		}
		return b.sc.lookup(name)
	}
	type namedPath struct {
		name  string
		nodes []int
		rels  []int
	}
	var paths []namedPath
	pathVars := map[string]bool{}
	for _, part := range c.Pattern.Parts {
		for _, n := range part.Nodes {
			if pathVars[n.Var] {
				return semanticAt(n.Pos, "variable %s is a path, not a node", n.Var)
			}
		}
		if part.Var != "" {
			if _, ok := colOf(part.Var); ok || pathVars[part.Var] {
				return semanticAt(part.Pos, "variable %s is already bound", part.Var)
			}
		}
		if len(part.Nodes) == 1 && len(part.Rels) == 0 && part.Nodes[0].Var != "" {
			if _, ok := colOf(part.Nodes[0].Var); ok {
				return semanticAt(part.Nodes[0].Pos, "variable %s is already bound; CREATE cannot create it again", part.Nodes[0].Var)
			}
		}
		if part.Shortest != gql.ShortestNone {
			return syntaxAt(part.Pos, "shortest paths cannot be created")
		}
		nodeCols := make([]int, len(part.Nodes))
		for i, n := range part.Nodes {
			if col, ok := colOf(n.Var); ok {
				if len(part.Rels) == 0 {
					return semanticAt(n.Pos, "variable %s is already bound; CREATE cannot create it again", n.Var)
				}
				if c := cols[col]; c.Type != vector.Node && (c.Type != vector.Any || c.Kind != "") {
					return semanticAt(n.Pos, "variable %s is already bound to a %s, not a node", n.Var, cols[col].Type)
				}
				if len(n.Labels) > 0 || n.Props != nil {
					return semanticAt(n.Pos, "variable %s is already bound; CREATE cannot add labels or properties to it here", n.Var)
				}
				nodeCols[i] = col
				continue
			}
			keys, vals, err := b.createPropsOver(n.Props, cols)
			if err != nil {
				return err
			}
			op.Nodes = append(op.Nodes, CreateNode{Labels: n.Labels, Keys: keys, Vals: vals})
			op.Made = append(op.Made, len(op.Nodes)-1)
			cols = append(cols, b.sc.column(n.Var, vector.Node))
			nodeCols[i] = len(cols) - 1
			if n.Var != "" {
				local[n.Var] = nodeCols[i]
			}
		}
		relCols := make([]int, len(part.Rels))
		for i, r := range part.Rels {
			if r.Var != "" {
				if _, ok := colOf(r.Var); ok {
					return semanticAt(r.Pos, "variable %s is already bound; CREATE cannot reuse it for a relationship", r.Var)
				}
			}
			if len(r.Types) != 1 {
				return syntaxAt(r.Pos, "a relationship to create needs exactly one type")
			}
			if r.VarLength != nil {
				return syntaxAt(r.Pos, "variable-length relationships cannot be created")
			}
			from, to := nodeCols[i], nodeCols[i+1]
			switch r.Dir {
			case gql.DirLeft:
				from, to = to, from
			case gql.DirBoth:
				return syntaxAt(r.Pos, "a relationship to create needs a direction")
			}
			keys, vals, err := b.createPropsOver(r.Props, cols)
			if err != nil {
				return err
			}
			op.Rels = append(op.Rels, CreateRel{Type: r.Types[0], From: from, To: to, Keys: keys, Vals: vals})
			op.Made = append(op.Made, -len(op.Rels))
			cols = append(cols, b.sc.column(r.Var, vector.Rel))
			relCols[i] = len(cols) - 1
			if r.Var != "" {
				local[r.Var] = len(cols) - 1
			}
		}
		if part.Var != "" {
			paths = append(paths, namedPath{part.Var, nodeCols, relCols})
			pathVars[part.Var] = true
		}
	}
	op.Cols = cols
	b.set(op)
	if len(paths) == 0 {
		return nil
	}
	// Named paths are computed from the columns just made.
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
	return nil
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
