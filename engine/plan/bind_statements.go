package plan

import (
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// This file binds GQL's linear statements onto the operators Cypher's
// clauses use: FILTER is a Filter, LET a Project that keeps every column,
// FOR an Unwind (with a counted range beside it for ORDINALITY and
// OFFSET), OPTIONAL { } the Optional of OPTIONAL MATCH over several
// statements, and RETURN … GROUP BY the usual aggregation once its keys
// are checked. NEXT and INSERT are gone by now: the parser made them WITH
// and CREATE.

// statement binds FILTER, LET, FOR or an OPTIONAL block.
func (b *binder) statement(c gql.Clause) error {
	switch c := c.(type) {
	case *gql.Filter:
		b.set(b.input())
		return b.where(c.Where)
	case *gql.Let:
		return b.let(c)
	case *gql.For:
		return b.forStatement(c)
	case *gql.OptionalBlock:
		return b.optionalBlock(c)
	}
	return notSupported(c.Position(), "%s is not supported yet", clauseName(c))
}

// keepAll is a projection of every column of the current root, hidden
// ones included, to which more columns are appended.
func (b *binder) keepAll() *Project {
	pr := &Project{Input: b.root}
	for i, col := range b.sc.cols {
		pr.Exprs = append(pr.Exprs, b.sc.ref(i))
		pr.Cols = append(pr.Cols, col)
	}
	return pr
}

// let binds LET x = e, … one item after the other: each adds a column,
// and a name bound already (by the working table or an earlier item) is
// an error, since GQL binds a variable once.
func (b *binder) let(c *gql.Let) error {
	b.set(b.input())
	for _, it := range c.Items {
		if _, ok := b.sc.lookup(it.Name); ok {
			return semanticAt(it.Pos, "LET cannot bind %s: it is bound already (pick another name)", it.Name)
		}
		e, err := b.expr(it.Expr, noAggregates)
		if err != nil {
			return err
		}
		pr := b.keepAll()
		pr.Exprs = append(pr.Exprs, e)
		pr.Cols = append(pr.Cols, Column{Name: it.Name, Type: e.Type(), Kind: KindOf(e)})
		b.set(pr)
	}
	return nil
}

// forStatement binds FOR x IN list [WITH ORDINALITY i | WITH OFFSET i].
// Without a position it is UNWIND. With one, the list is computed once
// into a hidden column, the position is unwound from a counted range
// over its size (no list of positions is built), and the element is read
// by the position: a null list has size 0, so no rows, as UNWIND gives.
func (b *binder) forStatement(c *gql.For) error {
	if c.Index == "" {
		return b.unwind(&gql.Unwind{Pos: c.Pos, Expr: c.Expr, Var: c.Var})
	}
	b.set(b.input())
	for _, name := range []string{c.Var, c.Index} {
		if _, ok := b.sc.lookup(name); ok {
			return semanticAt(c.Pos, "variable %s is already defined", name)
		}
	}
	list, err := b.expr(c.Expr, noAggregates)
	if err != nil {
		return err
	}
	listName := b.sc.hiddenName("for")
	pr := b.keepAll()
	pr.Exprs = append(pr.Exprs, list)
	pr.Cols = append(pr.Cols, Column{Name: listName, Type: list.Type(), Kind: KindOf(list), Hidden: true})
	b.set(pr)
	listCol := len(pr.Cols) - 1

	// range(first, coalesce(size(l), 0) - 1 + first) AS i
	var first int64
	if c.Ordinality {
		first = 1
	}
	pos := c.Expr.Position()
	l := &gql.Variable{Pos: pos, Name: listName}
	size := &gql.FuncCall{Pos: pos, Name: "coalesce", Args: []gql.Expr{
		&gql.FuncCall{Pos: pos, Name: "size", Args: []gql.Expr{l}},
		&gql.Literal{Pos: pos, Value: int64(0)}}}
	last := &gql.Binary{Pos: pos, Op: gql.OpAdd, L: &gql.Binary{Pos: pos, Op: gql.OpSub, L: size, R: &gql.Literal{Pos: pos, Value: int64(1)}},
		R: &gql.Literal{Pos: pos, Value: first}}
	b.aliases = map[string]Expr{listName: b.sc.ref(listCol)}
	positions, err := b.expr(&gql.FuncCall{Pos: pos, Name: "range", Args: []gql.Expr{&gql.Literal{Pos: pos, Value: first}, last}}, noAggregates)
	b.aliases = nil
	if err != nil {
		return err
	}
	b.set(&Unwind{Input: b.root, Expr: positions, Cols: appendCols(b.sc.cols, Column{Name: c.Index, Type: vector.Int64})})

	// l[i - first] AS x, dropping l.
	b.aliases = map[string]Expr{listName: b.sc.ref(listCol)}
	elem, err := b.expr(&gql.Index{Pos: pos, X: l, I: &gql.Binary{Pos: pos, Op: gql.OpSub,
		L: &gql.Variable{Pos: pos, Name: c.Index}, R: &gql.Literal{Pos: pos, Value: first}}}, noAggregates)
	b.aliases = nil
	if err != nil {
		return err
	}
	out := &Project{Input: b.root}
	for i, col := range b.sc.cols {
		if i != listCol {
			out.Exprs = append(out.Exprs, b.sc.ref(i))
			out.Cols = append(out.Cols, col)
		}
	}
	out.Exprs = append(out.Exprs, elem)
	out.Cols = append(out.Cols, Column{Name: c.Var, Type: elem.Type(), Kind: KindOf(elem)})
	b.set(out)
	return nil
}

// optionalBlock binds OPTIONAL { statements } as optionalMatch binds one
// OPTIONAL MATCH: the statements are planned over an Argument carrying
// the current rows, and a row they find nothing for is kept with nulls.
func (b *binder) optionalBlock(c *gql.OptionalBlock) error {
	outer := b.input()
	arg := &Argument{Cols: appendCols(outer.Columns(), Column{Name: b.sc.hiddenName("row"), Type: vector.Int64, Hidden: true})}
	b.set(arg)
	for _, in := range c.Clauses {
		var err error
		switch in := in.(type) {
		case *gql.Match:
			if len(in.Hints) > 0 {
				return notSupported(in.Hints[0].Pos, "planner hints inside OPTIONAL { } are not supported: give them to a MATCH outside the block")
			}
			if in.Optional {
				err = b.optionalMatch(in)
			} else {
				err = b.match(in)
			}
		case *gql.Unwind:
			err = b.unwind(in)
		case *gql.Filter, *gql.Let, *gql.For, *gql.OptionalBlock:
			err = b.statement(in)
		default:
			return syntaxAt(in.Position(), "OPTIONAL { } holds MATCH, FILTER, LET, FOR and UNWIND statements, not %s", clauseName(in))
		}
		if err != nil {
			return err
		}
	}
	b.set(&Optional{Input: outer, Inner: b.root, Arg: arg, RowCol: len(arg.Cols) - 1})
	return nil
}

// groupBy plans RETURN … GROUP BY onto Cypher's implicit grouping, whose
// keys are the items without an aggregate. An item that is not an
// aggregate must be a key (by alias or as written) or read only key
// variables (p.name under GROUP BY p): then its value is one per group,
// and grouping by it too leaves the groups as they are. Keys that are
// not returned are grouped by in a first projection that carries them
// (a variable under its own name, so ORDER BY can still read it), and
// the projection asked for is made over its rows. Without an aggregate,
// grouping leaves one row per group, as DISTINCT does. The statement is
// not changed: the projections are copies.
func (b *binder) groupBy(p *gql.Projection, items []gql.Expr, names []string) (*gql.Projection, error) {
	used := make([]bool, len(p.GroupBy))
	// A key names a variable, an item by its alias, or an expression.
	keyVars, keyTexts := map[string]bool{}, map[string]bool{}
	for _, key := range p.GroupBy {
		keyTexts[gql.ExprString(key.Expr)] = true
		if v, ok := key.Expr.(*gql.Variable); ok {
			keyVars[v.Name] = true
			for i, n := range names {
				if n == v.Name {
					keyTexts[gql.ExprString(items[i])] = true
				}
			}
		}
	}
	hasAgg := false
	for i, it := range items {
		if _, ok := containsAggregate(it); ok {
			hasAgg = true
			continue
		}
		text := gql.ExprString(it)
		found := false
		for k, key := range p.GroupBy {
			if v, ok := key.Expr.(*gql.Variable); ok && v.Name == names[i] || gql.ExprString(key.Expr) == text {
				used[k], found = true, true
			}
		}
		if found {
			continue
		}
		if stray := b.ungrouped(it, keyVars, keyTexts); stray != "" {
			pos := it.Position()
			if pos.Line == 0 {
				pos = p.Pos
			}
			return nil, semanticAt(pos, "%s is neither aggregated nor a GROUP BY key (it reads %s)", names[i], stray)
		}
	}
	unreturned := false
	for _, u := range used {
		unreturned = unreturned || !u
	}
	if !unreturned {
		if hasAgg || p.Distinct {
			return p, nil
		}
		q := *p
		q.Distinct = true
		return &q, nil
	}
	first := gql.Projection{Pos: p.Pos, Distinct: !hasAgg}
	taken := map[string]bool{}
	for i, it := range items {
		first.Items = append(first.Items, &gql.ReturnItem{Expr: it, Alias: names[i], Text: names[i]})
		taken[names[i]] = true
	}
	for k, key := range p.GroupBy {
		if used[k] {
			continue
		}
		alias := b.sc.hiddenName("key")
		if v, ok := key.Expr.(*gql.Variable); ok && !taken[v.Name] {
			alias = v.Name
		}
		taken[alias] = true
		first.Items = append(first.Items, &gql.ReturnItem{Expr: key.Expr, Alias: alias, Text: key.Text})
	}
	if err := b.projection(&first, true, nil); err != nil {
		return nil, err
	}
	then := gql.Projection{Pos: p.Pos, Distinct: p.Distinct, OrderBy: p.OrderBy, Skip: p.Skip, Limit: p.Limit}
	for _, n := range names {
		then.Items = append(then.Items, &gql.ReturnItem{Expr: &gql.Variable{Pos: p.Pos, Name: n}, Alias: n, Text: n})
	}
	return &then, nil
}

// ungrouped returns a variable of the working table that e reads outside
// its aggregates and outside every part of it that is a grouping key
// (keyTexts: p.name is one value per group under GROUP BY p.name, and so
// is p.name <> 'a'), or "" when there is none. Variables of keyVars are
// keys themselves. The engine's own columns (an EXISTS subquery's row
// number, named as no query writes unquoted) group as Cypher's keys do.
func (b *binder) ungrouped(e gql.Expr, keyVars, keyTexts map[string]bool) string {
	stray := ""
	gql.Walk(e, func(x gql.Expr) bool {
		if stray != "" || keyTexts[gql.ExprString(x)] {
			return false
		}
		switch x := x.(type) {
		case *gql.FuncCall:
			if _, isAgg := functions.LookupAgg(strings.ToLower(x.Name)); isAgg && len(x.Namespace) == 0 {
				return false
			}
		case *gql.Variable:
			if _, inScope := b.sc.lookup(x.Name); inScope && !keyVars[x.Name] && !strings.HasPrefix(x.Name, "#") {
				stray = x.Name
			}
		}
		return true
	})
	return stray
}
