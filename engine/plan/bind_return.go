package plan

import (
	"slices"
	"sort"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// aggCollector gathers the aggregate calls of a projection. Each call is
// replaced in its item by an aggRef, resolved once the Aggregate operator's
// columns are known.
type aggCollector struct {
	calls []AggCall
	texts []string
}

// aggRef is a placeholder for the i-th collected aggregate; it never
// survives binding.
type aggRef struct{ i int }

func (*aggRef) Type() vector.Type { return vector.Any }
func (a *aggRef) String() string  { return "agg" }

// keyRef stands for the i-th grouping key where an ORDER BY item names it
// by its alias; like aggRef it never survives binding.
type keyRef struct {
	i int
	e Expr
}

func (k *keyRef) Type() vector.Type { return k.e.Type() }
func (k *keyRef) String() string    { return k.e.String() }

func (a *aggCollector) add(c AggCall) Expr {
	text := c.Func.Name + "(" + argText(c) + ")"
	for i, t := range a.texts {
		if t == text {
			return &aggRef{i: i} // the same aggregate twice is computed once
		}
	}
	a.calls = append(a.calls, c)
	a.texts = append(a.texts, text)
	return &aggRef{i: len(a.calls) - 1}
}

func argText(c AggCall) string {
	s := "*"
	if c.Arg != nil {
		s = c.Arg.String()
	}
	if c.P != nil {
		s += ", " + c.P.String()
	}
	if c.Distinct {
		s = "DISTINCT " + s
	}
	return s
}

// projection plans RETURN or WITH: projection or aggregation, DISTINCT,
// ORDER BY, SKIP and LIMIT, and the WHERE of a WITH. For WITH the projected
// columns become the new scope.
func (b *binder) projection(p *gql.Projection, isWith bool, where gql.Expr) error {
	b.set(b.input())
	items, names, err := b.projectionItems(p, isWith)
	if err == nil && len(p.GroupBy) > 0 {
		if p, err = b.groupBy(p, items, names); err == nil {
			items, names, err = b.projectionItems(p, isWith)
		}
	}
	if err != nil {
		return err
	}
	hasAgg := false
	for _, it := range items {
		if _, ok := containsAggregate(it); ok {
			hasAgg = true
		}
	}
	var keys []SortKey
	var aggOrder map[int]int // ORDER BY item → its hidden aggregate column
	var overDistinct *distinctInput
	whereCol := -1
	if hasAgg || p.Distinct {
		if hasAgg {
			// ORDER BY items with aggregates are computed by the
			// aggregation itself, as hidden columns; so are those that
			// read the input through the grouping keys (WITH a.name AS
			// name, count(*) AS c ORDER BY a.name), over the groups.
			nvisible := len(items)
			for j, it := range p.OrderBy {
				if _, named := sortKeyByName(names, it); named {
					continue
				}
				if _, ok := containsAggregate(it.Expr); !ok && !b.seesDropped(it.Expr, names) {
					continue
				}
				if aggOrder == nil {
					aggOrder = map[int]int{}
				}
				aggOrder[j] = len(items)
				items = append(items, it.Expr)
				names = append(names, b.sc.hiddenName("sort"))
			}
			err = b.aggregate(items, names, nvisible)
		} else {
			overDistinct = b.orderReadingInput(p.OrderBy, names)
			// The WHERE of WITH DISTINCT may name the projected
			// expressions by their input variables (WITH DISTINCT a.x AS
			// x WHERE a.x > 1): it is computed before the distinct rows
			// are picked, from values the projected ones determine.
			_, whereCol, err = b.project(items, names, nil, where)
			if err == nil && whereCol >= 0 {
				err = whereOverDistinct(b.root.(*Project), len(items), whereCol, where)
			}
		}
		if err != nil {
			return err
		}
		if p.Distinct {
			if pr, ok := b.root.(*Project); ok && overDistinct != nil {
				overDistinct.pr, overDistinct.nitems = pr, len(items)
			} else {
				overDistinct = nil
			}
			b.set(&Distinct{Input: b.root})
		}
		if keys, err = b.sortOverProjection(p.OrderBy, aggOrder, overDistinct); err != nil {
			return err
		}
	} else if keys, whereCol, err = b.project(items, names, p.OrderBy, where); err != nil {
		return err
	}
	var skip, limit Expr
	if p.Skip != nil {
		if skip, err = b.countExpr(p.Skip, "SKIP"); err != nil {
			return err
		}
	}
	if p.Limit != nil {
		if limit, err = b.countExpr(p.Limit, "LIMIT"); err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		b.set(&Sort{Input: b.root, Keys: keys, Skip: skip, Limit: limit})
	}
	if skip != nil {
		b.set(&Skip{Input: b.root, Count: skip})
	}
	if limit != nil {
		b.set(&Limit{Input: b.root, Count: limit})
	}
	switch {
	case whereCol >= 0:
		b.set(&Filter{Input: b.root, Pred: b.sc.ref(whereCol)})
	case where != nil:
		if err := b.where(where); err != nil {
			return err
		}
	}
	b.dropHidden()
	return nil
}

// dropHidden projects away hidden columns (sort keys), so the result and
// the next clause see the projected columns only.
func (b *binder) dropHidden() {
	cols := b.root.Columns()
	pr := &Project{Input: b.root}
	for i, c := range cols {
		if !c.Hidden {
			pr.Exprs = append(pr.Exprs, b.sc.ref(i))
			pr.Cols = append(pr.Cols, c)
		}
	}
	if len(pr.Cols) < len(cols) {
		b.set(pr)
	}
}

// projectionItems returns the item expressions and their column names.
func (b *binder) projectionItems(p *gql.Projection, isWith bool) ([]gql.Expr, []string, error) {
	var items []gql.Expr
	var names []string
	if p.Star {
		// RETURN * lists the variables in alphabetical order, as
		// openCypher's results show them.
		for _, c := range b.sc.cols {
			if !c.Hidden {
				names = append(names, c.Name)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			items = append(items, &gql.Variable{Name: n})
		}
		if len(items) == 0 && len(p.Items) == 0 && !isWith {
			return nil, nil, syntaxAt(p.Pos, "RETURN * has no variables to return")
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, it := range p.Items {
		name := it.Alias
		if name == "" {
			if v, ok := it.Expr.(*gql.Variable); ok {
				name = v.Name
			} else if isWith {
				return nil, nil, semanticAt(it.Expr.Position(), "expression %s in WITH must be aliased (use AS)", it.Text)
			} else {
				name = it.Text
			}
		}
		if seen[name] {
			return nil, nil, semanticAt(it.Expr.Position(), "column name %s is used more than once", name)
		}
		seen[name] = true
		items = append(items, it.Expr)
		names = append(names, name)
	}
	return items, names, nil
}

// project plans a projection without aggregates. ORDER BY items and the
// WHERE of a WITH are bound here, over the projection's input with its
// aliases visible (so they see the variables the projection drops too),
// and become hidden columns of the same projection. whereCol is the WHERE
// column, or -1.
func (b *binder) project(items []gql.Expr, names []string, order []*gql.SortItem, where gql.Expr) (keys []SortKey, whereCol int, err error) {
	pr := &Project{Input: b.root}
	aliases := map[string]Expr{}
	for i, it := range items {
		e, err := b.expr(it, noAggregates)
		if err != nil {
			return nil, -1, err
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: names[i], Type: e.Type(), Kind: KindOf(e), Elem: ElemOf(e)})
		aliases[names[i]] = e
	}
	for _, it := range order {
		if col, ok := sortKey(pr.Cols, it); ok {
			keys = append(keys, SortKey{Col: col, Desc: it.Desc})
			continue
		}
		b.aliases = aliases
		e, err := b.expr(it.Expr, noAggregates)
		b.aliases = nil
		if err != nil {
			return nil, -1, err
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: b.sc.hiddenName("sort"), Type: e.Type(), Hidden: true})
		keys = append(keys, SortKey{Col: len(pr.Cols) - 1, Desc: it.Desc})
	}
	whereCol = -1
	if where != nil && b.seesDropped(where, names) {
		b.aliases = aliases
		e, err := b.predicate(where)
		b.aliases = nil
		if err != nil {
			return nil, -1, err
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: b.sc.hiddenName("where"), Type: e.Type(), Hidden: true})
		whereCol = len(pr.Cols) - 1
	}
	b.set(pr)
	return keys, whereCol, nil
}

// aggregate plans a projection with aggregates: items without aggregates
// are the grouping keys; the others are computed over the Aggregate
// operator's output.
func (b *binder) aggregate(items []gql.Expr, names []string, nvisible int) error {
	agg := &Aggregate{Input: b.root}
	var collector aggCollector
	bound := make([]Expr, len(items))
	isKey := make([]bool, len(items))
	var keyText []string
	// The ORDER BY items name the projection's columns by their aliases.
	aliases := map[string]Expr{}
	for i, it := range items {
		if i >= nvisible {
			// An ORDER BY item with an aggregate or one that reads the
			// input: it may name the columns by their aliases, and only
			// aggregates the projection computes (openCypher).
			b.aliases = aliases
			before := len(collector.calls)
			e, err := b.exprWith(it, collectAggregates, &collector)
			b.aliases = nil
			if err != nil {
				return err
			}
			if len(collector.calls) > before {
				return semanticAt(it.Position(), "ORDER BY can only use aggregates that the projection returns")
			}
			if k := slices.Index(keyText, e.String()); k >= 0 {
				e = &keyRef{i: k, e: e} // a grouping key, written again
			}
			bound[i] = e
			continue
		}
		if _, ok := containsAggregate(it); !ok {
			e, err := b.expr(it, noAggregates)
			if err != nil {
				return err
			}
			isKey[i], bound[i] = true, e
			aliases[names[i]] = &keyRef{i: len(agg.Keys), e: e}
			agg.Keys = append(agg.Keys, e)
			agg.Cols = append(agg.Cols, Column{Name: names[i], Type: e.Type(), Kind: KindOf(e), Elem: ElemOf(e)})
			keyText = append(keyText, e.String())
			continue
		}
		e, err := b.exprWith(it, collectAggregates, &collector)
		if err != nil {
			return err
		}
		bound[i] = e
		aliases[names[i]] = e
	}
	agg.Aggs = collector.calls
	nkeys := len(agg.Keys)
	for _, c := range collector.calls {
		agg.Cols = append(agg.Cols, Column{Name: b.sc.hiddenName("agg"), Type: aggType(c), Kind: c.Func.Kind, Elem: aggElem(c), Hidden: true})
	}
	b.set(agg)
	pr := &Project{Input: agg}
	k := 0
	for i := range items {
		var e Expr
		if isKey[i] {
			e = b.sc.ref(k)
			k++
		} else if !Walk(bound[i], func(Expr) {}) {
			// A sub-plan (pattern comprehension, EXISTS) cannot be
			// rewritten: bind the item again over the groups.
			var err error
			if e, err = b.bindOverGroups(items[i], nkeys); err != nil {
				return err
			}
		} else {
			var err error
			e, err = b.overGroups(bound[i], keyText, nkeys, items[i])
			if err != nil {
				return err
			}
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: names[i], Type: e.Type(), Kind: KindOf(e), Hidden: i >= nvisible})
	}
	b.set(pr)
	return nil
}

// bindOverGroups binds an aggregating item over the Aggregate operator's
// output: its aggregate calls become their columns, and its variables must
// be grouping keys (visible there by their names).
func (b *binder) bindOverGroups(item gql.Expr, nkeys int) (Expr, error) {
	subst := map[*gql.FuncCall]Expr{}
	gql.Walk(item, func(x gql.Expr) bool {
		if f, ok := x.(*gql.FuncCall); ok {
			if i, ok := b.aggOf[f]; ok {
				subst[f] = b.sc.ref(nkeys + i)
				return false
			}
		}
		return true
	})
	// A variable of the input that is not a grouping key has no single
	// value per group, also where a pattern names it.
	var failed error
	input := b.root.Children()[0].Columns()
	walkNames(item, true, func(name string) bool {
		if name == "" || b.bound(name) {
			return true
		}
		for _, c := range input {
			if !c.Hidden && c.Name == name {
				failed = semanticAt(item.Position(), "%s is neither aggregated nor a grouping key in this projection", name)
				return false
			}
		}
		return true
	})
	if failed != nil {
		return nil, failed
	}
	b.aggSubst = subst
	defer func() { b.aggSubst = nil }()
	return b.expr(item, noAggregates)
}

// overGroups rewrites an aggregate item to read the Aggregate operator's
// output: aggregates become their columns, sub-expressions equal to a
// grouping key become the key's column, and any other variable is an
// error (it has no single value per group).
func (b *binder) overGroups(e Expr, keyText []string, nkeys int, src gql.Expr) (Expr, error) {
	var failed error
	out := rewrite(e, len(b.sc.cols), func(x Expr) (Expr, bool) {
		if a, ok := x.(*aggRef); ok {
			return b.sc.ref(nkeys + a.i), true
		}
		if k, ok := x.(*keyRef); ok {
			return b.sc.ref(k.i), true
		}
		// Only a grouping key that is a variable or a property access may
		// be reused inside an aggregating expression: anything bigger
		// (a + b) is ambiguous, as in openCypher.
		switch x.(type) {
		case *ColRef, *Property:
			s := x.String()
			for k, t := range keyText {
				if t == s {
					return b.sc.ref(k), true
				}
			}
		}
		if c, ok := x.(*ColRef); ok {
			if failed == nil {
				failed = semanticAt(src.Position(), "%s is neither aggregated nor a grouping key in this projection", c.Name)
			}
			return x, true
		}
		return nil, false
	})
	return out, failed
}

// aggType is the static type of an aggregate's column: its function's
// rule, given the argument's type.
// aggElem is the element type of collect(x) over a typed x (ElemOf).
func aggElem(c AggCall) vector.Type {
	if c.Func.Name != "collect" || c.Arg == nil || !scalarElem(c.Arg.Type()) {
		return vector.Null
	}
	return c.Arg.Type()
}

func aggType(c AggCall) vector.Type {
	arg := vector.Any
	if c.Arg != nil {
		arg = c.Arg.Type()
	}
	return c.Func.Type(arg)
}
