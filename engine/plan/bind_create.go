package plan

import (
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// create plans a CREATE clause: every node pattern that is not an already
// bound variable makes a node, every relationship pattern makes a
// relationship; all of them once per input row. A property of an element
// may read an element the clause made before it (CREATE (a {id: 0}),
// ({num: a.id})): the clause is then planned as a chain of Create
// operators, the element that reads starting a new one whose input holds
// what was made so far, since a Create evaluates its property
// expressions over its input.
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
	// split ends the Create built so far when props reads one of its
	// elements, so they become visible to props.
	split := func(props gql.Expr) {
		if len(local) == 0 || props == nil {
			return
		}
		reads := false
		walkNames(props, false, func(name string) bool {
			_, mine := local[name]
			reads = mine || name == "" // an EXISTS subquery may read any
			return !reads
		})
		if !reads {
			return
		}
		op.Cols = cols
		b.set(op)
		op = &Create{Input: op}
		cols = appendCols(b.sc.cols)
		local = map[string]int{}
	}
	for _, part := range c.Pattern.Parts {
		if part.Var != "" {
			return notSupported(part.Pos, "named paths are not supported yet")
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
			split(n.Props)
			keys, vals, err := b.createProps(n.Props)
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
			split(r.Props)
			keys, vals, err := b.createProps(r.Props)
			if err != nil {
				return err
			}
			op.Rels = append(op.Rels, CreateRel{Type: r.Types[0], From: from, To: to, Keys: keys, Vals: vals})
			op.Made = append(op.Made, -len(op.Rels))
			cols = append(cols, b.sc.column(r.Var, vector.Rel))
			if r.Var != "" {
				local[r.Var] = len(cols) - 1
			}
		}
	}
	op.Cols = cols
	b.set(op)
	return nil
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
		return nil, nil, semanticAt(props.Position(), "a property map must be a map literal or a parameter")
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
