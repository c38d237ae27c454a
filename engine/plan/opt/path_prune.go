package opt

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// prunePaths moves the conjuncts of a WHERE that test every element of a
// variable-length chain into the expansion, which tests each element as
// the chain grows and never extends a chain that has failed
// (plan.VarLengthExpand's RelTest, NodeTest, InnerTest). The binder puts
// such a conjunct above the whole pattern, where it used to see every
// chain built: all(r IN rs WHERE r.since > 2015) over KNOWS*1..3 from
// one person at S enumerated 301,134 chains to keep 56,661.
//
// The forms recognised, over a chain whose relationship list is rs, or
// over p = (a)-[*]-(b) naming that chain alone:
//
//	all(x IN rs WHERE P)                 every relationship passes P
//	all(x IN relationships(p) WHERE P)   the same
//	all(x IN nodes(p) WHERE P)           every node, the start included
//	all(x IN nodes(p)[1..-1] WHERE P)    every node but the two ends
//	none(x IN … WHERE P)                 all(x IN … WHERE NOT P)
//
// A row passes a conjunction when it passes each conjunct, and all() is
// true exactly when P is true for every element: a chain with an element
// for which P is false or null can only give false or null, which WHERE
// rejects, and so can every chain extending it. The test is therefore
// the same as the conjunct wherever the conjunct stands at the top of a
// WHERE (never under NOT or OR, where a false all() may keep a row). any()
// and single() are not decided by a prefix and stay where they are.
//
// P may read the element and nothing else: constants, parameters, the
// element's properties and labels, compared and combined with AND, OR,
// XOR and NOT, IS NULL. None of those can fail, so the test raises no
// error that the conjunct would not have raised over the unpruned chains;
// a P that could (arithmetic, function calls) stays in the Filter.
//
// A GQL ALL SHORTEST search is pruned too, but there the WHERE filters
// the shortest paths found and does not steer the search: the search
// uses the tests only to skip the shortest paths that fail them as it
// enumerates them (exec/shortest_prune.go), and the conjunct stays in
// the Filter. One GQL shortest path (ANY SHORTEST) is not pruned: the
// WHERE keeps or drops the one the search finds first, and a search with
// the tests would find another. shortestPath and allShortestPaths take
// the same forms as restrictions of their search, always (steer.go).
//
// The expansion is found below the Filter through the operators that keep
// their input's columns in place (plan.KeepsInputColumns, and the
// projection adding a named path), never through OPTIONAL MATCH, where a
// chain failing would become a row of nulls instead of no row.
func prunePaths(op plan.Operator, steerOnly bool) plan.Operator {
	for _, c := range op.Children() {
		if n := prunePaths(c, steerOnly); n != c {
			plan.ReplaceChild(op, c, n)
		}
	}
	f, ok := op.(*plan.Filter)
	if !ok {
		return op
	}
	var kept []plan.Expr
	moved := false
	for _, c := range plan.Conjuncts(f.Pred, nil) {
		if pruneConjunct(f.Input, c, steerOnly) {
			moved = true
			continue
		}
		kept = append(kept, c)
	}
	if !moved {
		return op
	}
	if len(kept) == 0 {
		return f.Input
	}
	f.Pred = andOf(kept)
	return f
}

// The elements of a chain a quantifier ranges over.
const (
	chainRels = iota
	chainNodes
	chainInner
)

// pruneConjunct moves c into the expansion under in when it is one of
// the forms prunePaths recognises, and reports whether it did. Over a
// GQL ALL SHORTEST search, the tests are added but c stays: the search
// uses them to find the passing paths among the shortest. With
// steerOnly, only a steered search (shortestPath, allShortestPaths:
// steer.go) takes c.
func pruneConjunct(in plan.Operator, c plan.Expr, steerOnly bool) bool {
	q, ok := c.(*plan.Quantifier)
	if !ok || q.Kind != "all" && q.Kind != "none" {
		return false
	}
	search, what, ok := chainOf(in, q.List)
	if !ok {
		return false
	}
	t := vector.Rel
	if what != chainRels {
		t = vector.Node
	}
	test, ok := elementTest(q.Pred, q.Width, t)
	if !ok {
		return false
	}
	if q.Kind == "none" {
		test = &plan.Not{X: test}
	}
	var tests [3]*plan.Expr
	moved := true
	switch s := search.(type) {
	case *plan.VarLengthExpand:
		if steerOnly {
			return false
		}
		tests = [3]*plan.Expr{&s.RelTest, &s.NodeTest, &s.InnerTest}
	case *plan.ShortestPath:
		switch {
		case s.Steer:
			// The search takes only what passes: c holds of every
			// path it finds.
		case steerOnly:
			return false
		case !s.All:
			// One shortest path, and the WHERE keeps it or not: which
			// one the search finds first decides, so it cannot look
			// for one that passes.
			return false
		default:
			moved = false
		}
		tests = [3]*plan.Expr{&s.RelTest, &s.NodeTest, &s.InnerTest}
	}
	if prev := tests[what]; *prev == nil {
		*prev = test
	} else {
		*prev = &plan.Binary{Op: plan.OpAnd, L: *prev, R: test}
	}
	return moved
}

// chainOf resolves the list a quantifier ranges over, read over in's
// columns, to the variable-length expansion or the shortest path search
// whose chain it lists.
func chainOf(in plan.Operator, list plan.Expr) (plan.Operator, int, bool) {
	if c, ok := list.(*plan.ColRef); ok {
		switch s := binderOf(in, c.Idx).(type) {
		case *plan.VarLengthExpand:
			return s, chainRels, c.Idx == len(s.Input.Columns())
		case *plan.ShortestPath:
			return s, chainRels, c.Idx == len(s.Input.Columns())
		}
		return nil, 0, false
	}
	call, ok := list.(*plan.Call)
	if !ok {
		return nil, 0, false
	}
	what := chainRels
	switch call.Name {
	case "relationships":
	case "nodes":
		what = chainNodes
	case functions.OpSlice:
		inner, ok := call.Args[0].(*plan.Call)
		if !ok || inner.Name != "nodes" || !intConst(call.Args[1], 1) || !intConst(call.Args[2], -1) {
			return nil, 0, false
		}
		call, what = inner, chainInner
	default:
		return nil, 0, false
	}
	if len(call.Args) != 1 {
		return nil, 0, false
	}
	pc, ok := call.Args[0].(*plan.ColRef)
	if !ok {
		return nil, 0, false
	}
	search := pathSegment(in, pc.Idx)
	return search, what, search != nil
}

// pathSegment returns the expansion or search whose chain is the whole of
// the named path in column col of in, or nil: the path is built by a
// projection that adds it to the columns it keeps, from one segment.
func pathSegment(in plan.Operator, col int) plan.Operator {
	pr, ok := binderOf(in, col).(*plan.Project)
	if !ok || col != len(pr.Input.Columns()) || !keepsColumns(pr) {
		return nil
	}
	path, ok := pr.Exprs[col].(*plan.Call)
	if !ok || path.Name != functions.OpPath || len(path.Args) != 4 {
		return nil
	}
	seg, ok := path.Args[1].(*plan.ColRef)
	if !ok {
		return nil
	}
	switch s := binderOf(pr.Input, seg.Idx).(type) {
	case *plan.VarLengthExpand:
		if s.PathCol && seg.Idx == len(s.Cols)-1 {
			return s
		}
	case *plan.ShortestPath:
		if seg.Idx == len(s.Cols)-1 {
			return s
		}
	}
	return nil
}

// binderOf descends from op through the operators that keep their input's
// columns in place to the one that adds column col.
func binderOf(op plan.Operator, col int) plan.Operator {
	for {
		var in plan.Operator
		if pr, ok := op.(*plan.Project); ok && keepsColumns(pr) {
			in = pr.Input
		} else if plan.KeepsInputColumns(op) {
			in = op.Children()[0]
		}
		if in == nil || col >= len(in.Columns()) {
			return op
		}
		op = in
	}
}

// intConst reports whether e is the integer constant v (a negative one
// may be bound as the negation of a positive).
func intConst(e plan.Expr, v int64) bool {
	if n, ok := e.(*plan.Neg); ok {
		return intConst(n.X, -v)
	}
	c, ok := e.(*plan.Const)
	if !ok {
		return false
	}
	i, ok := c.Val.(int64)
	return ok && i == v
}

// elementTest rebinds a quantifier's predicate, which sees its element as
// column elem, over a batch of one column holding elements of type t. It
// fails when the predicate reads anything but the element, constants and
// parameters, or could raise an error: the operands of AND, OR, XOR and
// NOT, and the predicate itself, must be boolean by their form
// (comparisons, label tests, IS NULL, boolean constants, STARTS WITH,
// ENDS WITH, CONTAINS, IN a literal list), as a property
// or a parameter there may hold a value of another type, which is an
// error.
func elementTest(e plan.Expr, elem int, t vector.Type) (plan.Expr, bool) {
	switch x := e.(type) {
	case *plan.Const:
		if _, ok := x.Val.(bool); ok || x.Val == nil {
			return e, true
		}
	case *plan.HasLabels:
		if c, ok := x.X.(*plan.ColRef); ok && c.Idx == elem {
			of, _ := elementValue(x.X, elem, t)
			return &plan.HasLabels{X: of, Labels: x.Labels, Any: x.Any, Expr: x.Expr}, true
		}
	case *plan.IsNull:
		if in, ok := elementValue(x.X, elem, t); ok {
			return &plan.IsNull{X: in, Negate: x.Negate}, true
		}
	case *plan.Not:
		if in, ok := elementTest(x.X, elem, t); ok {
			return &plan.Not{X: in}, true
		}
	case *plan.Binary:
		operand := elementValue
		switch {
		case x.Op.IsLogical():
			operand = elementTest
		case !x.Op.IsComparison():
			return nil, false
		}
		l, ok := operand(x.L, elem, t)
		if !ok {
			return nil, false
		}
		r, ok := operand(x.R, elem, t)
		if !ok {
			return nil, false
		}
		return &plan.Binary{Op: x.Op, L: l, R: r}, true
	case *plan.Call:
		// The string operators give null on anything but strings, and
		// IN over a literal list compares: neither raises an error.
		if len(x.Args) != 2 {
			return nil, false
		}
		switch x.Name {
		case functions.OpStartsWith, functions.OpEndsWith, functions.OpContains:
		case functions.OpIn:
			if !literalList(x.Args[1]) {
				return nil, false
			}
		default:
			return nil, false
		}
		l, ok := elementValue(x.Args[0], elem, t)
		if !ok {
			return nil, false
		}
		r := x.Args[1]
		if x.Name != functions.OpIn {
			if r, ok = elementValue(r, elem, t); !ok {
				return nil, false
			}
		}
		y := *x // a copy: x belongs to the plan kept when this fails
		y.Args = []plan.Expr{l, r}
		return &y, true
	}
	return nil, false
}

// elementValue rebinds an operand of a comparison or of IS NULL: the
// element, one of its properties, a constant or a parameter.
func elementValue(e plan.Expr, elem int, t vector.Type) (plan.Expr, bool) {
	switch x := e.(type) {
	case *plan.ColRef:
		if x.Idx == elem {
			return &plan.ColRef{Idx: 0, Name: x.Name, T: t, Kind: x.Kind}, true
		}
	case *plan.Const, *plan.Param:
		return e, true
	case *plan.Property:
		if c, ok := x.Of.(*plan.ColRef); ok && c.Idx == elem {
			of, _ := elementValue(x.Of, elem, t)
			return &plan.Property{Of: of, Key: x.Key}, true
		}
	case *plan.Call:
		// An encrypted property read through its decrypt call
		// (plan/fle.go): what the principal reads of it.
		if x.Name == plan.FnDecrypt && len(x.Args) == 3 {
			if _, isProp := x.Args[0].(*plan.Property); isProp {
				if of, ok := elementValue(x.Args[0], elem, t); ok {
					y := *x
					y.Args = []plan.Expr{of, x.Args[1], x.Args[2]}
					return &y, true
				}
			}
		}
	}
	return nil, false
}
