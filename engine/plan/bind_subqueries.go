package plan

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// This file binds the subqueries over a whole query: the CALL { … }
// clause and the COUNT, COLLECT and EXISTS expressions. Each is one sub-plan
// over an Argument that carries the outer rows and a row number, the
// machinery of OPTIONAL MATCH and the pattern predicates, and runs one of
// two ways:
//
//   - decorrelated, once per outer batch: the row number is carried
//     through every WITH and RETURN of the subquery (a grouping key under
//     aggregation, a DISTINCT key), so the rows of all the batch's outer
//     rows come out of one run and are mapped back by it. The final
//     RETURN's constant SKIP and LIMIT are applied by the executor to
//     each outer row's rows (RowLimit); a keyless aggregate there, which
//     yields a row even for an outer row with no input rows (count(*) =
//     0), gets those rows from the plan bound per row and run once over
//     no rows (the empty plan);
//   - per row, once per outer row: when the subquery writes, calls a
//     procedure or a nested CALL { … }, or has SKIP, LIMIT or a keyless
//     aggregate before its final RETURN or in a UNION part, whose meaning
//     depends on seeing one outer row at a time (shapeOf).

// subqueryScope is what binding a subquery's clauses needs to know of the
// query around it.
type subqueryScope struct {
	arg *Argument
	// rowName is the visible name of the row-number column, carried
	// through projections; empty when the subquery runs per row.
	rowName string
	// outer holds every variable of the enclosing scope: a subquery that
	// declares one anew shadows it, an error (as in Neo4j 5).
	outer map[string]bool
	// call is set for CALL { … }, whose returned columns join the outer
	// scope and may therefore not repeat an outer name.
	call bool
	// what names the subquery in messages.
	what string
	// rowLimits drops the final RETURN's SKIP and LIMIT, which the
	// executor applies per outer row instead.
	rowLimits bool
}

// subqueryShape is how a subquery runs (above).
type subqueryShape struct {
	perRow bool
	// rows is the final RETURN's SKIP and LIMIT, which the executor
	// applies to each outer row's rows of a decorrelated run.
	rows RowLimit
	// keyless is set when the final RETURN aggregates without a grouping
	// key: a decorrelated run yields no row for an outer row with no
	// input rows, which gets the rows of the plan run over none instead
	// (the aggregate of nothing: count 0, collect []).
	keyless bool
}

// shapeOf decides how q runs. It runs per row when a clause's meaning
// depends on seeing one outer row at a time: writes and calls, SKIP,
// LIMIT or a keyless aggregate before the final RETURN or in a UNION,
// a SKIP or LIMIT that is not a constant. The final RETURN of a single
// query may limit rows (per outer row, by the executor) and aggregate
// without keys (the empty plan), decorrelated.
func (b *binder) shapeOf(q *gql.Query) (subqueryShape, error) {
	sh := subqueryShape{}
	for _, part := range q.Parts {
		for i, c := range part.Clauses {
			var pj *gql.Projection
			switch c := c.(type) {
			case *gql.With:
				pj = &c.Projection
			case *gql.Return:
				pj = &c.Projection
			case *gql.Create, *gql.Merge, *gql.Set, *gql.Remove, *gql.Delete, *gql.Call, *gql.CallSubquery:
				sh.perRow = true
				return sh, nil
			}
			if pj == nil {
				continue
			}
			limits, keyless := pj.Skip != nil || pj.Limit != nil, keylessProjection(pj)
			if !limits && !keyless {
				continue
			}
			if i < len(part.Clauses)-1 || len(q.Parts) > 1 {
				sh.perRow = true
				return sh, nil
			}
			sh.keyless = keyless
			var ok bool
			if sh.rows, ok = b.constantLimits(pj); !ok {
				sh.perRow = true
				return sh, nil
			}
		}
	}
	return sh, nil
}

// keylessProjection reports whether a projection aggregates without a
// grouping key.
func keylessProjection(p *gql.Projection) bool {
	agg, key := false, p.Star
	for _, it := range p.Items {
		if _, ok := containsAggregate(it.Expr); ok {
			agg = true
		} else {
			key = true
		}
	}
	return agg && !key
}

// constantLimits is a projection's SKIP and LIMIT when both are
// non-negative INTEGER literals or parameters.
func (b *binder) constantLimits(p *gql.Projection) (RowLimit, bool) {
	r := RowLimit{Limited: p.Limit != nil}
	for _, x := range []struct {
		e   gql.Expr
		dst *int64
	}{{p.Skip, &r.Skip}, {p.Limit, &r.Limit}} {
		if x.e == nil {
			continue
		}
		var v vector.Value
		switch e := x.e.(type) {
		case *gql.Literal:
			v = e.Value
		case *gql.Param:
			if b.untyped {
				return r, false
			}
			v = b.params[e.Name]
			b.valueBound = true
		}
		n, ok := v.(int64)
		if !ok || n < 0 {
			return r, false // per row, where the projection reports it
		}
		*x.dst = n
	}
	return r, true
}

// QueryWrites reports whether q has an updating clause, in nested CALLs
// too: whether its plan writes (Plan.Writes).
func QueryWrites(q *gql.Query) bool { return queryWrites(q) }

// queryWrites reports whether q has an updating clause, in nested CALLs
// too.
func queryWrites(q *gql.Query) bool {
	for _, part := range q.Parts {
		for _, c := range part.Clauses {
			if isUpdate(c) {
				return true
			}
			if cs, ok := c.(*gql.CallSubquery); ok && queryWrites(cs.Query) {
				return true
			}
		}
	}
	return false
}

// subqueryState is the binder state a subquery replaces while it is
// bound, restored after.
type subqueryState struct {
	root     Operator
	cols     []Column
	aliases  map[string]Expr
	inWhere  bool
	lastCall *ProcedureCall
}

func (b *binder) saveState() subqueryState {
	return subqueryState{b.root, b.sc.cols, b.aliases, b.inWhere, b.lastCall}
}

func (b *binder) restoreState(s subqueryState) {
	b.root, b.sc.cols, b.aliases, b.inWhere, b.lastCall = s.root, s.cols, s.aliases, s.inWhere, s.lastCall
}

// subquery binds q over s.arg, each UNION part from the scope visible(i)
// gives it, and returns the plan, whose columns are the row number
// (unless per row) then the returned columns, and the returned columns'
// names (none for a unit subquery).
func (b *binder) subquery(q *gql.Query, s *subqueryScope, visible func(part int) ([]Column, []gql.Clause, error)) (Operator, []Column, error) {
	for _, all := range q.UnionAll {
		if all != q.UnionAll[0] {
			return nil, nil, syntaxAt(clausePos(q.Parts[1]), "UNION and UNION ALL cannot be mixed in one query")
		}
	}
	b.sub++
	defer func() { b.sub-- }()
	var u *Union
	var ret []Column
	var root Operator
	for i, part := range q.Parts {
		cols, clauses, err := visible(i)
		if err != nil {
			return nil, nil, err
		}
		b.root, b.sc.cols, b.aliases, b.inWhere, b.lastCall = s.arg, cols, nil, false, nil
		if len(clauses) > 0 {
			if err := b.subClauses(clauses, s); err != nil {
				return nil, nil, err
			}
		}
		returns := len(clauses) > 0
		if returns {
			_, returns = clauses[len(clauses)-1].(*gql.Return)
		}
		if len(q.Parts) > 1 && !returns {
			return nil, nil, syntaxAt(clausePos(part), "each part of a UNION must end with RETURN")
		}
		pr := &Project{Input: b.root}
		var partRet []Column
		if s.rowName != "" {
			c, ok := b.sc.lookup(s.rowName)
			if !ok {
				return nil, nil, errs.Internal("internal error: %s lost its row numbers", s.what)
			}
			pr.Exprs, pr.Cols = append(pr.Exprs, b.sc.ref(c)), append(pr.Cols, b.sc.cols[c])
		}
		if returns {
			for j, c := range b.sc.cols {
				if !c.Hidden && c.Name != s.rowName {
					pr.Exprs, pr.Cols = append(pr.Exprs, b.sc.ref(j)), append(pr.Cols, c)
					partRet = append(partRet, c)
				}
			}
		}
		if len(q.Parts) == 1 {
			return pr, partRet, nil
		}
		if i == 0 {
			u = &Union{Cols: append([]Column(nil), pr.Cols...), Mixed: make([]bool, len(pr.Cols))}
			u.Inputs = append(u.Inputs, pr)
			ret = partRet
			continue
		}
		aligned, err := alignUnion(pr, pr.Cols, u.Cols, u.Mixed, part)
		if err != nil {
			return nil, nil, err
		}
		u.Inputs = append(u.Inputs, aligned)
	}
	root = u
	if !q.UnionAll[0] {
		root = &Distinct{Input: u}
	}
	off := len(u.Cols) - len(ret)
	return root, u.Cols[off:], nil
}

// subClauses binds the clauses of a subquery's part: the clauses of a
// query, with the row number carried through WITH and RETURN and the
// subquery's scoping rules checked.
func (b *binder) subClauses(cs []gql.Clause, s *subqueryScope) error {
	for i, c := range cs {
		last := i == len(cs)-1
		if err := b.checkShadowing(c, s); err != nil {
			return err
		}
		var err error
		switch c := c.(type) {
		case *gql.With:
			if last {
				return syntaxAt(c.Pos, "a query cannot end with WITH; add a RETURN clause")
			}
			err = b.projection(s.carry(&c.Projection, c.Pos), true, c.Where)
		case *gql.Return:
			if !last {
				return syntaxAt(c.Pos, "RETURN can only be used at the end of the query")
			}
			pj := s.carry(&c.Projection, c.Pos)
			if s.rowLimits {
				if pj == &c.Projection {
					cp := *pj
					pj = &cp
				}
				pj.Skip, pj.Limit = nil, nil
			}
			err = b.projection(pj, false, nil)
		case *gql.Create, *gql.Merge, *gql.Set, *gql.Remove, *gql.Delete:
			if !s.call {
				return semanticAt(c.Position(), "%s cannot update the graph; use CALL { … }", s.what)
			}
			switch c := c.(type) {
			case *gql.Create:
				if _, chained := b.root.(*Create); !chained {
					b.eagerInput()
				}
				err = b.create(c)
			case *gql.Merge:
				err = b.merge(c)
			case *gql.Set:
				err = b.setClause(c.Items, false)
			case *gql.Remove:
				err = b.setClause(c.Items, true)
			case *gql.Delete:
				err = b.deleteClause(c)
			}
			if err == nil && !last {
				_, c1 := c.(*gql.Create)
				_, c2 := cs[i+1].(*gql.Create)
				if !c1 || !c2 {
					b.eagerInput()
				}
			}
		case *gql.Match:
			if c.Optional {
				err = b.optionalMatch(c)
			} else {
				err = b.match(c)
			}
		case *gql.Unwind:
			err = b.unwind(c)
		case *gql.Call:
			err = b.procedureCall(c, false)
		case *gql.CallSubquery:
			err = b.callSubquery(c)
		case *gql.Filter, *gql.Let, *gql.For, *gql.OptionalBlock:
			err = b.statement(c) // GQL's statements keep every column, the row number too
		default:
			return notSupported(c.Position(), "%s in %s is not supported yet", clauseName(c), s.what)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// carry returns p with the row-number column added as an item (a
// grouping key under aggregation), when the subquery runs per batch.
func (s *subqueryScope) carry(p *gql.Projection, pos gql.Pos) *gql.Projection {
	if s.rowName == "" || p.Star {
		return p // RETURN * and WITH * carry every visible column
	}
	pj := *p
	pj.Items = append(append([]*gql.ReturnItem(nil), p.Items...), &gql.ReturnItem{Expr: &gql.Variable{Pos: pos, Name: s.rowName}, Alias: s.rowName, Text: s.rowName})
	return &pj
}

// itemName is the name a projection item's column gets.
func itemName(it *gql.ReturnItem) string {
	if it.Alias != "" {
		return it.Alias
	}
	if v, ok := it.Expr.(*gql.Variable); ok {
		return v.Name
	}
	return it.Text
}

// checkShadowing fails when clause c declares a variable of the
// enclosing scope anew, and when a CALL's RETURN names one.
func (b *binder) checkShadowing(c gql.Clause, s *subqueryScope) error {
	declares := func(name string, pos gql.Pos) error {
		if name != "" && s.outer[name] && !b.bound(name) {
			return semanticAt(pos, "variable %s shadows a variable of the outer scope: rename it (or import it)", name)
		}
		return nil
	}
	pattern := func(pat *gql.Pattern) error {
		for _, part := range pat.Parts {
			if err := declares(part.Var, part.Pos); err != nil {
				return err
			}
			for _, n := range part.Nodes {
				if err := declares(n.Var, n.Pos); err != nil {
					return err
				}
			}
			for _, r := range part.Rels {
				if err := declares(r.Var, r.Pos); err != nil {
					return err
				}
			}
		}
		return nil
	}
	projection := func(p *gql.Projection, ret bool) error {
		for _, it := range p.Items {
			name := itemName(it)
			if !s.outer[name] {
				continue
			}
			if ret && s.call {
				return semanticAt(it.Expr.Position(), "variable %s is already declared in the outer scope: a CALL subquery cannot return it (rename it with AS)", name)
			}
			if v, ok := it.Expr.(*gql.Variable); !ok || v.Name != name {
				return semanticAt(it.Expr.Position(), "variable %s shadows a variable of the outer scope: rename it", name)
			}
		}
		return nil
	}
	switch c := c.(type) {
	case *gql.Match:
		return pattern(c.Pattern)
	case *gql.Create:
		return pattern(c.Pattern)
	case *gql.Merge:
		return pattern(c.Pattern)
	case *gql.Unwind:
		return declares(c.Var, c.Pos)
	case *gql.With:
		return projection(&c.Projection, false)
	case *gql.Return:
		return projection(&c.Projection, true)
	case *gql.Call:
		for _, y := range c.Yield {
			name := y.Alias
			if name == "" {
				name = y.Name
			}
			if err := declares(name, c.Pos); err != nil {
				return err
			}
		}
	}
	return nil
}

// outerNames is the set of variables visible in the current scope.
func (b *binder) outerNames() map[string]bool {
	m := map[string]bool{}
	for _, c := range b.sc.cols {
		if !c.Hidden {
			m[c.Name] = true
		}
	}
	return m
}

// rowColumn is the row-number column of a subquery's Argument: visible
// under a name no query can write unquoted when the subquery runs per
// batch (so that projections can carry it), hidden when it runs per row.
func (b *binder) rowColumn(perRow bool) (Column, string) {
	name := b.sc.hiddenName("row")
	if perRow {
		return Column{Name: name, Type: vector.Int64, Hidden: true}, ""
	}
	return Column{Name: name, Type: vector.Int64}, name
}
