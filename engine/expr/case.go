package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// caseEval is CASE. Arguments (from the binder): simple?, subject (null
// constant when searched), WHEN/THEN pairs, ELSE (null constant when
// absent). Branches are evaluated lazily: each WHEN only on the rows no
// earlier WHEN took, each THEN only on the rows its WHEN took, so a
// branch cannot fail on a row it does not decide (CASE WHEN x = 0 THEN 0
// ELSE 1 / x END). Every WHEN and THEN is consumed before the next is
// evaluated, so they share one slot, and a CASE of 30,000 branches costs
// one vector; the subject of a simple CASE is held throughout, in a slot
// of its own.
type caseEval struct {
	output
	simple  bool
	subject Evaluator
	whens   []Evaluator
	thens   []Evaluator
	els     Evaluator
	t       vector.Type
	// dense is set when every WHEN is cheap (case_dense.go).
	dense     bool
	constVals []vector.Value
	fills     []*vector.Vector // constant branches as vectors (case_columns.go)
	idx       []uint8          // each row's branch
	table     caseTable        // a simple CASE's by value (case_table.go)
	starts    []int
	next      []int32

	sub vector.Batch
}

func init() { registerCompiler(functions.OpCase, compileCase) }

func compileCase(c *Env, e *plan.Call) (Evaluator, error) {
	k, ok := e.Args[0].(*plan.Const)
	if !ok || len(e.Args) < 3 {
		return nil, errs.Internal("malformed CASE call %s", e)
	}
	simple, _ := k.Val.(bool)
	subject, err := compileNode(c, e.Args[1])
	if err != nil {
		return nil, err
	}
	args, err := compileSeq(c, e.Args[2:])
	if err != nil {
		return nil, err
	}
	ev := &caseEval{simple: simple, subject: subject, els: args[len(args)-1]}
	for i := 0; i+1 < len(args)-1; i += 2 {
		ev.whens = append(ev.whens, args[i])
		ev.thens = append(ev.thens, args[i+1])
	}
	// The result is typed when every branch has the same typed type.
	t := vector.Null
	branches := []plan.Expr{e.Args[len(e.Args)-1]}
	for i := 3; i < len(e.Args)-1; i += 2 {
		branches = append(branches, e.Args[i])
	}
	for _, x := range branches {
		switch bt := x.Type(); {
		case bt == vector.Null:
		case t == vector.Null:
			t = bt
		case t != bt:
			t = vector.Any
		}
	}
	ev.t = outType(t)
	if t == vector.Null {
		ev.t = vector.Any
	}
	ev.dense = len(ev.whens) <= denseCaseWhens
	for i := 2; i < len(e.Args)-1; i += 2 {
		ev.dense = ev.dense && cheapWhen(e.Args[i])
	}
	return ev, nil
}

func (e *caseEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	s := e.slot()
	out := s.vec(e.t, b.Len)
	var subj *vector.Vector
	if e.simple {
		var err error
		if subj, err = e.subject.Eval(b); err != nil {
			return nil, err
		}
	}
	if e.dense {
		if ok, err := e.evalDense(b, out, subj); ok || err != nil {
			return out, err
		}
		out = s.vec(e.t, b.Len)
	}
	rest, hit, miss := selected(s.sel(0), b), s.sel(1), s.sel(2)
	for w := range e.whens {
		if len(rest) == 0 {
			break
		}
		cond, err := e.eval1(e.whens[w], b, rest)
		if err != nil {
			return nil, err
		}
		if e.simple {
			hit, miss = splitEqual(hit, miss, rest, subj, cond)
		} else if hit, miss, err = splitTrue(hit, miss, rest, cond); err != nil {
			return nil, err
		}
		if err := e.fill(out, e.thens[w], b, hit); err != nil {
			return nil, err
		}
		rest, miss = miss, rest
	}
	if err := e.fill(out, e.els, b, rest); err != nil {
		return nil, err
	}
	return out, nil
}

// splitTrue sorts the rows of rest into those where the searched CASE's
// condition cond is true (hit) and the others (miss: false or null), in
// order. A BOOLEAN condition takes a branch-free loop; generic values
// must be booleans or null.
func splitTrue(hit, miss, rest []int32, cond *vector.Vector) ([]int32, []int32, error) {
	switch cond.Type {
	case vector.Bool:
		hit, miss = hit[:len(rest)], miss[:len(rest)]
		h := 0
		bools, valid := cond.Bools, cond.Valid
		if valid == nil {
			for i, r := range rest {
				hit[h], miss[i-h] = r, r
				h += b2i(bools[r])
			}
		} else {
			for i, r := range rest {
				hit[h], miss[i-h] = r, r
				h += b2i(bools[r]) & int(valid[r>>6]>>(uint(r)&63))
			}
		}
		return hit[:h], miss[:len(rest)-h], nil
	case vector.Null:
		return hit[:0], append(miss[:0], rest...), nil
	}
	hit, miss = hit[:0], miss[:0]
	for _, r := range rest {
		x := cond.Get(int(r))
		bv, isBool := x.(bool)
		if x != nil && !isBool {
			return nil, nil, errs.Data("CASE WHEN expects a boolean, got %s", functions.TypeName(x))
		}
		if bv {
			hit = append(hit, r)
		} else {
			miss = append(miss, r)
		}
	}
	return hit, miss, nil
}

// splitEqual sorts the rows of rest into those where the simple CASE's
// subject equals the WHEN value (hit) and the others. Operands of one
// typed kind compare in a loop, INTEGER against FLOAT as FLOAT, others
// through generic values; a null on either side never matches.
func splitEqual(hit, miss, rest []int32, subj, cond *vector.Vector) ([]int32, []int32) {
	hit, miss = hit[:len(rest)], miss[:len(rest)]
	h, m := 0, 0
	put := func(r int32, take bool) {
		hit[h], miss[m] = r, r
		h, m = h+b2i(take), m+b2i(!take)
	}
	valid := func(r int32) bool { return subj.Valid.IsValid(int(r)) && cond.Valid.IsValid(int(r)) }
	switch st, ct := subj.Type, cond.Type; {
	case st == vector.Null || ct == vector.Null:
		return hit[:0], append(miss[:0], rest...)
	case st == vector.Int64 && ct == vector.Int64:
		a, c := subj.I64, cond.I64
		for _, r := range rest {
			put(r, a[r] == c[r] && valid(r))
		}
	case st == vector.String && ct == vector.String:
		a, c := subj.Str, cond.Str
		for _, r := range rest {
			put(r, a[r] == c[r] && valid(r))
		}
	case st == vector.Float64 && ct == vector.Float64:
		a, c := subj.F64, cond.F64
		for _, r := range rest {
			put(r, a[r] == c[r] && valid(r))
		}
	case st == vector.Int64 && ct == vector.Float64:
		for _, r := range rest {
			put(r, float64(subj.I64[r]) == cond.F64[r] && valid(r))
		}
	case st == vector.Float64 && ct == vector.Int64:
		for _, r := range rest {
			put(r, subj.F64[r] == float64(cond.I64[r]) && valid(r))
		}
	case st == vector.Bool && ct == vector.Bool:
		for _, r := range rest {
			put(r, subj.Bools[r] == cond.Bools[r] && valid(r))
		}
	default:
		for _, r := range rest {
			eq, _ := functions.EqualValues(subj.Get(int(r)), cond.Get(int(r)))
			put(r, eq)
		}
	}
	return hit[:h], miss[:m]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// eval1 evaluates x on the given rows of b.
func (e *caseEval) eval1(x Evaluator, b *vector.Batch, sel []int32) (*vector.Vector, error) {
	e.sub = vector.Batch{Cols: b.Cols, Len: b.Len, Sel: sel}
	return x.Eval(&e.sub)
}

// fill computes x on rows sel and stores it in out. A constant is
// written as it is, without filling a vector with it first; a branch of
// out's type is copied in a typed loop.
func (e *caseEval) fill(out *vector.Vector, x Evaluator, b *vector.Batch, sel []int32) error {
	if len(sel) == 0 {
		return nil
	}
	if k, isConst := x.(*constEval); isConst && (k.t == out.Type || k.t == vector.Null) {
		fillRows(out, k.val, sel)
		return nil
	}
	v, err := e.eval1(x, b, sel)
	if err != nil {
		return err
	}
	if v.Type == out.Type {
		copySelected(out, v, sel)
		return nil
	}
	for _, r := range sel {
		if err := copyValue(out, int(r), v, int(r)); err != nil {
			return err
		}
	}
	return nil
}

// fillRows sets rows sel of out to x, a value of out's type or null.
// The rows are valid already unless x is null: out is a fresh output
// and each row of it is written once.
func fillRows(out *vector.Vector, x vector.Value, sel []int32) {
	switch v := x.(type) {
	case nil:
		for _, r := range sel {
			out.SetNull(int(r))
		}
	case bool:
		for _, r := range sel {
			out.Bools[r] = v
		}
	case int64:
		for _, r := range sel {
			out.I64[r] = v
		}
	case float64:
		for _, r := range sel {
			out.F64[r] = v
		}
	case string:
		for _, r := range sel {
			out.Str[r] = v
		}
	default:
		for _, r := range sel {
			out.Set(int(r), x)
		}
	}
}
