package plan

import (
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// withLocals binds fn's expressions in an inner scope: the current columns
// followed by one column per local variable, which shadows an outer
// variable or alias of the same name. types gives a local's type when it
// is known (the elements of a constant list), else it is Any. It returns
// the width of the outer scope, the first local's column.
func (b *binder) withLocals(names []string, types []vector.Type, fn func() error) (int, error) {
	width := len(b.sc.cols)
	savedCols, savedAliases := b.sc.cols, b.aliases
	cols := appendCols(savedCols)
	for i, n := range names {
		t := vector.Any
		if i < len(types) {
			t = types[i]
		}
		cols = append(cols, Column{Name: n, Type: t})
	}
	b.sc.cols = cols
	if savedAliases != nil {
		b.aliases = map[string]Expr{}
		for k, v := range savedAliases {
			b.aliases[k] = v
		}
		for _, n := range names {
			delete(b.aliases, n)
		}
	}
	err := fn()
	b.sc.cols, b.aliases = savedCols, savedAliases
	return width, err
}

// localExpr binds the expressions with local variables and map
// projections; ok is false for any other expression.
func (b *binder) localExpr(e gql.Expr, mode aggMode, aggs *aggCollector) (Expr, bool, error) {
	switch e := e.(type) {
	case *gql.ListComprehension:
		list, err := b.exprWith(e.List, mode, aggs)
		if err != nil {
			return nil, true, err
		}
		lc := &ListComp{List: list, Var: e.Var}
		lc.Width, err = b.withLocals([]string{e.Var}, []vector.Type{b.elemType(list)}, func() error {
			var err error
			if e.Pred != nil {
				if lc.Pred, err = b.innerPredicate(e.Pred); err != nil {
					return err
				}
			}
			if e.Proj != nil {
				saved := b.inWhere
				b.inWhere = false
				lc.Proj, err = b.inner(e.Proj)
				b.inWhere = saved
			}
			return err
		})
		return lc, true, err
	case *gql.Quantifier:
		list, err := b.exprWith(e.List, mode, aggs)
		if err != nil {
			return nil, true, err
		}
		q := &Quantifier{Kind: e.Kind, List: list, Var: e.Var}
		q.Width, err = b.withLocals([]string{e.Var}, []vector.Type{b.elemType(list)}, func() error {
			var err error
			q.Pred, err = b.innerPredicate(e.Pred)
			return err
		})
		return q, true, err
	case *gql.Reduce:
		init, err := b.exprWith(e.Init, mode, aggs)
		if err != nil {
			return nil, true, err
		}
		list, err := b.exprWith(e.List, mode, aggs)
		if err != nil {
			return nil, true, err
		}
		if e.Acc == e.Var {
			return nil, true, semanticAt(e.Pos, "variable %s is already declared in this reduce()", e.Var)
		}
		r := &Reduce{Init: init, List: list, Acc: e.Acc, Var: e.Var}
		r.Width, err = b.withLocals([]string{e.Acc, e.Var}, []vector.Type{vector.Any, b.elemType(list)}, func() error {
			var err error
			r.Expr, err = b.inner(e.Expr)
			return err
		})
		return r, true, err
	case *gql.MapProjection:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, true, err
		}
		mp := &MapProjection{X: x}
		for _, it := range e.Items {
			switch it.Kind {
			case gql.MapProjAll:
				mp.Items = append(mp.Items, MapProjItem{All: true})
			case gql.MapProjProperty:
				mp.Items = append(mp.Items, MapProjItem{Key: it.Key, Val: b.decrypt(&Property{Of: x, Key: it.Key}, it.Key)})
			default:
				v, err := b.exprWith(it.Value, mode, aggs)
				if err != nil {
					return nil, true, err
				}
				mp.Items = append(mp.Items, MapProjItem{Key: it.Key, Val: v})
			}
		}
		return mp, true, nil
	case *gql.PatternExpr:
		if !b.inWhere {
			return nil, true, syntaxAt(e.Pos, "a pattern can only be used as a predicate in WHERE; use EXISTS { … } or a pattern comprehension")
		}
		if err := b.noNewVariables(e.Part); err != nil {
			return nil, true, err
		}
		return b.patternPredicate(e.Part, gql.ExprString(e))
	case *gql.Subquery:
		if mode == collectAggregates && aggs != nil {
			// An aggregating item is bound again over the groups, this
			// subquery with it (bindOverGroups): binding its query here
			// too would bind nested ones 2^depth times.
			return subqueryPlaceholder(e), true, nil
		}
		x, err := b.subqueryExpr(e) // bind_call_subquery.go
		return x, true, err
	case *gql.Exists:
		x, err := b.patternSubquery(e.Pattern, e.Where, nil, gql.ExprString(e))
		return x, true, err
	case *gql.PatternComprehension:
		x, err := b.patternSubquery(&gql.Pattern{Parts: []*gql.PatternPart{e.Part}}, e.Where, e.Proj, gql.ExprString(e))
		return x, true, err
	case *gql.FuncCall:
		// exists((a)-->(b)) is a pattern predicate; exists(n.p), of
		// openCypher 9, is n.p IS NOT NULL.
		if len(e.Namespace) == 0 && strings.EqualFold(e.Name, "exists") && len(e.Args) == 1 && !e.Distinct && !e.Star {
			switch a := e.Args[0].(type) {
			case *gql.PatternExpr:
				return b.patternPredicate(a.Part, gql.ExprString(e))
			case *gql.PropertyAccess:
				x, err := b.exprWith(a, mode, aggs)
				if err != nil {
					return nil, true, err
				}
				return &IsNull{X: x, Negate: true}, true, nil
			}
			return nil, true, semanticAt(e.Args[0].Position(), "exists() takes a pattern or a property (exists((n)-->()), exists(n.name)); use IS NOT NULL for other values")
		}
	}
	return nil, false, nil
}

// patternPredicate binds a pattern used as a predicate: true when the row
// has a match, null when a variable of the pattern is null.
func (b *binder) patternPredicate(part *gql.PatternPart, what string) (Expr, bool, error) {
	if err := b.noNewVariables(part); err != nil {
		return nil, true, err
	}
	var nullIf []int
	for _, n := range part.Nodes {
		if col, ok := b.sc.lookup(n.Var); ok && n.Var != "" {
			nullIf = append(nullIf, col)
		}
	}
	for _, r := range part.Rels {
		if col, ok := b.sc.lookup(r.Var); ok && r.Var != "" {
			nullIf = append(nullIf, col)
		}
	}
	x, err := b.patternSubquery(&gql.Pattern{Parts: []*gql.PatternPart{part}}, nil, nil, what)
	if err != nil {
		return nil, true, err
	}
	x.(*PatternSubquery).NullIf = nullIf
	return x, true, nil
}

// inner binds an expression of an inner scope: aggregates are not allowed
// there (they would aggregate over the list elements).
func (b *binder) inner(e gql.Expr) (Expr, error) {
	if p, ok := containsAggregate(e); ok {
		return nil, semanticAt(p, "aggregate functions cannot be used inside a list comprehension, quantifier or reduce")
	}
	return b.expr(e, noAggregates)
}

// innerPredicate binds the WHERE of a comprehension or quantifier, where
// patterns may be used as predicates as in a WHERE clause.
func (b *binder) innerPredicate(e gql.Expr) (Expr, error) {
	saved := b.inWhere
	b.inWhere = true
	x, err := b.inner(e)
	b.inWhere = saved
	return x, err
}

// noNewVariables fails when a pattern predicate names a variable that is
// not bound: a predicate cannot introduce variables.
func (b *binder) noNewVariables(part *gql.PatternPart) error {
	check := func(name string, p gql.Pos) error {
		if name != "" && !b.bound(name) {
			return semanticAt(p, "variable %s is not defined (a pattern predicate cannot introduce new variables)", name)
		}
		return nil
	}
	if part.Var != "" {
		return check(part.Var, part.Pos)
	}
	for _, n := range part.Nodes {
		if err := check(n.Var, n.Pos); err != nil {
			return err
		}
	}
	for _, r := range part.Rels {
		if err := check(r.Var, r.Pos); err != nil {
			return err
		}
	}
	return nil
}

// patternSubquery plans a pattern (with WHERE and, for a pattern
// comprehension, a projection) over an Argument carrying the current
// columns and a row number, the way OPTIONAL MATCH is planned.
func (b *binder) patternSubquery(pat *gql.Pattern, where, proj gql.Expr, what string) (Expr, error) {
	savedRoot, savedCols, savedAliases, savedWhere := b.root, b.sc.cols, b.aliases, b.inWhere
	defer func() { b.root, b.sc.cols, b.aliases, b.inWhere = savedRoot, savedCols, savedAliases, savedWhere }()
	b.aliases = nil
	arg := &Argument{Cols: appendCols(savedCols, Column{Name: b.sc.hiddenName("row"), Type: vector.Int64, Hidden: true})}
	rowCol := len(arg.Cols) - 1
	b.set(arg)
	if err := b.match(&gql.Match{Pattern: pat, Where: where}); err != nil {
		return nil, err
	}
	sq := &PatternSubquery{Arg: arg, Proj: -1, Text: what}
	pr := &Project{Input: b.root, Exprs: []Expr{b.sc.ref(rowCol)}, Cols: []Column{b.sc.cols[rowCol]}}
	if proj != nil {
		b.inWhere = false
		e, err := b.inner(proj)
		if err != nil {
			return nil, err
		}
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: "#proj", Type: e.Type(), Kind: KindOf(e)})
		sq.Proj = 1
	}
	sq.Plan = pr
	sq.RowCol = 0
	return sq, nil
}
