package plan

import (
	"github.com/quiverdb/quiver/engine/errs"
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

func (a *aggCollector) add(c AggCall) Expr {
	text := string(c.Func) + "(" + argText(c) + ")"
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
// ORDER BY, SKIP and LIMIT. For WITH the projected columns become the new
// scope.
func (b *binder) projection(p *gql.Projection, isWith bool) error {
	b.set(b.input())
	items, names, err := b.projectionItems(p, isWith)
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
	if hasAgg || p.Distinct {
		if hasAgg {
			err = b.aggregate(items, names)
		} else {
			_, err = b.project(items, names, nil)
		}
		if err != nil {
			return err
		}
		if p.Distinct {
			b.set(&Distinct{Input: b.root})
		}
		if keys, err = b.sortOverProjection(p.OrderBy); err != nil {
			return err
		}
	} else if keys, err = b.project(items, names, p.OrderBy); err != nil {
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

// sortOverProjection binds ORDER BY after an aggregation or DISTINCT: it
// sees only the projected columns. Keys that are expressions over them are
// computed by an extra projection as hidden columns.
func (b *binder) sortOverProjection(order []*gql.SortItem) ([]SortKey, error) {
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
	for _, it := range order {
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

// projectionItems returns the item expressions and their column names.
func (b *binder) projectionItems(p *gql.Projection, isWith bool) ([]gql.Expr, []string, error) {
	var items []gql.Expr
	var names []string
	if p.Star {
		for _, c := range b.sc.cols {
			if !c.Hidden {
				items = append(items, &gql.Variable{Name: c.Name})
				names = append(names, c.Name)
			}
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

// project plans a projection without aggregates. ORDER BY items are bound
// here, over the projection's input with its aliases visible, and become
// hidden columns of the same projection.
func (b *binder) project(items []gql.Expr, names []string, order []*gql.SortItem) ([]SortKey, error) {
	pr := &Project{Input: b.root}
	aliases := map[string]Expr{}
	for i, it := range items {
		e, err := b.expr(it, noAggregates)
		if err != nil {
			return nil, err
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: names[i], Type: e.Type(), Kind: KindOf(e)})
		aliases[names[i]] = e
	}
	var keys []SortKey
	for _, it := range order {
		if col, ok := sortKey(pr.Cols, it); ok {
			keys = append(keys, SortKey{Col: col, Desc: it.Desc})
			continue
		}
		b.aliases = aliases
		e, err := b.expr(it.Expr, noAggregates)
		b.aliases = nil
		if err != nil {
			return nil, err
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: b.sc.hiddenName("sort"), Type: e.Type(), Hidden: true})
		keys = append(keys, SortKey{Col: len(pr.Cols) - 1, Desc: it.Desc})
	}
	b.set(pr)
	return keys, nil
}

// aggregate plans a projection with aggregates: items without aggregates
// are the grouping keys; the others are computed over the Aggregate
// operator's output.
func (b *binder) aggregate(items []gql.Expr, names []string) error {
	agg := &Aggregate{Input: b.root}
	var collector aggCollector
	bound := make([]Expr, len(items))
	isKey := make([]bool, len(items))
	var keyText []string
	for i, it := range items {
		if _, ok := containsAggregate(it); !ok {
			e, err := b.expr(it, noAggregates)
			if err != nil {
				return err
			}
			isKey[i], bound[i] = true, e
			agg.Keys = append(agg.Keys, e)
			agg.Cols = append(agg.Cols, Column{Name: names[i], Type: e.Type(), Kind: KindOf(e)})
			keyText = append(keyText, e.String())
			continue
		}
		e, err := b.exprWith(it, collectAggregates, &collector)
		if err != nil {
			return err
		}
		bound[i] = e
	}
	agg.Aggs = collector.calls
	nkeys := len(agg.Keys)
	for _, c := range collector.calls {
		kind := ""
		if c.Func == AggCollect {
			kind = "LIST"
		}
		agg.Cols = append(agg.Cols, Column{Name: b.sc.hiddenName("agg"), Type: aggType(c), Kind: kind, Hidden: true})
	}
	b.set(agg)
	pr := &Project{Input: agg}
	k := 0
	for i := range items {
		var e Expr
		if isKey[i] {
			e = b.sc.ref(k)
			k++
		} else {
			var err error
			e, err = b.overGroups(bound[i], keyText, nkeys, items[i])
			if err != nil {
				return err
			}
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: names[i], Type: e.Type(), Kind: KindOf(e)})
	}
	b.set(pr)
	return nil
}

// overGroups rewrites an aggregate item to read the Aggregate operator's
// output: aggregates become their columns, sub-expressions equal to a
// grouping key become the key's column, and any other variable is an
// error (it has no single value per group).
func (b *binder) overGroups(e Expr, keyText []string, nkeys int, src gql.Expr) (Expr, error) {
	var failed error
	if _, ok := e.(*PatternSubquery); ok || !Walk(e, func(Expr) {}) {
		return nil, notSupported(src.Position(), "a pattern comprehension or EXISTS together with aggregation in one projection item is not supported yet")
	}
	out := rewrite(e, len(b.sc.cols), func(x Expr) (Expr, bool) {
		if a, ok := x.(*aggRef); ok {
			return b.sc.ref(nkeys + a.i), true
		}
		s := x.String()
		for k, t := range keyText {
			if t == s {
				return b.sc.ref(k), true
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

// countExpr binds a SKIP or LIMIT count: a constant or a parameter.
func (b *binder) countExpr(e gql.Expr, what string) (Expr, error) {
	x, err := b.expr(e, noAggregates)
	if err != nil {
		return nil, err
	}
	switch x.(type) {
	case *Const, *Param:
		return x, nil
	}
	return nil, errs.Semantic("%s expects a constant or a parameter", what).At(e.Position().Line, e.Position().Column)
}

func aggType(c AggCall) vector.Type {
	switch c.Func {
	case AggCount:
		return vector.Int64
	case AggAvg, AggStDev, AggStDevP, AggPercentileCont:
		return vector.Float64
	}
	return vector.Any
}

// rewrite rebuilds e bottom-up where f returns a replacement; f sees each
// node before its children and returns (nil, false) to descend. width is
// the number of columns of the scope the result is evaluated over: the
// local variables of inner scopes move to the columns after it, and f
// does not see references to them.
func rewrite(e Expr, width int, f func(Expr) (Expr, bool)) Expr {
	return rewriteScoped(e, -1, 0, width, f)
}

// rewriteScoped is rewrite inside an inner scope whose local columns start
// at localFrom (-1 outside any) and move by delta.
func rewriteScoped(e Expr, localFrom, delta, width int, f func(Expr) (Expr, bool)) Expr {
	if c, ok := e.(*ColRef); ok && localFrom >= 0 && c.Idx >= localFrom {
		return &ColRef{Idx: c.Idx + delta, Name: c.Name, T: c.T, Kind: c.Kind}
	}
	if r, ok := f(e); ok {
		return r
	}
	rw := func(x Expr) Expr {
		if x == nil {
			return nil
		}
		return rewriteScoped(x, localFrom, delta, width, f)
	}
	// in rewrites the expressions of an inner scope starting at column w.
	in := func(w int, x Expr) Expr {
		if x == nil {
			return nil
		}
		if localFrom < 0 {
			return rewriteScoped(x, w, width-w, width, f)
		}
		return rw(x)
	}
	newWidth := func(w int) int {
		if localFrom < 0 {
			return width
		}
		return w + delta
	}
	switch x := e.(type) {
	case *ListComp:
		return &ListComp{List: rw(x.List), Var: x.Var, Width: newWidth(x.Width), Pred: in(x.Width, x.Pred), Proj: in(x.Width, x.Proj)}
	case *Quantifier:
		return &Quantifier{Kind: x.Kind, List: rw(x.List), Var: x.Var, Width: newWidth(x.Width), Pred: in(x.Width, x.Pred)}
	case *Reduce:
		return &Reduce{Init: rw(x.Init), List: rw(x.List), Acc: x.Acc, Var: x.Var, Width: newWidth(x.Width), Expr: in(x.Width, x.Expr)}
	case *MapProjection:
		mp := &MapProjection{X: rw(x.X)}
		for _, it := range x.Items {
			mp.Items = append(mp.Items, MapProjItem{Key: it.Key, All: it.All, Val: rw(it.Val)})
		}
		return mp
	}
	switch x := e.(type) {
	case *Property:
		return &Property{Of: rw(x.Of), Key: x.Key}
	case *Binary:
		return &Binary{Op: x.Op, L: rw(x.L), R: rw(x.R)}
	case *Not:
		return &Not{X: rw(x.X)}
	case *Neg:
		return &Neg{X: rw(x.X)}
	case *IsNull:
		return &IsNull{X: rw(x.X), Negate: x.Negate}
	case *HasLabels:
		return &HasLabels{X: rw(x.X), Labels: x.Labels}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = rw(a)
		}
		return &Call{Name: x.Name, Args: args, T: x.T, Kind: x.Kind}
	case *List:
		elems := make([]Expr, len(x.Elems))
		for i, a := range x.Elems {
			elems[i] = rw(a)
		}
		return &List{Elems: elems}
	case *Map:
		vals := make([]Expr, len(x.Vals))
		for i, a := range x.Vals {
			vals[i] = rw(a)
		}
		return &Map{Keys: x.Keys, Vals: vals}
	}
	return e
}
