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
// and is overwritten by the next call.
type Evaluator interface {
	Eval(b *vector.Batch) (*vector.Vector, error)
}

// compile turns a bound expression into an Evaluator. An expression that
// builds values (strings, lists, maps) gets an accountant around it
// (chargedEval).
func Compile(c *Env, e plan.Expr) (Evaluator, error) {
	ev, err := compileExpr(c, e)
	if err != nil || !buildsValues(e) {
		return ev, err
	}
	return &chargedEval{c: c, in: ev}, nil
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
		of, err := Compile(c, e.Of)
		if err != nil {
			return nil, err
		}
		return &propEval{c: c, of: of, key: e.Key}, nil
	case *plan.HasLabels:
		x, err := Compile(c, e.X)
		if err != nil {
			return nil, err
		}
		return &labelsEval{c: c, x: x, names: e.Labels, any: e.Any, out: vector.New(vector.Bool, vector.Capacity)}, nil
	case *plan.IsNull:
		x, err := Compile(c, e.X)
		if err != nil {
			return nil, err
		}
		return &isNullEval{x: x, negate: e.Negate, out: vector.New(vector.Bool, vector.Capacity)}, nil
	case *plan.Not:
		x, err := Compile(c, e.X)
		if err != nil {
			return nil, err
		}
		return &notEval{x: x, out: vector.New(vector.Bool, vector.Capacity)}, nil
	case *plan.Neg:
		x, err := Compile(c, e.X)
		if err != nil {
			return nil, err
		}
		return &negEval{x: x}, nil
	case *plan.Binary:
		l, err := Compile(c, e.L)
		if err != nil {
			return nil, err
		}
		r, err := Compile(c, e.R)
		if err != nil {
			return nil, err
		}
		switch {
		case e.Op.IsLogical():
			return &logicEval{op: e.Op, l: l, r: r, out: vector.New(vector.Bool, vector.Capacity)}, nil
		case e.Op.IsComparison():
			return &compareEval{op: e.Op, l: l, r: r, out: vector.New(vector.Bool, vector.Capacity)}, nil
		}
		return &arithEval{c: c, op: arithOps[e.Op], l: l, r: r}, nil
	case *plan.Call:
		return compileCall(c, e)
	case *plan.List:
		return compileBuilder(c, e.Elems, func(vals []vector.Value) (vector.Value, error) {
			return append([]vector.Value(nil), vals...), nil
		})
	case *plan.Map:
		keys := e.Keys
		return compileBuilder(c, e.Vals, func(vals []vector.Value) (vector.Value, error) {
			m := make(map[string]vector.Value, len(keys))
			for i, k := range keys {
				m[k] = vals[i]
			}
			return m, nil
		})
	}
	return compileLocal(c, e)
}

var arithOps = map[plan.BinOp]byte{
	plan.OpAdd: '+', plan.OpSub: '-', plan.OpMul: '*', plan.OpDiv: '/', plan.OpMod: '%', plan.OpPow: '^',
}

// colEval returns an input column as is: no copy.
type colEval int

func (e colEval) Eval(b *vector.Batch) (*vector.Vector, error) { return b.Cols[e], nil }

// constEval returns a vector filled with one value. It grows to the
// longest batch it has seen, rather than starting at a full batch: a
// statement can hold a hundred thousand constants (a long CASE, a wide
// pattern map), and most meet one-row batches.
type constEval struct {
	val vector.Value
	v   *vector.Vector
}

func newConstEval(val vector.Value) *constEval {
	e := &constEval{val: val, v: &vector.Vector{Type: vector.TypeOf(val)}}
	e.grow(1)
	return e
}

func (e *constEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	if b.Len > e.v.Len() {
		e.grow(b.Len)
	}
	return e.v, nil
}

// grow refills the vector with at least n rows (doubling, so a constant
// settles at the batch size after a few batches).
func (e *constEval) grow(n int) {
	n = max(n, 2*e.v.Len())
	v := vector.New(e.v.Type, n)
	if v.Type != vector.Null {
		for i := 0; i < n; i++ {
			v.Set(i, e.val)
		}
	}
	e.v = v
}

// isNullEval implements IS NULL and IS NOT NULL.
type isNullEval struct {
	x      Evaluator
	negate bool
	out    *vector.Vector
}

func (e *isNullEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	out := e.out.Bools
	vector.ForRows(sel, n, func(r int) { out[r] = x.IsNull(r) != e.negate })
	return e.out, nil
}

// negEval is unary minus; INTEGER negation fails on the one value that
// has no positive twin.
type negEval struct {
	x   Evaluator
	out *vector.Vector
}

func (e *negEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	switch x.Type {
	case vector.Null:
		return x, nil
	case vector.Int64:
		e.out = vector.Reuse(e.out, vector.Int64)
		out := e.out
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
		e.out = vector.Reuse(e.out, vector.Float64)
		out := e.out
		vector.ForRows(sel, n, func(r int) { out.F64[r] = -x.F64[r] })
		copyNulls(out, x, sel, n)
		return out, nil
	}
	e.out = vector.Reuse(e.out, vector.Any)
	out := e.out
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
	vector.ForRows(sel, n, func(r int) {
		if x.IsNull(r) {
			out.SetNull(r)
		}
	})
}
