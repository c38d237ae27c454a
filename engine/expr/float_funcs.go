package expr

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// The numeric functions with a FLOAT form, and abs, have a typed kernel
// over INTEGER and FLOAT vectors.
func init() {
	for _, f := range functions.All() {
		if f.Float != nil {
			registerCompiler(f.Name, compileFloatFunc)
		}
	}
	registerCompiler("abs", compileFloatFunc)
}

// floatFuncEval is the typed kernel of a FLOAT function (and abs) over
// INTEGER and FLOAT vectors; other vectors take the row path.
type floatFuncEval struct {
	output
	name string
	f    func(float64) float64
	x    Evaluator
	row  *callEval
	out  *vector.Vector
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *floatFuncEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

func compileFloatFunc(c *Env, e *plan.Call) (Evaluator, error) {
	if len(e.Args) != 1 {
		return nil, nil // round with a precision
	}
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	f, _ := functions.Lookup(e.Name)
	return &floatFuncEval{name: e.Name, f: f.Float, x: row.args[0], row: row}, nil
}

func (e *floatFuncEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	switch {
	case x.Type == vector.Null:
		return NullVector, nil
	case e.name == "abs" && x.Type == vector.Int64:
		e.out = e.vec(vector.Int64, n)
		out, in := e.out.I64[:n], x.I64[:n]
		bad := false
		for i, v := range in {
			if v < 0 {
				v = -v
			}
			bad = bad || v < 0
			out[i] = v
		}
		if bad {
			var failed error
			vector.ForRows(sel, n, func(r int) {
				if !x.IsNull(r) && x.I64[r] == math.MinInt64 {
					failed = errs.DataCode(errs.CodeOverflow, "integer overflow: abs(%d)", x.I64[r])
				}
			})
			if failed != nil {
				return nil, failed
			}
		}
	case e.name == "abs" && x.Type == vector.Float64:
		e.out = e.vec(vector.Float64, n)
		out, in := e.out.F64[:n], x.F64[:n]
		for i, v := range in {
			out[i] = math.Abs(v)
		}
	case e.name != "abs" && x.Type == vector.Float64:
		e.out = e.vec(vector.Float64, n)
		out, in, f := e.out.F64[:n], x.F64[:n], e.f
		for i, v := range in {
			out[i] = f(v)
		}
	case e.name != "abs" && x.Type == vector.Int64:
		e.out = e.vec(vector.Float64, n)
		out, in, f := e.out.F64[:n], x.I64[:n], e.f
		for i, v := range in {
			out[i] = f(float64(v))
		}
	default:
		e.row.vecs[0] = x
		return e.row.evalVecs(b, e.row.vecs)
	}
	copyNulls(e.out, x, sel, n)
	return e.out, nil
}
