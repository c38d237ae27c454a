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
	s := &createScope{b: b, op: &Create{Input: in}, cols: appendCols(b.sc.cols), local: map[string]int{}, pathVars: map[string]bool{}}
	for _, part := range c.Pattern.Parts {
		if err := s.part(part); err != nil {
			return err
		}
	}
	op := s.op
	op.Cols = s.cols
	b.set(op)
	if len(s.paths) == 0 {
		return nil
	}
	// Named paths are computed from the columns just made.
	exprs := make([]Expr, 0, len(b.sc.cols)+len(s.paths))
	for i := range b.sc.cols {
		exprs = append(exprs, b.sc.ref(i))
	}
	out := appendCols(b.sc.cols)
	for _, p := range s.paths {
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

// createScope is what a CREATE clause has made so far: the operator, its
// columns (the input's, then one per element made), the variables it
// introduced and its named paths.
type createScope struct {
	b        *binder
	op       *Create
	cols     []Column
	local    map[string]int // variables this clause introduces → column
	paths    []namedPath
	pathVars map[string]bool
}

// namedPath is a path variable of the clause, by its elements' columns.
type namedPath struct {
	name  string
	nodes []int
	rels  []int
}

// colOf is the column of a variable, the clause's own or the input's.
func (s *createScope) colOf(name string) (int, bool) {
	if name == "" {
		return 0, false
	}
	if i, ok := s.local[name]; ok {
		return i, true
	}
	return s.b.sc.lookup(name)
}

// part plans one pattern part of the clause.
func (s *createScope) part(part *gql.PatternPart) error {
	for _, n := range part.Nodes {
		if s.pathVars[n.Var] {
			return semanticAt(n.Pos, "variable %s is a path, not a node", n.Var)
		}
	}
	if part.Var != "" {
		if _, ok := s.colOf(part.Var); ok || s.pathVars[part.Var] {
			return semanticAt(part.Pos, "variable %s is already bound", part.Var)
		}
	}
	if len(part.Nodes) == 1 && len(part.Rels) == 0 && part.Nodes[0].Var != "" {
		if _, ok := s.colOf(part.Nodes[0].Var); ok {
			return semanticAt(part.Nodes[0].Pos, "variable %s is already bound; CREATE cannot create it again", part.Nodes[0].Var)
		}
	}
	if part.Shortest != gql.ShortestNone || part.Search != nil {
		return syntaxAt(part.Pos, "shortest paths, path modes and selectors cannot be created")
	}
	nodeCols, err := s.nodes(part)
	if err != nil {
		return err
	}
	relCols, err := s.rels(part, nodeCols)
	if err != nil {
		return err
	}
	if part.Var != "" {
		s.paths = append(s.paths, namedPath{part.Var, nodeCols, relCols})
		s.pathVars[part.Var] = true
	}
	return nil
}

// nodes plans the part's nodes: a bound variable is reused, every other
// node pattern makes a node. It returns each node's column.
func (s *createScope) nodes(part *gql.PatternPart) ([]int, error) {
	b, cols := s.b, s.cols
	if err := writableLabels(part); err != nil {
		return nil, err
	}
	nodeCols := make([]int, len(part.Nodes))
	for i, n := range part.Nodes {
		if col, ok := s.colOf(n.Var); ok {
			if len(part.Rels) == 0 {
				return nil, semanticAt(n.Pos, "variable %s is already bound; CREATE cannot create it again", n.Var)
			}
			if c := cols[col]; c.Type != vector.Node && (c.Type != vector.Any || c.Kind != "") {
				return nil, semanticAt(n.Pos, "variable %s is already bound to a %s, not a node", n.Var, cols[col].Type)
			}
			if len(n.Labels) > 0 || n.Props != nil {
				return nil, semanticAt(n.Pos, "variable %s is already bound; CREATE cannot add labels or properties to it here", n.Var)
			}
			nodeCols[i] = col
			continue
		}
		keys, vals, err := b.createPropsOver(n.Props, cols)
		if err != nil {
			return nil, err
		}
		s.op.Nodes = append(s.op.Nodes, CreateNode{Labels: n.Labels, Keys: keys, Vals: vals})
		s.op.Made = append(s.op.Made, len(s.op.Nodes)-1)
		cols = append(cols, b.sc.column(n.Var, vector.Node))
		s.cols = cols
		nodeCols[i] = len(cols) - 1
		if n.Var != "" {
			s.local[n.Var] = nodeCols[i]
		}
	}
	return nodeCols, nil
}

// rels plans the part's relationships between the nodes of nodeCols and
// returns each one's column.
func (s *createScope) rels(part *gql.PatternPart, nodeCols []int) ([]int, error) {
	b := s.b
	relCols := make([]int, len(part.Rels))
	for i, r := range part.Rels {
		if r.Var != "" {
			if _, ok := s.colOf(r.Var); ok {
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
		keys, vals, err := b.createPropsOver(r.Props, s.cols)
		if err != nil {
			return nil, err
		}
		s.op.Rels = append(s.op.Rels, CreateRel{Type: r.Types[0], From: from, To: to, Keys: keys, Vals: vals})
		s.op.Made = append(s.op.Made, -len(s.op.Rels))
		s.cols = append(s.cols, b.sc.column(r.Var, vector.Rel))
		relCols[i] = len(s.cols) - 1
		if r.Var != "" {
			s.local[r.Var] = len(s.cols) - 1
		}
	}
	return relCols, nil
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
		// constant properties, so the plan holds this value.
		b.valueBound = true
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
