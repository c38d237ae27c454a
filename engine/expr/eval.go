package expr

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// Evaluator computes one expression over a batch. The result is indexed by
// physical row like the batch's columns; only the selected rows are
// computed. The returned vector belongs to the Evaluator (or to the batch)
// and is overwritten by the next call. Inside a compiled tree an output
// lives only until the parent has computed from it: the next evaluation
// of a node that shares the slot overwrites it (scratch.go).
type Evaluator interface {
	Eval(b *vector.Batch) (*vector.Vector, error)
}

// Compile turns a bound expression into an Evaluator: the root of a tree
// of evaluators that share their output vectors (scratch.go), charged to
// c's accountant. Each call makes a tree of its own, so the outputs of
// separately compiled expressions never share storage: an operator may
// hold one while it evaluates another.
func Compile(c *Env, e plan.Expr) (Evaluator, error) {
	outer := c.tree
	t := newScratch(c, e)
	c.tree = t
	ev, err := compileNode(c, e)
	c.tree = outer
	if err != nil {
		return nil, err
	}
	return &rootEval{in: ev, t: t}, nil
}

func compileExpr(c *Env, e plan.Expr) (Evaluator, error) {
	switch e := e.(type) {
	case *plan.ColRef:
		return colEval(e.Idx), nil
	case *plan.Const:
		return newConstEval(e.Val), nil
	case *plan.Param:
		v, ok := c.Params[e.Name]
		if !ok {
			return nil, errs.New(errs.CodeInvalidParam, errs.CatData, "missing parameter $%s", e.Name)
		}
		return newConstEval(v), nil
	case *plan.Property:
		of, err := compileNode(c, e.Of)
		if err != nil {
			return nil, err
		}
		return &propEval{c: c, of: of, key: e.Key}, nil
	case *plan.HasLabels:
		x, err := compileNode(c, e.X)
		if err != nil {
			return nil, err
		}
		if e.Expr != nil {
			return newLabelExprEval(c, x, e.Expr), nil
		}
		return &labelsEval{c: c, x: x, names: e.Labels, any: e.Any}, nil
	case *plan.IsNull:
		x, err := compileNode(c, e.X)
		if err != nil {
			return nil, err
		}
		return &isNullEval{x: x, negate: e.Negate}, nil
	case *plan.Not:
		x, err := compileNode(c, e.X)
		if err != nil {
			return nil, err
		}
		return &notEval{x: x}, nil
	case *plan.Neg:
		x, err := compileNode(c, e.X)
		if err != nil {
			return nil, err
		}
		return &negEval{x: x}, nil
	case *plan.Binary:
		if e.Op.IsLogical() {
			return compileLogic(c, e)
		}
		l, err := compileNode(c, e.L)
		if err != nil {
			return nil, err
		}
		r, err := compileNode(c, e.R)
		if err != nil {
			return nil, err
		}
		if e.Op.IsComparison() {
			return &compareEval{op: e.Op, l: l, r: r}, nil
		}
		return &arithEval{c: c, op: arithOps[e.Op], l: l, r: r, t: e.Type()}, nil
	case *plan.Call:
		return compileCall(c, e)
	case *plan.List:
		return compileBuilder(c, false, nil, e.Elems)
	case *plan.Map:
		return compileBuilder(c, true, e.Keys, e.Vals)
	}
	return compileLocal(c, e)
}

var arithOps = map[plan.BinOp]byte{
	plan.OpAdd: '+', plan.OpSub: '-', plan.OpMul: '*', plan.OpDiv: '/', plan.OpMod: '%', plan.OpPow: '^',
}

// colEval returns an input column as is: no copy.
type colEval int

func (e colEval) Eval(b *vector.Batch) (*vector.Vector, error) { return b.Cols[e], nil }

// constEval returns a vector filled with one value, in its slot: it
// fills the vector once and refills it only after another evaluator of
// the tree used it, or for a longer batch. Filling takes the batch's
// length, not a full batch: a statement can hold a hundred thousand
// constants (a long CASE, a wide pattern map), and most meet one-row
// batches.
type constEval struct {
	output
	val vector.Value
	t   vector.Type
}

func newConstEval(val vector.Value) *constEval {
	return &constEval{val: val, t: vector.TypeOf(val)}
}

func (e *constEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	n := b.Len
	s := e.slot()
	if s.kept[e.t] == e && s.filled[e.t] >= n {
		return s.vecs[e.t], nil
	}
	v := s.vec(e.t, n)
	fillConst(v, e.val, n)
	s.kept[e.t], s.filled[e.t] = e, n
	return v, nil
}

// fillConst sets rows 0..n-1 of v to x (v's type is x's; a null x leaves
// the all-null vector as it is).
func fillConst(v *vector.Vector, x vector.Value, n int) {
	switch v.Type {
	case vector.Null:
	case vector.Bool:
		fill(v.Bools[:n], x.(bool))
	case vector.Int64:
		fill(v.I64[:n], x.(int64))
	case vector.Float64:
		fill(v.F64[:n], x.(float64))
	case vector.String:
		fill(v.Str[:n], x.(string))
	default:
		for i := 0; i < n; i++ {
			v.Set(i, x)
		}
	}
}

func fill[T any](dst []T, x T) {
	for i := range dst {
		dst[i] = x
	}
}

// isNullEval implements IS NULL and IS NOT NULL.
type isNullEval struct {
	output
	x      Evaluator
	negate bool
}

func (e *isNullEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	out := e.vec(vector.Bool, n)
	bools := out.Bools
	vector.ForRows(sel, n, func(r int) { bools[r] = x.IsNull(r) != e.negate })
	return out, nil
}

// negEval is unary minus; INTEGER negation fails on the one value that
// has no positive twin.
type negEval struct {
	output
	x Evaluator
}

func (e *negEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	switch x.Type {
	case vector.Null:
		return NullVector, nil
	case vector.Int64:
		out := e.vec(vector.Int64, n)
		var failed bool
		vector.ForRows(sel, n, func(r int) {
			v := x.I64[r]
			failed = failed || (v == math.MinInt64 && x.Valid.IsValid(r))
			out.I64[r] = -v
		})
		if failed {
			return nil, errs.DataCode(errs.CodeOverflow, "integer overflow: -(%d)", int64(math.MinInt64))
		}
		copyNulls(out, x, sel, n)
		return out, nil
	case vector.Float64:
		out := e.vec(vector.Float64, n)
		vector.ForRows(sel, n, func(r int) { out.F64[r] = -x.F64[r] })
		copyNulls(out, x, sel, n)
		return out, nil
	}
	out := e.vec(vector.Any, n)
	var failed error
	vector.ForRows(sel, n, func(r int) {
		switch v := x.Get(r).(type) {
		case nil:
			out.SetNull(r)
		case int64:
			if v == math.MinInt64 {
				failed = errs.DataCode(errs.CodeOverflow, "integer overflow: -(%d)", v)
			}
			out.Set(r, -v)
		case float64:
			out.Set(r, -v)
		default:
			if failed == nil {
				failed = errs.Data("cannot negate %s", functions.TypeName(v))
			}
		}
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// copyNulls gives out the nulls of x on the selected rows.
func copyNulls(out, x *vector.Vector, sel []int32, n int) {
	if x.Valid == nil {
		return
	}
	if out.Type != vector.Any {
		andNullWords(out, x, n)
		return
	}
	vector.ForRows(sel, n, func(r int) {
		if x.IsNull(r) {
			out.SetNull(r)
		}
	})
}
