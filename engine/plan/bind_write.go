package plan

import (
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// Binding of SET, REMOVE, DELETE and MERGE, and the Eager barriers around
// updating clauses.
//
// Cypher runs clause at a time: a clause sees every write of the clauses
// before it and none of its own later rows' reads are disturbed by them.
// A pipelined plan would interleave batches of a reading clause with the
// writes of the next one, so the binder materialises the rows before an
// updating clause (when they come from reads) and after it (when another
// clause follows): an Eager operator on each side.

// eagerInput makes the plan so far an Eager barrier unless it reads
// nothing (a Unit) or already is one.
func (b *binder) eagerInput() {
	switch b.root.(type) {
	case nil, *Unit, *Eager:
		return
	}
	b.set(&Eager{Input: b.root})
}

// setClause plans SET (remove=false) or REMOVE.
func (b *binder) setClause(items []*gql.SetItem, remove bool) error {
	b.writes = true
	b.eagerInput()
	in := b.input()
	if b.root == nil {
		b.set(in)
	}
	ups, err := b.updateItems(items, remove)
	if err != nil {
		return err
	}
	b.set(&Update{Input: in, Items: ups, Remove: remove})
	return nil
}

// updateItems binds SET or REMOVE items against the current scope.
func (b *binder) updateItems(items []*gql.SetItem, remove bool) ([]UpdateItem, error) {
	var out []UpdateItem
	for _, it := range items {
		u, err := b.updateItem(it, remove)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func (b *binder) updateItem(it *gql.SetItem, remove bool) (UpdateItem, error) {
	var u UpdateItem
	target := it.Target
	if pa, ok := target.(*gql.PropertyAccess); ok {
		if _, nested := pa.X.(*gql.PropertyAccess); nested {
			return u, semanticAt(it.Pos, "only a property of a node or relationship can be set, not of a map")
		}
		u.Key = pa.Key
		target = pa.X
		u.Kind = SetProp
		if remove {
			u.Kind = RemoveProp
		}
	}
	ent, err := b.expr(target, noAggregates)
	if err != nil {
		return u, err
	}
	switch ent.Type() {
	case vector.Node, vector.Rel, vector.Any, vector.Null:
	default:
		return u, semanticAt(it.Pos, "%s is a %s; only nodes and relationships can be updated", target, ent.Type())
	}
	u.Entity = ent
	switch {
	case len(it.Labels) > 0:
		if ent.Type() == vector.Rel {
			return u, semanticAt(it.Pos, "a relationship has a type, not labels; they cannot be set or removed")
		}
		u.Kind, u.Labels = SetLabels, it.Labels
		if remove {
			u.Kind = RemoveLabels
		}
		return u, nil
	case remove:
		return u, nil
	}
	v, err := b.expr(it.Value, noAggregates)
	if err != nil {
		return u, err
	}
	u.Value = v
	if u.Key != "" {
		if it.Op != "=" {
			return u, syntaxAt(it.Pos, "a property can only be set with =")
		}
		return u, nil
	}
	switch v.Type() {
	case vector.Any, vector.Null, vector.Node, vector.Rel:
	default:
		return u, semanticAt(it.Value.Position(), "SET %s %s expects a map, got %s", target, it.Op, v.Type())
	}
	u.Kind = SetAll
	if it.Op == "+=" {
		u.Kind = SetMerge
	}
	return u, nil
}

// deleteClause plans DELETE or DETACH DELETE.
func (b *binder) deleteClause(d *gql.Delete) error {
	b.writes = true
	b.eagerInput()
	in := b.input()
	if b.root == nil {
		b.set(in)
	}
	op := &Delete{Input: in, Detach: d.Detach}
	for _, e := range d.Exprs {
		if _, ok := e.(*gql.LabelTest); ok {
			return syntaxAt(e.Position(), "DELETE takes nodes, relationships or paths; labels are removed with REMOVE")
		}
		x, err := b.expr(e, noAggregates)
		if err != nil {
			return err
		}
		switch x.Type() {
		case vector.Node, vector.Rel, vector.Any, vector.Null:
		default:
			return semanticAt(e.Position(), "DELETE takes nodes, relationships or paths, not a %s", x.Type())
		}
		op.Exprs = append(op.Exprs, x)
	}
	b.set(op)
	return nil
}

// merge plans MERGE: the pattern is matched per input row over an
// Argument; when it does not match, the same pattern is created (over the
// same Argument); ON MATCH / ON CREATE items are bound over the output.
func (b *binder) merge(m *gql.Merge) error {
	b.writes = true
	b.eagerInput()
	outer := b.input()
	if len(m.Pattern.Parts) != 1 {
		return syntaxAt(m.Pos, "MERGE takes a single pattern")
	}
	part := m.Pattern.Parts[0]
	if part.Shortest != gql.ShortestNone || part.Search != nil {
		return syntaxAt(part.Pos, "shortest paths, path modes and selectors cannot be merged")
	}
	if err := b.checkMergePattern(part); err != nil {
		return err
	}
	arg := &Argument{Cols: appendCols(outer.Columns())}
	b.set(arg)
	if err := b.match(&gql.Match{Pos: m.Pos, Pattern: m.Pattern}); err != nil {
		return err
	}
	match := b.root
	matchScope := b.sc
	// The create side: an undirected relationship is created left to
	// right (Cypher's rule).
	cpart := *part
	cpart.Rels = nil
	for _, r := range part.Rels {
		cr := *r
		if cr.Dir == gql.DirBoth {
			cr.Dir = gql.DirRight
		}
		cpart.Rels = append(cpart.Rels, &cr)
	}
	b.sc = scope{cols: arg.Cols, anon: matchScope.anon}
	b.root = arg
	if err := b.create(&gql.Create{Pos: m.Pos, Pattern: &gql.Pattern{Parts: []*gql.PatternPart{&cpart}}}); err != nil {
		return err
	}
	create := b.root
	ccols := create.Columns()
	op := &Merge{Input: outer, Arg: arg, Match: match, Create: create, Cols: match.Columns()}
	for j := len(arg.Cols); j < len(op.Cols); j++ {
		from := -1
		if c := op.Cols[j]; !c.Hidden {
			for i := len(arg.Cols); i < len(ccols); i++ {
				if ccols[i].Name == c.Name && !ccols[i].Hidden {
					from = i
				}
			}
		}
		op.From = append(op.From, from)
	}
	b.sc = matchScope
	b.sc.cols = op.Cols
	b.root = op
	var err error
	if op.OnMatch, err = b.updateItems(m.OnMatch, false); err != nil {
		return err
	}
	if op.OnCreate, err = b.updateItems(m.OnCreate, false); err != nil {
		return err
	}
	b.set(op)
	return nil
}

// checkMergePattern rejects what MERGE cannot do: re-bind a variable with
// new labels or properties (or a relationship variable at all), use a
// parameter as a property map, merge a relationship without exactly one
// type, or a variable-length one.
func (b *binder) checkMergePattern(part *gql.PatternPart) error {
	if err := writableLabels(part); err != nil {
		return err
	}
	for _, n := range part.Nodes {
		if _, isParam := n.Props.(*gql.Param); isParam {
			return syntaxAt(n.Pos, "a parameter cannot be used as the property map of a MERGE pattern; use {key: $param.key}")
		}
		if n.Var == "" {
			continue
		}
		if _, ok := b.sc.lookup(n.Var); ok && (len(part.Nodes) == 1 || len(n.Labels) > 0 || n.Props != nil) {
			return semanticAt(n.Pos, "variable %s is already bound; MERGE cannot bind it again", n.Var)
		}
	}
	for _, r := range part.Rels {
		if _, isParam := r.Props.(*gql.Param); isParam {
			return syntaxAt(r.Pos, "a parameter cannot be used as the property map of a MERGE pattern; use {key: $param.key}")
		}
		if r.Var != "" {
			if _, ok := b.sc.lookup(r.Var); ok {
				return semanticAt(r.Pos, "variable %s is already bound; MERGE cannot bind it again", r.Var)
			}
		}
		if len(r.Types) != 1 {
			return syntaxAt(r.Pos, "a relationship to merge needs exactly one type")
		}
		if r.VarLength != nil {
			return syntaxAt(r.Pos, "variable-length relationships cannot be merged")
		}
	}
	return nil
}
