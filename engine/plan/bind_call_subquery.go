package plan

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// isUnitCall reports whether CALL { … } is a unit subquery: its query
// does not end with RETURN, so each outer row passes through once.
func isUnitCall(c *gql.CallSubquery) bool {
	cs := c.Query.Parts[0].Clauses
	_, ret := cs[len(cs)-1].(*gql.Return)
	return !ret
}

// callSubquery plans [OPTIONAL] CALL [(scope)] { … } [IN TRANSACTIONS].
func (b *binder) callSubquery(c *gql.CallSubquery) error {
	what := "a CALL subquery"
	if c.InTransactions {
		if b.sub > 0 {
			return semanticAt(c.Pos, "CALL { … } IN TRANSACTIONS cannot be nested in a subquery")
		}
		if c.Optional {
			return notSupported(c.Pos, "OPTIONAL CALL { … } IN TRANSACTIONS is not supported")
		}
		switch {
		case c.Concurrent:
			return notSupported(c.TxPos, "CALL { … } IN CONCURRENT TRANSACTIONS is not supported: batches run one after another")
		case c.OnError != "" && c.OnError != "FAIL":
			return notSupported(c.TxPos, "CALL { … } IN TRANSACTIONS ON ERROR %s is not supported: a failing batch fails the statement (ON ERROR FAIL), and the batches committed before it stay", c.OnError)
		case c.ReportStatus != nil:
			return notSupported(c.ReportStatus.Pos, "CALL { … } IN TRANSACTIONS REPORT STATUS is not supported")
		}
	}
	batch, err := b.batchRows(c)
	if err != nil {
		return err
	}
	writes := queryWrites(c.Query)
	unit := isUnitCall(c)
	if unit && !writes {
		return syntaxAt(clausePos(c.Query.Parts[0]), "a CALL subquery must end with RETURN or an updating clause")
	}
	if c.InTransactions && !writes {
		return semanticAt(c.Pos, "CALL { … } IN TRANSACTIONS is for subqueries that update the graph")
	}
	if b.root != nil && (writes || batch > 0) {
		// The outer rows are read before the subquery writes, as a
		// write clause reads its input; and before a batch commits.
		b.eagerInput()
	}
	saved := b.saveState()
	outer := b.input()
	outerScope := b.sc.cols
	if b.root == nil {
		outerScope = nil
	}
	s := subqueryScope{outer: b.outerNames(), call: true, what: what}
	if b.root == nil {
		s.outer = map[string]bool{}
	}
	bs, err := b.shapedSubquery(c.Query, outer.Columns(), s, batch > 0, func(arg *Argument, part int) ([]Column, []gql.Clause, error) {
		return b.imports(c, c.Query.Parts[part], arg, outerScope)
	})
	b.restoreState(saved)
	if err != nil {
		return err
	}
	inner, ret := bs.plan, bs.ret
	op := &CallSubquery{Input: outer, Inner: inner, Arg: bs.arg, RowCol: -1, PerRow: bs.perRow,
		Optional: c.Optional, Unit: unit, BatchRows: batch, Rows: bs.rows, EmptyPlan: bs.empty, EmptyArg: bs.emptyArg}
	if !bs.perRow {
		op.RowCol = 0
	}
	if unit {
		ret = nil
	}
	for _, col := range ret {
		if s.outer[col.Name] { // RETURN * of an imported variable
			return semanticAt(clausePos(c.Query.Parts[0]), "variable %s is already declared in the outer scope: a CALL subquery cannot return it (rename it with AS)", col.Name)
		}
	}
	off := len(inner.Columns()) - len(ret)
	op.Cols = appendCols(outer.Columns())
	for i, col := range ret {
		op.Ret = append(op.Ret, off+i)
		op.Cols = append(op.Cols, col)
	}
	b.set(op)
	if writes && !unit {
		// The clauses after it read the graph once every row's writes
		// are done, as after a writing clause.
		b.eagerInput()
	}
	return nil
}

// batchRows is the IN TRANSACTIONS batch size: OF n ROWS, n a positive
// INTEGER known when the statement is planned (a literal or parameter),
// 1000 by default as in Neo4j.
func (b *binder) batchRows(c *gql.CallSubquery) (int64, error) {
	if !c.InTransactions {
		return 0, nil
	}
	if c.BatchRows == nil {
		return 1000, nil
	}
	e, err := b.expr(c.BatchRows, noAggregates)
	if err != nil {
		return 0, err
	}
	var v vector.Value
	switch x := e.(type) {
	case *Const:
		v = x.Val
	case *Param:
		if b.untyped {
			return 1, nil
		}
		v = b.params[x.Name]
		b.valueBound = true
	default:
		return 0, semanticAt(c.BatchRows.Position(), "the batch size of IN TRANSACTIONS OF n ROWS must be a literal or a parameter")
	}
	n, ok := v.(int64)
	if !ok || n < 1 {
		return 0, errs.Data("the batch size of IN TRANSACTIONS OF n ROWS must be a positive INTEGER, got %v", v).At(c.BatchRows.Position().Line, c.BatchRows.Position().Column)
	}
	return n, nil
}

// imports is the scope one UNION part of CALL { … } starts from, and the
// clauses left to bind: the Argument's columns with every outer variable
// the part does not import hidden. The scope clause names the imports
// (CALL (x, y), CALL (*), CALL ()); without one, an importing WITH as the
// first clause does (Cypher 5), and is then consumed. An importing WITH
// may only list outer variables: WITH n AS m, an expression or a WHERE
// beside an import is an error, as in Neo4j 5.
func (b *binder) imports(c *gql.CallSubquery, part *gql.SingleQuery, arg *Argument, outer []Column) ([]Column, []gql.Clause, error) {
	visible := map[string]bool{}
	for _, col := range outer {
		if !col.Hidden {
			visible[col.Name] = true
		}
	}
	clauses := part.Clauses
	imported := map[string]bool{}
	all := false
	switch {
	case c.HasScope:
		all = c.ScopeAll
		for _, v := range c.Scope {
			if !visible[v.Name] {
				return nil, nil, semanticAt(v.Pos, "variable %s is not defined in the outer scope, so CALL cannot import it", v.Name)
			}
			if imported[v.Name] {
				return nil, nil, semanticAt(v.Pos, "variable %s is imported twice", v.Name)
			}
			imported[v.Name] = true
		}
	default:
		w, ok := clauses[0].(*gql.With)
		if !ok {
			break
		}
		importing, other := w.Projection.Star, false
		for _, it := range w.Projection.Items {
			if v, isVar := it.Expr.(*gql.Variable); isVar && visible[v.Name] {
				importing = true
				if it.Alias != "" && it.Alias != v.Name {
					return nil, nil, semanticAt(it.Expr.Position(), "an importing WITH may only name outer variables: WITH %s AS %s renames one; import %s, then rename it in a second WITH", v.Name, it.Alias, v.Name)
				}
				imported[v.Name] = true
				continue
			}
			other = true
		}
		if !importing {
			break // an ordinary first WITH, over no imports
		}
		pj := &w.Projection
		switch {
		case other:
			return nil, nil, semanticAt(w.Pos, "an importing WITH may only name outer variables (WITH a, b); compute other values in a second WITH")
		case w.Where != nil:
			return nil, nil, semanticAt(w.Where.Position(), "an importing WITH cannot have WHERE; filter in a second WITH or a MATCH")
		case pj.Distinct || len(pj.OrderBy) > 0 || pj.Skip != nil || pj.Limit != nil:
			return nil, nil, semanticAt(w.Pos, "an importing WITH may only name outer variables: no DISTINCT, ORDER BY, SKIP or LIMIT")
		}
		all = pj.Star
		clauses = clauses[1:]
	}
	cols := append([]Column(nil), arg.Cols...)
	for i := range outer {
		if !cols[i].Hidden && !all && !imported[cols[i].Name] {
			cols[i].Hidden = true
		}
	}
	return cols, clauses, nil
}

// subqueryExpr binds COUNT { … }, COLLECT { … } or EXISTS { … } over a
// whole query: a sub-plan over the current rows, all of whose variables
// it sees.
func (b *binder) subqueryExpr(e *gql.Subquery) (Expr, error) {
	what := e.Kind + " { … }"
	if queryWrites(e.Query) {
		for _, part := range e.Query.Parts {
			for _, c := range part.Clauses {
				if isUpdate(c) {
					return nil, semanticAt(c.Position(), "%s cannot update the graph; use CALL { … }", what)
				}
			}
		}
	}
	saved := b.saveState()
	defer b.restoreState(saved)
	s := subqueryScope{outer: b.outerNames(), what: what}
	bs, err := b.shapedSubquery(e.Query, b.sc.cols, s, false, func(arg *Argument, part int) ([]Column, []gql.Clause, error) {
		return arg.Cols, e.Query.Parts[part].Clauses, nil
	})
	if err != nil {
		return nil, err
	}
	inner, ret := bs.plan, bs.ret
	sq := &PatternSubquery{Plan: inner, Arg: bs.arg, RowCol: -1, Proj: -1, Text: gql.ExprString(e),
		Count: e.Kind == gql.SubqueryCount, PerRow: bs.perRow, Rows: bs.rows, EmptyPlan: bs.empty, EmptyArg: bs.emptyArg}
	if !bs.perRow {
		sq.RowCol = 0
	}
	if e.Kind == gql.SubqueryCollect {
		cs := e.Query.Parts[0].Clauses
		if _, ok := cs[len(cs)-1].(*gql.Return); !ok || len(ret) != 1 {
			return nil, semanticAt(e.Pos, "COLLECT { … } must end with a RETURN of exactly one column, got %d", len(ret))
		}
		sq.Proj = len(inner.Columns()) - 1
	}
	return sq, nil
}

// maxEmptyPlans bounds the empty plans of a statement (shapedSubquery).
const maxEmptyPlans = 8

// boundSubquery is a subquery's plan and how it runs.
type boundSubquery struct {
	plan   Operator
	arg    *Argument
	ret    []Column
	perRow bool
	rows   RowLimit
	// empty and emptyArg are the plan bound per row, run over no outer
	// row for the outer rows a decorrelated keyless aggregate gave
	// nothing (subqueryShape.keyless).
	empty    Operator
	emptyArg *Argument
}

// shapedSubquery binds q over an Argument of the outer columns and a row
// number, the way shapeOf (or perRow) says it runs; visible gives each
// UNION part's starting scope over that Argument.
func (b *binder) shapedSubquery(q *gql.Query, outer []Column, s0 subqueryScope, perRow bool,
	visible func(arg *Argument, part int) ([]Column, []gql.Clause, error)) (*boundSubquery, error) {
	sh, err := b.shapeOf(q)
	if err != nil {
		return nil, err
	}
	sh.perRow = sh.perRow || perRow
	if sh.keyless && !sh.perRow {
		// An empty plan binds the query a second time, and so every
		// subquery nested in it: a query with a nested subquery (and,
		// past a few, any) runs per row instead, so that nested keyless
		// subqueries cost linear, not exponential, binding.
		if b.emptyPlans++; b.emptyPlans > maxEmptyPlans || hasNestedSubquery(q) {
			sh.perRow = true
		}
	}
	bind := func(perRow bool) (Operator, *Argument, []Column, error) {
		rowCol, rowName := b.rowColumn(perRow)
		arg := &Argument{Cols: appendCols(outer, rowCol)}
		s := s0
		s.arg, s.rowName, s.rowLimits = arg, rowName, !perRow
		inner, ret, err := b.subquery(q, &s, func(part int) ([]Column, []gql.Clause, error) { return visible(arg, part) })
		return inner, arg, ret, err
	}
	bs := &boundSubquery{perRow: sh.perRow}
	if bs.plan, bs.arg, bs.ret, err = bind(sh.perRow); err != nil {
		return nil, err
	}
	if !sh.perRow {
		bs.rows = sh.rows
		if sh.keyless {
			if bs.empty, bs.emptyArg, _, err = bind(true); err != nil {
				return nil, err
			}
		}
	}
	return bs, nil
}

// hasNestedSubquery reports whether q holds a subquery of its own (a CALL
// { … } clause, a COUNT, COLLECT or EXISTS over a query), or a clause
// this check does not read.
func hasNestedSubquery(q *gql.Query) bool {
	found := false
	visit := func(es ...gql.Expr) {
		for _, e := range es {
			gql.Walk(e, func(x gql.Expr) bool {
				if _, ok := x.(*gql.Subquery); ok {
					found = true
				}
				return !found
			})
		}
	}
	projection := func(p *gql.Projection) {
		for _, it := range p.Items {
			visit(it.Expr)
		}
		for _, o := range p.OrderBy {
			visit(o.Expr)
		}
		visit(p.Skip, p.Limit)
	}
	for _, part := range q.Parts {
		for _, c := range part.Clauses {
			switch c := c.(type) {
			case *gql.Match:
				for _, pp := range c.Pattern.Parts {
					for _, n := range pp.Nodes {
						visit(n.Props)
					}
					for _, r := range pp.Rels {
						visit(r.Props)
					}
				}
				visit(c.Where)
			case *gql.With:
				projection(&c.Projection)
				visit(c.Where)
			case *gql.Return:
				projection(&c.Projection)
			case *gql.Unwind:
				visit(c.Expr)
			default:
				return true
			}
			if found {
				return true
			}
		}
	}
	return false
}

// subqueryPlaceholder stands for a subquery expression in the first
// binding of an aggregating projection item, which only collects the
// item's aggregates and types it: the item is bound again over the
// groups, the subquery's query then.
func subqueryPlaceholder(e *gql.Subquery) Expr {
	sq := &PatternSubquery{Proj: -1, Text: gql.ExprString(e), Count: e.Kind == gql.SubqueryCount}
	if e.Kind == gql.SubqueryCollect {
		sq.Proj = 0
	}
	return sq
}
