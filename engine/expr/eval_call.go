package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// callCompiler builds a dedicated evaluator for a call: functions that
// evaluate their arguments lazily or have typed kernels. It returns nil to
// fall back to the row-by-row path.
type callCompiler func(c *Env, e *plan.Call) (Evaluator, error)

// callCompilers are the calls with their own evaluators, by name.
var callCompilers = map[string]callCompiler{}

// registerCompiler gives a function of the catalog an evaluator of its
// own; a name the catalog does not have, or registered twice, is a
// programming error caught by any test.
func registerCompiler(name string, cc callCompiler) {
	if _, known := functions.Lookup(name); !known {
		panic("BUG: expr: evaluator for " + name + ", which is not a function of the catalog")
	}
	if _, dup := callCompilers[name]; dup {
		panic("BUG: expr: call compiler " + name + " registered twice")
	}
	callCompilers[name] = cc
}

// callEval evaluates a scalar function row by row over generic values.
// When the call's static type is a typed vector type the output is typed
// too, so that downstream kernels and the reported column type see it.
type callEval struct {
	c    *Env
	name string
	fn   functions.Kernel
	args []Evaluator
	vecs []*vector.Vector
	vals []vector.Value
	t    vector.Type
	out  *vector.Vector
}

func compileCall(c *Env, e *plan.Call) (Evaluator, error) {
	if cc, ok := callCompilers[e.Name]; ok {
		ev, err := cc(c, e)
		if err != nil || ev != nil {
			return ev, err
		}
	}
	return compileRowCall(c, e)
}

// compileRowCall compiles the generic row-by-row path of a call.
func compileRowCall(c *Env, e *plan.Call) (*callEval, error) {
	f, ok := functions.Lookup(e.Name)
	if !ok || f.Kernel == nil {
		return nil, errs.NotSupported("function %s() is not supported yet", e.Name)
	}
	fn := f.Kernel
	args, err := CompileArgs(c, e.Args)
	if err != nil {
		return nil, err
	}
	return newCallEval(c, e.Name, fn, args, e.T), nil
}

func newCallEval(c *Env, name string, fn functions.Kernel, args []Evaluator, t vector.Type) *callEval {
	return &callEval{c: c, name: name, fn: fn, args: args, t: outType(t),
		vals: make([]vector.Value, len(args)), vecs: make([]*vector.Vector, len(args))}
}

func CompileArgs(c *Env, exprs []plan.Expr) ([]Evaluator, error) {
	out := make([]Evaluator, len(exprs))
	for i, a := range exprs {
		ev, err := Compile(c, a)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// outType is the vector type of a call's output: its static type when that
// has a typed slice, else Any.
func outType(t vector.Type) vector.Type {
	switch t {
	case vector.Bool, vector.Int64, vector.Float64, vector.String, vector.Node, vector.Rel:
		return t
	}
	return vector.Any
}

// compileBuilder evaluates parts per row and combines them with build: the
// list and map literals whose elements are not all constant.
func compileBuilder(c *Env, parts []plan.Expr, build func([]vector.Value) (vector.Value, error)) (Evaluator, error) {
	args, err := CompileArgs(c, parts)
	if err != nil {
		return nil, err
	}
	fn := func(_ functions.Env, vals []vector.Value) (vector.Value, error) { return build(vals) }
	return newCallEval(c, "", fn, args, vector.Any), nil
}

func (e *callEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	for i, a := range e.args {
		v, err := a.Eval(b)
		if err != nil {
			return nil, err
		}
		e.vecs[i] = v
	}
	return e.evalVecs(b, e.vecs)
}

// evalVecs computes the selected rows from evaluated arguments (typed
// kernels fall back to it for the batches they do not handle).
func (e *callEval) evalVecs(b *vector.Batch, args []*vector.Vector) (*vector.Vector, error) {
	sel, n := rows(b)
	e.out = vector.Reuse(e.out, e.t)
	out := e.out
	var failed error
	vector.ForRows(sel, n, func(r int) {
		if failed != nil {
			return
		}
		for i, a := range args {
			e.vals[i] = a.Get(r)
		}
		v, err := e.fn(e.c, e.vals)
		if err != nil {
			failed = err
			return
		}
		if v != nil && out.Type != vector.Any && vector.TypeOf(v) != out.Type {
			failed = errs.Internal("%s() returned a %s where its type is %s", e.name, functions.TypeName(v), out.Type)
			return
		}
		out.Set(r, v)
	})
	return out, failed
}
