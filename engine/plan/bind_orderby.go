package plan

import "github.com/quiverdb/quiver/engine/gql"

// sortKey finds a projected column that an ORDER BY item names: by alias
// or by the same expression text.
func sortKey(cols []Column, it *gql.SortItem) (int, bool) {
	name := it.Text
	if v, ok := it.Expr.(*gql.Variable); ok {
		name = v.Name
	}
	for i, c := range cols {
		if !c.Hidden && c.Name == name {
			return i, true
		}
	}
	return -1, false
}

// sortKeyByName finds the projected column an ORDER BY item names.
func sortKeyByName(names []string, it *gql.SortItem) (int, bool) {
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Column{Name: n}
	}
	return sortKey(cols, it)
}

// distinctInput describes the ORDER BY items of a DISTINCT projection
// that read its input (RETURN DISTINCT a.name AS name ORDER BY a.name):
// which items, and the projection below the Distinct.
type distinctInput struct {
	items  map[int]bool
	pr     *Project
	nitems int
}

// orderReadingInput finds the ORDER BY items of a DISTINCT projection that
// read variables of its input the projection does not keep; nil when none
// does. It must run before the projection replaces the scope.
func (b *binder) orderReadingInput(order []*gql.SortItem, names []string) *distinctInput {
	var d *distinctInput
	for j, it := range order {
		if _, named := sortKeyByName(names, it); named || !b.seesDropped(it.Expr, names) {
			continue
		}
		if d == nil {
			d = &distinctInput{items: map[int]bool{}}
		}
		d.items[j] = true
	}
	return d
}

// overDistinct binds an ORDER BY item that reads the input of a DISTINCT
// projection: over the input's columns, then with every part that is a
// projected expression replaced by its column. Whatever else of the input
// it reads is gone after DISTINCT, which is an error, as in openCypher.
func (b *binder) overDistinct(d *distinctInput, it *gql.SortItem) (Expr, error) {
	saved := b.sc.cols
	b.sc.cols = append([]Column(nil), d.pr.Input.Columns()...)
	e, err := b.expr(it.Expr, noAggregates)
	b.sc.cols = saved
	if err != nil {
		return nil, err
	}
	undefined := func(name string) error {
		return semanticAt(it.Expr.Position(), "ORDER BY after DISTINCT can only use the projected columns and expressions: %s is not one of them", name)
	}
	if !Walk(e, func(Expr) {}) {
		return nil, undefined(it.Text)
	}
	texts := map[string]int{}
	for i, x := range d.pr.Exprs[:d.nitems] {
		if _, seen := texts[x.String()]; !seen {
			texts[x.String()] = i
		}
	}
	var failed error
	out := rewrite(e, len(b.sc.cols), func(x Expr) (Expr, bool) {
		if i, ok := texts[x.String()]; ok {
			return b.sc.ref(i), true
		}
		if c, ok := x.(*ColRef); ok {
			if failed == nil {
				failed = undefined(c.Name)
			}
			return x, true
		}
		return nil, false
	})
	return out, failed
}

// sortOverProjection binds ORDER BY after an aggregation or DISTINCT: it
// sees only the projected columns. Keys that are expressions over them are
// computed by an extra projection as hidden columns.
func (b *binder) sortOverProjection(order []*gql.SortItem, aggOrder map[int]int, overDistinct *distinctInput) ([]SortKey, error) {
	if len(order) == 0 {
		return nil, nil
	}
	cols := b.root.Columns()
	pr := &Project{Input: b.root}
	for i, c := range cols {
		pr.Exprs = append(pr.Exprs, b.sc.ref(i))
		pr.Cols = append(pr.Cols, c)
	}
	var keys []SortKey
	for j, it := range order {
		if col, ok := aggOrder[j]; ok {
			keys = append(keys, SortKey{Col: col, Desc: it.Desc})
			continue
		}
		if col, ok := sortKey(cols, it); ok {
			keys = append(keys, SortKey{Col: col, Desc: it.Desc})
			continue
		}
		var e Expr
		var err error
		if overDistinct != nil && overDistinct.items[j] {
			e, err = b.overDistinct(overDistinct, it)
		} else {
			e, err = b.expr(it.Expr, noAggregates)
		}
		if err != nil {
			return nil, err
		}
		if c, ok := e.(*ColRef); ok {
			keys = append(keys, SortKey{Col: c.Idx, Desc: it.Desc})
			continue
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: b.sc.hiddenName("sort"), Type: e.Type(), Hidden: true})
		keys = append(keys, SortKey{Col: len(pr.Cols) - 1, Desc: it.Desc})
	}
	if len(pr.Cols) > len(cols) {
		b.set(pr)
	}
	return keys, nil
}
