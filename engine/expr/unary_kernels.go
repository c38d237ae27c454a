package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Typed kernels for one-argument functions that run over whole columns:
// each handles the input vector types it knows without boxing a value, and
// leaves the others to the row path.

// unaryKernel computes a function over the selected rows of x into the
// Evaluator's output; handled is false for an input type it does not take.
type unaryKernel func(e *unaryEval, x *vector.Vector, sel []int32, n int) (out *vector.Vector, handled bool, err error)

type unaryEval struct {
	output
	c      *Env
	x      Evaluator
	row    *callEval
	kernel unaryKernel
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *unaryEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

var unaryKernels = map[string]unaryKernel{
	"id":        idKernel,
	"outdegree": degreeKernel(storage.Outgoing),
	"indegree":  degreeKernel(storage.Incoming),
	"tofloat":   toFloatKernel,
	"tointeger": toIntegerKernel,
	"tostring":  toStringKernel,
	"size":      runeCountKernel,
	"length":    runeCountKernel,
	"upper":     caseMapKernel(false, strings.ToUpper),
	"toupper":   caseMapKernel(false, strings.ToUpper),
	"lower":     caseMapKernel(true, strings.ToLower),
	"tolower":   caseMapKernel(true, strings.ToLower),
	"toboolean": toBooleanKernel,
	"trim":      stringKernel(trimKernels["trim"]),
	"ltrim":     stringKernel(trimKernels["ltrim"]),
	"rtrim":     stringKernel(trimKernels["rtrim"]),
}

func init() {
	for name := range unaryKernels {
		registerCompiler(name, compileUnary)
	}
}

func compileUnary(c *Env, e *plan.Call) (Evaluator, error) {
	if len(e.Args) != 1 {
		return nil, nil // outdegree(n, type): the row path
	}
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	return &unaryEval{c: c, x: row.args[0], row: row, kernel: unaryKernels[e.Name]}, nil
}

func (e *unaryEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	if x.Type == vector.Null {
		return NullVector, nil
	}
	out, handled, err := e.kernel(e, x, sel, n)
	if err != nil || handled {
		return out, err
	}
	e.row.vecs[0] = x
	return e.row.evalVecs(b, e.row.vecs)
}

// typedOut is the Evaluator's output vector of type t, nulls where x has.
func (e *unaryEval) typedOut(t vector.Type, x *vector.Vector, sel []int32, n int) *vector.Vector {
	out := e.vec(t, n)
	copyNulls(out, x, sel, n)
	return out
}

// same is the kernel of a conversion that leaves x as it is: a copy, as
// an evaluator never hands a child's output on (scratch.go).
func (e *unaryEval) same(x *vector.Vector, sel []int32, n int) *vector.Vector {
	out := e.typedOut(x.Type, x, sel, n)
	switch x.Type {
	case vector.Int64:
		copy(out.I64[:n], x.I64[:n])
	case vector.Float64:
		copy(out.F64[:n], x.F64[:n])
	case vector.String:
		copy(out.Str[:n], x.Str[:n])
	}
	return out
}

func idKernel(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	if x.Type != vector.Node && x.Type != vector.Rel {
		return nil, false, nil
	}
	out := e.typedOut(vector.Int64, x, sel, n)
	for i, id := range x.IDs[:n] {
		out.I64[i] = int64(id)
	}
	return out, true, nil
}

// degreeKernel sums the degrees over every relationship type, taking each
// type's adjacency once per batch.
func degreeKernel(d storage.Direction) unaryKernel {
	return func(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
		if x.Type != vector.Node {
			return nil, false, nil
		}
		out := e.typedOut(vector.Int64, x, sel, n)
		for i := range out.I64[:n] {
			out.I64[i] = 0
		}
		for _, t := range e.c.Catalog.Types() {
			adj := e.c.Tx.Adjacency(t, d)
			if adj == nil {
				continue
			}
			vector.ForRows(sel, n, func(i int) { out.I64[i] += int64(adj.Degree(x.IDs[i])) })
		}
		return out, true, nil
	}
}

func toFloatKernel(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	switch x.Type {
	case vector.Float64:
		return e.same(x, sel, n), true, nil
	case vector.Int64:
		out := e.typedOut(vector.Float64, x, sel, n)
		for i, v := range x.I64[:n] {
			out.F64[i] = float64(v)
		}
		return out, true, nil
	case vector.String:
		out := e.typedOut(vector.Float64, x, sel, n)
		forSel(sel, n, func(i int) {
			f, ok := functions.ParseFloat(x.Str[i])
			out.F64[i] = f
			if !ok {
				out.SetNull(i)
			}
		})
		return out, true, nil
	}
	return nil, false, nil
}

// toBooleanKernel: a string is true or false in any case, else null; an
// INTEGER is true unless 0.
func toBooleanKernel(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	switch x.Type {
	case vector.Bool:
		out := e.typedOut(vector.Bool, x, sel, n)
		copy(out.Bools[:n], x.Bools[:n])
		return out, true, nil
	case vector.Int64:
		out := e.typedOut(vector.Bool, x, sel, n)
		for i, v := range x.I64[:n] {
			out.Bools[i] = v != 0
		}
		return out, true, nil
	case vector.String:
		out := e.typedOut(vector.Bool, x, sel, n)
		forSel(sel, n, func(i int) {
			v, ok := functions.ParseBoolean(x.Str[i])
			out.Bools[i] = v
			if !ok {
				out.SetNull(i)
			}
		})
		return out, true, nil
	}
	return nil, false, nil
}

func toIntegerKernel(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	switch x.Type {
	case vector.Int64:
		return e.same(x, sel, n), true, nil
	case vector.Float64:
		out := e.typedOut(vector.Int64, x, sel, n)
		var failed error
		vector.ForRows(sel, n, func(i int) {
			v, ok := functions.FloatToInt(x.F64[i])
			if !ok && !x.IsNull(i) && failed == nil {
				failed = errs.DataCode(errs.CodeOverflow, "toInteger(): %v is out of the INTEGER range", x.F64[i])
			}
			out.I64[i] = v
		})
		return out, true, failed
	case vector.String:
		out := e.typedOut(vector.Int64, x, sel, n)
		forSel(sel, n, func(i int) {
			v, ok := functions.ParseInteger(x.Str[i])
			out.I64[i] = v
			if !ok {
				out.SetNull(i)
			}
		})
		return out, true, nil
	}
	return nil, false, nil
}

func toStringKernel(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	switch x.Type {
	case vector.String:
		return e.same(x, sel, n), true, nil
	case vector.Bool:
		out := e.typedOut(vector.String, x, sel, n)
		for i, v := range x.Bools[:n] {
			out.Str[i] = strconv.FormatBool(v)
		}
		return out, true, nil
	case vector.Int64:
		out := e.typedOut(vector.String, x, sel, n)
		vector.ForRows(sel, n, func(i int) { out.Str[i] = strconv.FormatInt(x.I64[i], 10) })
		return out, true, nil
	case vector.Float64:
		out := e.typedOut(vector.String, x, sel, n)
		vector.ForRows(sel, n, func(i int) {
			switch f := x.F64[i]; {
			case math.IsInf(f, 1):
				out.Str[i] = "Infinity"
			case math.IsInf(f, -1):
				out.Str[i] = "-Infinity"
			default:
				out.Str[i] = functions.FormatFloat(f)
			}
		})
		return out, true, nil
	}
	return nil, false, nil
}

func runeCountKernel(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
	if x.Type != vector.String {
		return nil, false, nil
	}
	out := e.typedOut(vector.Int64, x, sel, n)
	dst, src := out.I64, x.Str
	forSel(sel, n, func(i int) { dst[i] = int64(runeCount(src[i])) })
	return out, true, nil
}

func stringKernel(f func(string) string) unaryKernel {
	return func(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
		if x.Type != vector.String {
			return nil, false, nil
		}
		out := e.typedOut(vector.String, x, sel, n)
		dst, src := out.Str, x.Str
		forSel(sel, n, func(i int) { dst[i] = f(src[i]) })
		return out, true, nil
	}
}
