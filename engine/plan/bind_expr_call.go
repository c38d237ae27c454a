package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// aggregateCall binds f when it calls an aggregate of the catalog and
// aggregates are collected here, or was computed already
// (bindOverGroups); ok false leaves f to the other kinds.
func (b *binder) aggregateCall(f *gql.FuncCall, mode aggMode, aggs *aggCollector) (Expr, bool, error) {
	if x, ok := b.aggSubst[f]; ok {
		return x, true, nil // an aggregate already computed (bindOverGroups)
	}
	if _, isAgg := functions.LookupAgg(strings.ToLower(f.Name)); !isAgg || aggs == nil || len(f.Namespace) > 0 {
		return nil, false, nil
	}
	x, err := b.call(f, mode, aggs)
	if r, ok := x.(*aggRef); ok && err == nil {
		if b.aggOf == nil {
			b.aggOf = map[*gql.FuncCall]int{}
		}
		b.aggOf[f] = r.i
	}
	return x, true, err
}

// call binds a function call: an aggregate (collected) or a scalar.
func (b *binder) call(e *gql.FuncCall, mode aggMode, aggs *aggCollector) (Expr, error) {
	name := strings.ToLower(e.Name)
	if len(e.Namespace) > 0 {
		name = strings.ToLower(strings.Join(e.Namespace, ".")) + "." + name
		if _, ok := functions.Lookup(name); !ok {
			return nil, notSupported(e.Pos, "function %s.%s is not supported yet", strings.Join(e.Namespace, "."), e.Name)
		}
	}
	if fn, isAgg := functions.LookupAgg(name); isAgg {
		return b.aggregateCallArgs(e, fn, mode, aggs)
	}
	if b.sec.Restricts() && graphReading[name] {
		return nil, refuseUnderSecurity(e.Pos, e.Name+"()")
	}
	sig, known := functions.Lookup(name)
	if !known || name[0] == '#' {
		if what, gqlName := gqlFunctions[name]; gqlName {
			return nil, notSupported(e.Pos, "not supported: GQL's %s()%s", strings.ToUpper(name), what)
		}
		return nil, semanticAt(e.Pos, "unknown function %s()", e.Name)
	}
	if e.Star || e.Distinct {
		return nil, syntaxAt(e.Pos, "%s() does not take * or DISTINCT", name)
	}
	if len(e.Args) < sig.Min || len(e.Args) > sig.Max {
		return nil, semanticAt(e.Pos, "%s() takes %s, got %d", name, arity(sig), len(e.Args))
	}
	args := make([]Expr, len(e.Args))
	for i, a := range e.Args {
		x, err := b.exprWith(a, mode, aggs)
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	if fn := pathLength(name, args); fn != name {
		return &Call{Name: fn, Args: args, T: vector.Int64}, nil
	}
	if i := CheckArgs(sig, args); i >= 0 {
		return nil, semanticAt(e.Args[i].Position(), "%s() cannot take an argument of type %s", e.Name, staticTypeName(args[i]))
	}
	t, kind := ResultType(sig, args)
	return &Call{Name: name, Args: args, T: t, Kind: kind}, nil
}

func arity(s *functions.Func) string {
	switch {
	case s.Min == s.Max && s.Min == 1:
		return "1 argument"
	case s.Min == s.Max:
		return fmt.Sprintf("%d arguments", s.Min)
	case s.Max > 100:
		return fmt.Sprintf("%d to %d arguments", s.Min, s.Max)
	}
	return fmt.Sprintf("%d to %d arguments", s.Min, s.Max)
}

// containsAggregate reports the position of an aggregate call inside e.
func containsAggregate(e gql.Expr) (gql.Pos, bool) {
	var found *gql.Pos
	gql.Walk(e, func(x gql.Expr) bool {
		if f, ok := x.(*gql.FuncCall); ok && len(f.Namespace) == 0 {
			if _, isAgg := functions.LookupAgg(strings.ToLower(f.Name)); isAgg && found == nil {
				p := f.Pos
				found = &p
			}
		}
		return found == nil
	})
	if found == nil {
		return gql.Pos{}, false
	}
	return *found, true
}

// aggregateCallArgs binds a call of aggregate fn, collected into aggs: its
// arguments (no aggregate inside), checked against the catalog's arity.
func (b *binder) aggregateCallArgs(e *gql.FuncCall, fn *functions.Agg, mode aggMode, aggs *aggCollector) (Expr, error) {
	name := strings.ToLower(e.Name)
	if mode != collectAggregates || aggs == nil {
		return nil, semanticAt(e.Pos, "aggregate %s() is not allowed here", name)
	}
	call := AggCall{Func: fn, Distinct: e.Distinct}
	switch {
	case e.Star && fn.Star:
	case e.Star:
		return nil, syntaxAt(e.Pos, "only count accepts *")
	case fn.Params > 1:
		if len(e.Args) != fn.Params {
			return nil, semanticAt(e.Pos, "%s() takes %d arguments", e.Name, fn.Params)
		}
	case len(e.Args) != 1:
		return nil, semanticAt(e.Pos, "%s() takes exactly one argument", name)
	}
	if pos, ok := findCall(e.Args, "rand"); ok {
		// A different value per row makes the aggregate meaningless.
		return nil, semanticAt(pos, "%s() cannot aggregate a non-constant expression like rand()", e.Name)
	}
	for i, a := range e.Args {
		arg, err := b.exprWith(a, noAggregates, nil)
		if err != nil {
			if inner, ok := containsAggregate(a); ok {
				return nil, semanticAt(inner, "aggregate functions cannot be nested")
			}
			return nil, err
		}
		if i == 0 {
			call.Arg = arg
		} else {
			call.P = arg
		}
	}
	return aggs.add(call), nil
}
