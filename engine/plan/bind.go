package plan

import (
	"slices"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// Env is what binding needs besides the statement: the parameter values
// (their types type the plan), the procedures CALL may name (without a
// registry a CALL is an error) and the optimizer rules switched off.
type Env struct {
	Params  map[string]vector.Value
	Procs   *procs.Registry
	Options Options
	// Security is the row-level security of the statement's principal
	// (security.go); nil binds with none.
	Security *Security
	// Fields are the encrypted fields of the statement's graph (fle.go);
	// nil when none.
	Fields EncryptedFields
}

// Bind turns a parsed statement into a logical plan. The planner hints
// the statement gives (USING INDEX, WITHOUT INDEX, USING JOIN ON) and the
// rules of env are bound into the plan for Optimize, the next step.
//
// The parameters' values type the plan, so a value of the wrong type
// ($p * 2 with p a STRING) fails here. That is a fault of the data, not
// of the text: an error that binding without the parameters' types does
// not meet is a 22023 (invalid parameter value), not a 42000.
func Bind(stmt *gql.Statement, env Env) (*Plan, error) {
	p, err := bindWith(stmt, env, false)
	if err != nil && len(env.Params) > 0 {
		return nil, paramTypeError(stmt, env, err)
	}
	return p, err
}

// paramTypeError classifies err, an error binding stmt with its
// parameters' types. Bound again with those types unknown (as though the
// values were not given), a statement that still fails has an error of
// its own text, reported as that binding found it; one that binds
// failed because of a parameter's value.
func paramTypeError(stmt *gql.Statement, env Env, err error) error {
	e, ok := errs.As(err)
	if !ok || e.Code != errs.CodeSyntax {
		return err
	}
	if _, uerr := bindWith(stmt, env, true); uerr != nil {
		return uerr
	}
	return asParamError(e)
}

// asParamError is e as a 22023 error: a parameter's value the statement
// cannot use.
func asParamError(e *errs.Error) *errs.Error {
	out := errs.DataCode(errs.CodeInvalidParam, "%s", e.Message)
	out.Position, out.Suggestion = e.Position, e.Suggestion
	return out
}

// bindWith binds stmt; untyped binds every parameter as a value of
// unknown type.
func bindWith(stmt *gql.Statement, env Env, untyped bool) (*Plan, error) {
	q := stmt.Query
	var p *Plan
	var err error
	if len(q.Parts) == 1 {
		p, err = bindSingle(q.Parts[0], env, untyped)
	} else {
		p, err = bindUnion(q, env, untyped)
	}
	if err != nil {
		return nil, err
	}
	p.Hints, p.Options = collectHints(stmt), env.Options
	return p, nil
}

// bindSingle binds one query without UNION.
func bindSingle(part *gql.SingleQuery, env Env, untyped bool) (*Plan, error) {
	b := &binder{params: env.Params, untyped: untyped, procs: env.Procs, opts: env.Options, sec: env.Security, fields: env.Fields}
	if err := b.clauses(part.Clauses); err != nil {
		return nil, err
	}
	cs := part.Clauses
	_, returns := cs[len(cs)-1].(*gql.Return)
	if pc := b.lastCall; pc != nil && len(cs) == 1 && !pc.Void {
		returns = true // a standalone call returns what it yields
	}
	return &Plan{Root: b.root, Writes: b.writes, Returns: returns, Calls: b.calls, Fired: b.fired,
		ValueBound: b.valueBound, CountChecks: b.countChecks}, nil
}

// bindUnion binds queries joined by UNION or UNION ALL. Every part must
// return the same column names; a part that lists them in another order is
// reordered to the first part's. UNION removes duplicate rows.
func bindUnion(q *gql.Query, env Env, untyped bool) (*Plan, error) {
	for _, all := range q.UnionAll[1:] {
		if all != q.UnionAll[0] {
			return nil, syntaxAt(clausePos(q.Parts[1]), "UNION and UNION ALL cannot be mixed in one query")
		}
	}
	u := &Union{}
	out := &Plan{Returns: true}
	for i, part := range q.Parts {
		p, err := bindSingle(part, env, untyped)
		if err != nil {
			return nil, err
		}
		if !p.Returns {
			return nil, syntaxAt(clausePos(part), "each part of a UNION must end with RETURN")
		}
		out.Writes = out.Writes || p.Writes
		out.ValueBound = out.ValueBound || p.ValueBound
		out.CountChecks = append(out.CountChecks, p.CountChecks...)
		for _, c := range p.Calls {
			out.Calls = addCall(out.Calls, c)
		}
		for _, r := range p.Fired {
			out.Fired = AddRule(out.Fired, r)
		}
		cols := p.Columns()
		root := p.Root
		if len(root.Columns()) != len(cols) {
			pr := &Project{Input: root}
			for j, c := range root.Columns() {
				if !c.Hidden {
					pr.Exprs = append(pr.Exprs, &ColRef{Idx: j, Name: c.Name, T: c.Type, Kind: c.Kind, Elem: c.Elem})
					pr.Cols = append(pr.Cols, c)
				}
			}
			root = pr
		}
		if i == 0 {
			u.Cols = append([]Column(nil), cols...)
			u.Mixed = make([]bool, len(cols))
		} else if root, err = alignUnion(root, cols, u.Cols, u.Mixed, part); err != nil {
			return nil, err
		}
		u.Inputs = append(u.Inputs, root)
	}
	out.Root = u
	if !q.UnionAll[0] {
		out.Root = &Distinct{Input: u}
	}
	return out, nil
}

// alignUnion checks that a later UNION part has the first part's column
// names and reorders its columns to theirs; it widens a column's type to
// Any where the parts disagree.
func alignUnion(root Operator, cols, want []Column, mixed []bool, part *gql.SingleQuery) (Operator, error) {
	if len(cols) != len(want) {
		return nil, syntaxAt(clausePos(part), "all parts of a UNION must return the same column names")
	}
	pr := &Project{Input: root}
	reordered := false
	for w := range want {
		found := -1
		for j, c := range cols {
			if c.Name == want[w].Name {
				found = j
			}
		}
		if found < 0 {
			return nil, syntaxAt(clausePos(part), "all parts of a UNION must return the same column names")
		}
		reordered = reordered || found != w
		c := cols[found]
		pr.Exprs = append(pr.Exprs, &ColRef{Idx: found, Name: c.Name, T: c.Type, Kind: c.Kind, Elem: c.Elem})
		pr.Cols = append(pr.Cols, c)
		if c.Type != want[w].Type {
			want[w].Type = vector.Any
			mixed[w] = true
		}
		if c.Kind != want[w].Kind {
			want[w].Kind = ""
		}
		if c.Elem != want[w].Elem || want[w].Kind != "LIST" {
			want[w].Elem = vector.Null
		}
	}
	if !reordered {
		return root, nil
	}
	return pr, nil
}

// clausePos is the position of a query's last clause (its RETURN).
func clausePos(part *gql.SingleQuery) gql.Pos {
	if len(part.Clauses) == 0 {
		return gql.Pos{Line: 1, Column: 1}
	}
	return part.Clauses[len(part.Clauses)-1].Position()
}

// binder builds the plan clause by clause. root is the plan so far; sc
// names its columns.
type binder struct {
	root   Operator
	sc     scope
	writes bool
	params map[string]vector.Value
	// untyped binds parameters as values of unknown type (paramTypeError).
	untyped bool
	procs   *procs.Registry
	// sec is the row-level security every bound element is filtered by.
	sec *Security
	// fields are the encrypted fields (fle.go).
	fields EncryptedFields
	// opts switches optimizer rules off (rules.go).
	opts Options
	// lastCall is the plan of the latest CALL clause; calls lists every
	// procedure called (Plan.Calls).
	lastCall *ProcedureCall
	calls    []*procs.Procedure
	// aliases, while ORDER BY of a plain projection is bound, maps the
	// projection's column names to their expressions over its input.
	aliases map[string]Expr
	// inWhere is set while a WHERE predicate is bound: only there may a
	// pattern be used as a predicate.
	inWhere bool
	// aggOf records which collected aggregate each aggregate call of a
	// projection became; aggSubst, while set, replaces those calls by the
	// Aggregate operator's columns (bindOverGroups).
	aggOf    map[*gql.FuncCall]int
	aggSubst map[*gql.FuncCall]Expr
	// keyed are the variables the current MATCH's WHERE compares by a
	// property with a value (bind_keys.go): good starts for a pattern.
	keyed map[string]bool
	// fired lists the rules that changed the plan being bound.
	fired []string
	// valueBound and countChecks record where binding read a
	// parameter's value, not only its type (Plan.ValueBound,
	// Plan.CountChecks).
	valueBound  bool
	countChecks []CountCheck
	// sub is the depth of subqueries being bound, and emptyPlans the
	// empty plans bound so far (bind_subqueries.go).
	sub, emptyPlans int
}

// fire records that rule changed the plan.
func (b *binder) fire(rule string) { b.fired = AddRule(b.fired, rule) }

// AddRule appends rule to fired unless it is there already.
func AddRule(fired []string, rule string) []string {
	if slices.Contains(fired, rule) {
		return fired
	}
	return append(fired, rule)
}

// input returns the plan so far, or a single empty row when nothing came
// before (CREATE or RETURN as the first clause).
func (b *binder) input() Operator {
	if b.root == nil {
		return &Unit{}
	}
	return b.root
}

// set makes op the new root with the given columns.
func (b *binder) set(op Operator) {
	b.root = op
	b.sc.cols = op.Columns()
}

func (b *binder) clauses(cs []gql.Clause) error {
	for i, c := range cs {
		last := i == len(cs)-1
		var err error
		switch c := c.(type) {
		case *gql.Match:
			if c.Optional {
				err = b.optionalMatch(c)
			} else {
				err = b.match(c)
			}
		case *gql.Unwind:
			err = b.unwind(c)
		case *gql.Create:
			if _, chained := b.root.(*Create); !chained {
				b.eagerInput()
			}
			err = b.create(c)
		case *gql.Call:
			err = b.procedureCall(c, len(cs) == 1)
		case *gql.CallSubquery:
			err = b.callSubquery(c)
		case *gql.Set:
			err = b.setClause(c.Items, false)
		case *gql.Remove:
			err = b.setClause(c.Items, true)
		case *gql.Delete:
			err = b.deleteClause(c)
		case *gql.Merge:
			err = b.merge(c)
		case *gql.Return:
			if !last {
				return syntaxAt(c.Pos, "RETURN can only be used at the end of the query")
			}
			err = b.projection(&c.Projection, false, nil)
		case *gql.With:
			if last {
				return syntaxAt(c.Pos, "a query cannot end with WITH; add a RETURN clause")
			}
			err = b.projection(&c.Projection, true, c.Where)
		case *gql.Filter, *gql.Let, *gql.For, *gql.OptionalBlock:
			err = b.statement(c)
		default:
			return notSupported(c.Position(), "%s is not supported yet", clauseName(c))
		}
		if err != nil {
			return err
		}
		if !last && isUpdate(c) {
			// Consecutive CREATE clauses read nothing of each other's
			// rows but their own, so they need no barrier between them.
			_, c1 := c.(*gql.Create)
			_, c2 := cs[i+1].(*gql.Create)
			if !c1 || !c2 {
				b.eagerInput()
			}
		}
	}
	if len(cs) > 0 {
		if _, ok := cs[len(cs)-1].(*gql.Return); ok || isUpdate(cs[len(cs)-1]) {
			return nil
		}
		if _, ok := cs[len(cs)-1].(*gql.Call); ok {
			// A standalone call, or a void procedure, may end a query.
			if pc := b.lastCall; pc != nil && (len(cs) == 1 || pc.Void) {
				return nil
			}
		}
		return syntaxAt(cs[len(cs)-1].Position(), "a query must end with RETURN or an updating clause")
	}
	return syntaxAt(gql.Pos{Line: 1, Column: 1}, "empty query")
}

// isUpdate reports whether c is an updating clause.
func isUpdate(c gql.Clause) bool {
	if cs, ok := c.(*gql.CallSubquery); ok {
		return isUnitCall(cs) // bind_call_subquery.go
	}
	switch c.(type) {
	case *gql.Create, *gql.Set, *gql.Remove, *gql.Delete, *gql.Merge:
		return true
	}
	return false
}

// where adds a filter on the current rows.
func (b *binder) where(e gql.Expr) error {
	pred, err := b.predicate(e)
	if err != nil {
		return err
	}
	b.set(&Filter{Input: b.root, Pred: pred})
	return nil
}

// predicate binds a WHERE condition: patterns may be used as predicates
// there, and a value that can never be a boolean is refused.
func (b *binder) predicate(e gql.Expr) (Expr, error) {
	saved := b.inWhere
	b.inWhere = true
	pred, err := b.expr(e, noAggregates)
	b.inWhere = saved
	if err != nil {
		return nil, err
	}
	switch t := pred.Type(); t {
	case vector.Node, vector.Rel, vector.Int64, vector.Float64, vector.String:
		return nil, semanticAt(e.Position(), "WHERE expects a boolean, got %s", t)
	}
	return pred, nil
}

func syntaxAt(p gql.Pos, format string, args ...any) error {
	return errs.Syntax(format, args...).At(p.Line, p.Column)
}

func semanticAt(p gql.Pos, format string, args ...any) error {
	return errs.Semantic(format, args...).At(p.Line, p.Column)
}

func notSupported(p gql.Pos, format string, args ...any) error {
	return errs.NotSupported(format, args...).At(p.Line, p.Column)
}

// clauseName names a clause for error messages.
func clauseName(c gql.Clause) string {
	switch c := c.(type) {
	case *gql.Match:
		if c.Optional {
			return "OPTIONAL MATCH"
		}
		return "MATCH"
	case *gql.Merge:
		return "MERGE"
	case *gql.Set:
		return "SET"
	case *gql.Remove:
		return "REMOVE"
	case *gql.Delete:
		if c.Detach {
			return "DETACH DELETE"
		}
		return "DELETE"
	case *gql.Unwind:
		return "UNWIND"
	case *gql.Call:
		return "CALL"
	case *gql.Filter:
		return "FILTER"
	case *gql.Let:
		return "LET"
	case *gql.For:
		return "FOR"
	case *gql.OptionalBlock:
		return "OPTIONAL { }"
	}
	return "this clause"
}

// unwind plans UNWIND e AS v.
func (b *binder) unwind(u *gql.Unwind) error {
	b.set(b.input())
	e, err := b.expr(u.Expr, noAggregates)
	if err != nil {
		return err
	}
	if _, ok := b.sc.lookup(u.Var); ok {
		return semanticAt(u.Pos, "variable %s is already defined", u.Var)
	}
	b.set(&Unwind{Input: b.root, Expr: e, Cols: appendCols(b.sc.cols, Column{Name: u.Var, Type: b.elemType(e), Kind: elemKind(e)})})
	return nil
}

// elemType is the type of every element of a list known when the query
// is compiled, else Any: of a constant list (a list literal of constants
// left unfolded, the constant-fold rule off, types alike) or a list
// parameter's value when they share one, and of a function that fixes it
// (range() gives INTEGERs).
func (b *binder) elemType(e Expr) vector.Type {
	var l []vector.Value
	switch x := e.(type) {
	case *Call:
		if f, ok := functions.Lookup(x.Name); ok && f.Elem != vector.Null {
			return f.Elem
		}
		return vector.Any
	case *Param:
		if b.untyped {
			return vector.Any
		}
		l, _ = b.params[x.Name].([]vector.Value)
		return ListElemType(l)
	case *Const:
		l, _ = x.Val.([]vector.Value)
	case *List:
		for _, el := range x.Elems {
			c, ok := el.(*Const)
			if !ok {
				return vector.Any
			}
			l = append(l, c.Val)
		}
	}
	return ListElemType(l)
}

// ListElemType is the one type of every element of l that is not null,
// or Any when they mix, l is empty or its first element is null (as
// elemType reads a list parameter's value: ParamShape keys a reused plan
// on it).
func ListElemType(l []vector.Value) vector.Type {
	if len(l) == 0 {
		return vector.Any
	}
	t := vector.TypeOf(l[0])
	for _, x := range l[1:] {
		if x != nil && vector.TypeOf(x) != t {
			return vector.Any
		}
	}
	if t == vector.Null {
		return vector.Any
	}
	return t
}

// elemKind is LIST or MAP when every element of a list literal is one,
// whether the literal was folded into a constant or not.
func elemKind(e Expr) string {
	var kinds []string
	switch x := e.(type) {
	case *Const:
		l, _ := x.Val.([]vector.Value)
		for _, v := range l {
			kinds = append(kinds, valueKind(v))
		}
	case *List:
		for _, el := range x.Elems {
			kinds = append(kinds, KindOf(el))
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	for _, k := range kinds[1:] {
		if k != kinds[0] {
			return ""
		}
	}
	return kinds[0]
}

// optionalMatch plans OPTIONAL MATCH: the pattern (and its WHERE) is
// planned over an Argument carrying the current rows and a row number,
// and Optional keeps each row that found no match, with nulls.
func (b *binder) optionalMatch(m *gql.Match) error {
	outer := b.input()
	arg := &Argument{Cols: appendCols(outer.Columns(), Column{Name: b.sc.hiddenName("row"), Type: vector.Int64, Hidden: true})}
	b.set(arg)
	if err := b.match(m); err != nil {
		return err
	}
	b.set(&Optional{Input: outer, Inner: b.root, Arg: arg, RowCol: len(arg.Cols) - 1})
	return nil
}
