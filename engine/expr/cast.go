package expr

import (
	"strconv"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// CAST between the scalar types over typed vectors: INTEGER, FLOAT,
// STRING and BOOLEAN columns convert to INTEGER, FLOAT, STRING and
// BOOLEAN in typed loops (a STRING parsed a row at a time, without a box), with the row path's errors (the first failing
// row's); every other input or target takes the row path
// (functions.Cast).

func init() { registerCompiler(functions.OpCast, compileCast) }

type castEval struct {
	output
	x   Evaluator
	row *callEval
	t   *functions.ValueType
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *castEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

func compileCast(c *Env, e *plan.Call) (Evaluator, error) {
	k, ok := e.Args[1].(*plan.Const)
	if !ok {
		return nil, bug("%s without a constant type", e.Name)
	}
	t, err := functions.CompiledType(k.Val)
	if err != nil {
		return nil, err
	}
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	return &castEval{x: row.args[0], row: row, t: t}, nil
}

func (e *castEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	if out, handled, err := e.typed(x, sel, n); handled {
		return out, err
	}
	e.row.vecs[0] = x
	if e.row.vecs[1], err = e.row.args[1].Eval(b); err != nil {
		return nil, err
	}
	return e.row.evalVecs(b, e.row.vecs)
}

// typed converts a typed vector without null rows to a NOT NULL type's
// failure (the row path reports those), or reports handled false.
func (e *castEval) typed(x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	if e.t.NotNull && x.Valid != nil || e.t.Union {
		return nil, false, nil
	}
	switch e.t.Target {
	case functions.TagInt:
		return e.toInt(x, sel, n)
	case functions.TagFloat:
		return e.toFloat(x, sel, n)
	case functions.TagString:
		return e.toString(x, sel, n)
	case functions.TagBool:
		return e.toBool(x, sel, n)
	}
	return nil, false, nil
}

func (e *castEval) toBool(x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	switch x.Type {
	case vector.Bool:
		out := e.typedOut(vector.Bool, x, sel, n)
		copy(out.Bools[:n], x.Bools[:n])
		return out, true, nil
	case vector.String:
		out := e.typedOut(vector.Bool, x, sel, n)
		dst, src, t := out.Bools, x.Str, e.t
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastStringToBool(src[r], t)
			return err
		})
		return out, true, err
	}
	return nil, false, nil
}

func (e *castEval) typedOut(t vector.Type, x *vector.Vector, sel []int32, n int) *vector.Vector {
	out := e.vec(t, n)
	copyNulls(out, x, sel, n)
	return out
}

// forValid calls fn for the selected rows of x that are not null, until
// fn fails.
func forValid(x *vector.Vector, sel []int32, n int, fn func(r int) error) error {
	var failed error
	vector.ForRows(sel, n, func(r int) {
		if failed == nil && x.Valid.IsValid(r) {
			failed = fn(r)
		}
	})
	return failed
}

func (e *castEval) toInt(x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	bits, text := e.t.IntBits, e.t.Text
	switch x.Type {
	case vector.Int64:
		out := e.typedOut(vector.Int64, x, sel, n)
		dst, src := out.I64, x.I64
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastInt(src[r], bits, text)
			return err
		})
		return out, true, err
	case vector.Float64:
		out := e.typedOut(vector.Int64, x, sel, n)
		dst, src := out.I64, x.F64
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastFloatToInt(src[r], bits, text)
			return err
		})
		return out, true, err
	case vector.String:
		out := e.typedOut(vector.Int64, x, sel, n)
		dst, src, t := out.I64, x.Str, e.t
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastStringToInt(src[r], t)
			return err
		})
		return out, true, err
	}
	return nil, false, nil
}

func (e *castEval) toFloat(x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	single, text := e.t.Float32, e.t.Text
	switch x.Type {
	case vector.Int64:
		out := e.typedOut(vector.Float64, x, sel, n)
		dst, src := out.F64, x.I64
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastFloat(float64(src[r]), single, text)
			return err
		})
		return out, true, err
	case vector.Float64:
		out := e.typedOut(vector.Float64, x, sel, n)
		dst, src := out.F64, x.F64
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastFloat(src[r], single, text)
			return err
		})
		return out, true, err
	case vector.String:
		out := e.typedOut(vector.Float64, x, sel, n)
		dst, src, t := out.F64, x.Str, e.t
		err := forValid(x, sel, n, func(r int) (err error) {
			dst[r], err = functions.CastStringToFloat(src[r], t)
			return err
		})
		return out, true, err
	}
	return nil, false, nil
}

func (e *castEval) toString(x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	switch x.Type {
	case vector.String:
		out := e.typedOut(vector.String, x, sel, n)
		copy(out.Str[:n], x.Str[:n])
		return out, true, nil
	case vector.Int64:
		out := e.typedOut(vector.String, x, sel, n)
		dst, src := out.Str, x.I64
		vector.ForRows(sel, n, func(r int) { dst[r] = strconv.FormatInt(src[r], 10) })
		return out, true, nil
	case vector.Bool:
		out := e.typedOut(vector.String, x, sel, n)
		dst, src := out.Str, x.Bools
		vector.ForRows(sel, n, func(r int) { dst[r] = functions.CastBoolText(src[r]) })
		return out, true, nil
	}
	return nil, false, nil
}
