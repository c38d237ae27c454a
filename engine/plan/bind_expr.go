package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// aggMode says how an expression may use aggregate functions.
type aggMode uint8

const (
	// noAggregates: WHERE, property maps, SKIP/LIMIT, aggregate arguments.
	noAggregates aggMode = iota
	// collectAggregates: a projection item; aggregates are collected into
	// the Aggregate operator and replaced by references to its output.
	collectAggregates
)

// expr binds an expression against the current scope.
func (b *binder) expr(e gql.Expr, mode aggMode) (Expr, error) {
	return b.exprWith(e, mode, nil)
}

// exprWith binds an expression; aggs, when not nil, collects aggregate calls
// (mode collectAggregates) and the result refers to them through aggRef.
func (b *binder) exprWith(e gql.Expr, mode aggMode, aggs *aggCollector) (Expr, error) {
	if f, ok := e.(*gql.FuncCall); ok {
		if x, ok := b.aggSubst[f]; ok {
			return x, nil // an aggregate already computed (bindOverGroups)
		}
		if _, isAgg := functions.LookupAgg(strings.ToLower(f.Name)); isAgg && aggs != nil && len(f.Namespace) == 0 {
			x, err := b.call(f, mode, aggs)
			if r, ok := x.(*aggRef); ok && err == nil {
				if b.aggOf == nil {
					b.aggOf = map[*gql.FuncCall]int{}
				}
				b.aggOf[f] = r.i
			}
			return x, err
		}
	}
	if x, ok, err := b.localExpr(e, mode, aggs); ok {
		return x, err
	}
	switch e := e.(type) {
	case *gql.Literal:
		return &Const{Val: e.Value, T: vector.TypeOf(e.Value)}, nil
	case *gql.Param:
		// A missing parameter is reported when the query runs; here its
		// type is simply unknown.
		return b.param(e.Name), nil
	case *gql.Variable:
		if x, ok := b.aliases[e.Name]; ok {
			return x, nil
		}
		col, ok := b.sc.lookup(e.Name)
		if !ok {
			return nil, semanticAt(e.Pos, "variable %s is not defined", e.Name)
		}
		return b.sc.ref(col), nil
	case *gql.PropertyAccess:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		if t, bad := noProperties(x); bad {
			return nil, syntaxAt(e.Pos, "cannot read property %s of a %s", e.Key, t)
		}
		return &Property{Of: x, Key: e.Key}, nil
	case *gql.LabelTest:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		return &HasLabels{X: x, Labels: e.Labels, Any: e.Any}, nil
	case *gql.IsNull:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		return &IsNull{X: x, Negate: e.Not}, nil
	case *gql.Unary:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case gql.OpNot:
			if t, bad := notBoolean(x); bad {
				return nil, semanticAt(e.X.Position(), "NOT expects a BOOLEAN, got %s", t)
			}
			return &Not{X: x}, nil
		case gql.OpNeg:
			if c, ok := x.(*Const); ok {
				if i, isInt := c.Val.(int64); isInt {
					return &Const{Val: -i, T: vector.Int64}, nil
				}
			}
			return &Neg{X: x}, nil
		}
		return x, nil // unary plus
	case *gql.Binary:
		l, err := b.exprWith(e.L, mode, aggs)
		if err != nil {
			return nil, err
		}
		r, err := b.exprWith(e.R, mode, aggs)
		if err != nil {
			return nil, err
		}
		if fn, ok := opCalls[e.Op]; ok {
			t := vector.Bool
			return &Call{Name: fn, Args: []Expr{l, r}, T: t}, nil
		}
		op, ok := binOps[e.Op]
		if !ok {
			return nil, notSupported(e.Pos, "operator %s is not supported yet", e.Op)
		}
		if !op.IsLogical() && !op.IsComparison() && !arithmeticTypesMatch(op, l.Type(), r.Type()) {
			return nil, semanticAt(e.Pos, "%s cannot be applied to %s and %s", op, l.Type(), r.Type())
		}
		if op.IsLogical() {
			for i, x := range []Expr{l, r} {
				if t, bad := notBoolean(x); bad {
					at := e.L.Position()
					if i == 1 {
						at = e.R.Position()
					}
					return nil, semanticAt(at, "%s expects BOOLEAN operands, got %s", op, t)
				}
			}
		}
		return &Binary{Op: op, L: l, R: r}, nil
	case *gql.Comparison:
		// a < b <= c means a < b AND b <= c.
		var out Expr
		prev, err := b.exprWith(e.Operands[0], mode, aggs)
		if err != nil {
			return nil, err
		}
		for i, opText := range e.Ops {
			next, err := b.exprWith(e.Operands[i+1], mode, aggs)
			if err != nil {
				return nil, err
			}
			cmp := &Binary{Op: binOps[opText], L: prev, R: next}
			if out == nil {
				out = cmp
			} else {
				out = &Binary{Op: OpAnd, L: out, R: cmp}
			}
			prev = next
		}
		return out, nil
	case *gql.FuncCall:
		return b.call(e, mode, aggs)
	case *gql.Index:
		x, err := b.exprWith(e.X, mode, aggs)
		if err != nil {
			return nil, err
		}
		i, err := b.exprWith(e.I, mode, aggs)
		if err != nil {
			return nil, err
		}
		return &Call{Name: functions.OpIndex, Args: []Expr{x, i}, T: vector.Any}, nil
	case *gql.Slice:
		// A missing bound is the list's start or end (an end past the
		// list is clamped to it); a bound that is null makes the slice
		// null.
		args := []Expr{}
		for i, part := range []gql.Expr{e.X, e.From, e.To} {
			if part == nil {
				end := int64(0)
				if i == 2 {
					end = math.MaxInt64
				}
				args = append(args, &Const{Val: end, T: vector.Int64})
				continue
			}
			x, err := b.exprWith(part, mode, aggs)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		return &Call{Name: functions.OpSlice, Args: args, T: vector.Any, Kind: "LIST"}, nil
	case *gql.Case:
		// Arguments: subject (or null), then when/then pairs, then else.
		var args []Expr
		parts := append([]gql.Expr{e.Subject}, interleave(e.Whens, e.Thens)...)
		parts = append(parts, e.Else)
		for _, part := range parts {
			if part == nil {
				args = append(args, &Const{Val: nil, T: vector.Null})
				continue
			}
			x, err := b.exprWith(part, mode, aggs)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		simple := &Const{Val: e.Subject != nil, T: vector.Bool}
		return &Call{Name: functions.OpCase, Args: append([]Expr{simple}, args...), T: vector.Any}, nil
	case *gql.ListLit:
		l := &List{}
		for _, x := range e.Elems {
			el, err := b.exprWith(x, mode, aggs)
			if err != nil {
				return nil, err
			}
			l.Elems = append(l.Elems, el)
		}
		return b.foldConst(l), nil
	case *gql.MapLit:
		m := &Map{Keys: e.Keys}
		for _, x := range e.Values {
			v, err := b.exprWith(x, mode, aggs)
			if err != nil {
				return nil, err
			}
			m.Vals = append(m.Vals, v)
		}
		return b.foldConst(m), nil
	}
	return nil, notSupported(e.Position(), "this kind of expression is not supported yet")
}

// param binds parameter name, typed by its value when it has one.
func (b *binder) param(name string) *Param {
	v, ok := b.params[name]
	if !ok || b.untyped {
		return &Param{Name: name, T: vector.Any}
	}
	return &Param{Name: name, T: vector.TypeOf(v), Kind: valueKind(v)}
}

// notBoolean reports an operand of a boolean operator whose type is known
// when the query is compiled and is not BOOLEAN (openCypher's
// InvalidArgumentType): a literal, a list or map, a typed column.
func notBoolean(e Expr) (string, bool) {
	switch e.Type() {
	case vector.Int64, vector.Float64, vector.String, vector.Node, vector.Rel:
		return e.Type().String(), true
	}
	switch e.(type) {
	case *List, *Map, *ListComp, *MapProjection:
		return KindOf(e), true
	case *Const:
		if k := KindOf(e); k != "" {
			return k, true
		}
	}
	return "", false
}

// noProperties reports an expression whose type is known when the query
// is compiled and has no properties to read (openCypher's
// InvalidArgumentType): a number, string, boolean, list or path. Nodes,
// relationships, maps and temporal values have properties; anything of
// unknown type, and a parameter, is checked when the query runs.
func noProperties(e Expr) (string, bool) {
	if _, ok := e.(*Param); ok {
		return "", false // a parameter's value is checked when the query runs
	}
	switch e.Type() {
	case vector.Bool, vector.Int64, vector.Float64, vector.String:
		return e.Type().String(), true
	}
	switch k := KindOf(e); k {
	case "LIST", KindPath:
		return k, true
	}
	return "", false
}

// arithmeticTypesMatch reports whether an arithmetic operator may apply to
// operands of static types l and r. Only combinations of known scalar
// types that can never work are refused (openCypher's compile-time
// InvalidArgumentType); unknown types are checked when the query runs.
func arithmeticTypesMatch(op BinOp, l, r vector.Type) bool {
	scalar := func(t vector.Type) bool {
		switch t {
		case vector.Int64, vector.Float64, vector.String, vector.Bool, vector.Node, vector.Rel:
			return true
		}
		return false
	}
	if !scalar(l) || !scalar(r) {
		return true
	}
	num := func(t vector.Type) bool { return t == vector.Int64 || t == vector.Float64 }
	if op == OpAdd {
		// Numbers add; strings concatenate with strings and numbers.
		return (num(l) || l == vector.String) && (num(r) || r == vector.String)
	}
	return num(l) && num(r)
}

// opCalls are operators evaluated by operator functions.
var opCalls = map[gql.Op]string{
	gql.OpStartsWith: functions.OpStartsWith, gql.OpEndsWith: functions.OpEndsWith, gql.OpContains: functions.OpContains,
	gql.OpRegex: functions.OpRegex, gql.OpIn: functions.OpIn,
}

// binOps maps the parser's operator tokens to plan operators.
var binOps = map[gql.Op]BinOp{
	gql.OpAdd: OpAdd, gql.OpSub: OpSub, gql.OpMul: OpMul, gql.OpDiv: OpDiv, gql.OpMod: OpMod, gql.OpPow: OpPow,
	gql.OpEq: OpEq, gql.OpNe: OpNe, gql.OpLt: OpLt, gql.OpLe: OpLe, gql.OpGt: OpGt, gql.OpGe: OpGe,
	gql.OpAnd: OpAnd, gql.OpOr: OpOr, gql.OpXor: OpXor,
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
	sig, known := functions.Lookup(name)
	if !known || name[0] == '#' {
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

// foldConst turns a list or map literal whose parts are all constants into
// one constant value, built once instead of per row (RuleConstantFold).
func (b *binder) foldConst(e Expr) Expr {
	if !b.opts.On(RuleConstantFold) {
		return e
	}
	switch x := e.(type) {
	case *List:
		vals := make([]vector.Value, len(x.Elems))
		for i, el := range x.Elems {
			c, ok := el.(*Const)
			if !ok {
				return e
			}
			vals[i] = c.Val
		}
		b.fire(RuleConstantFold)
		return &Const{Val: vals, T: vector.Any}
	case *Map:
		vals := make(map[string]vector.Value, len(x.Keys))
		for i, k := range x.Keys {
			c, ok := x.Vals[i].(*Const)
			if !ok {
				return e
			}
			vals[k] = c.Val
		}
		b.fire(RuleConstantFold)
		return &Const{Val: vals, T: vector.Any}
	}
	return e
}

func interleave(a, b []gql.Expr) []gql.Expr {
	out := make([]gql.Expr, 0, 2*len(a))
	for i := range a {
		out = append(out, a[i], b[i])
	}
	return out
}
