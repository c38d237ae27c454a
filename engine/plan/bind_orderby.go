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

// sortOverProjection binds ORDER BY after an aggregation or DISTINCT: it
// sees only the projected columns. Keys that are expressions over them are
// computed by an extra projection as hidden columns.
func (b *binder) sortOverProjection(order []*gql.SortItem, aggOrder map[int]int) ([]SortKey, error) {
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
		e, err := b.expr(it.Expr, noAggregates)
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
