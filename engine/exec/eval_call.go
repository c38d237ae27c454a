package exec

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// scalarFunc computes a function of generic argument values for one row.
type scalarFunc func(c *Context, args []vector.Value) (vector.Value, error)

// scalarFuncs are the functions of this engine version, by lower-case name.
var scalarFuncs = map[string]scalarFunc{
	"id": func(_ *Context, a []vector.Value) (vector.Value, error) {
		switch x := a[0].(type) {
		case nil:
			return nil, nil
		case vector.NodeRef:
			return int64(x), nil
		case vector.RelRef:
			return int64(x), nil
		}
		return nil, errs.Data("id() expects a node or relationship, got %s", typeName(a[0]))
	},
}

// callEval evaluates a scalar function row by row over generic values.
type callEval struct {
	c    *Context
	name string
	fn   scalarFunc
	args []evaluator
	vecs []*vector.Vector
	vals []vector.Value
	out  *vector.Vector
}

func compileCall(c *Context, e *plan.Call) (evaluator, error) {
	fn, ok := scalarFuncs[e.Name]
	if !ok {
		return nil, errs.NotSupported("function %s() is not supported yet", e.Name)
	}
	ce := &callEval{c: c, name: e.Name, fn: fn, vals: make([]vector.Value, len(e.Args)), vecs: make([]*vector.Vector, len(e.Args))}
	for _, a := range e.Args {
		ev, err := compile(c, a)
		if err != nil {
			return nil, err
		}
		ce.args = append(ce.args, ev)
	}
	return ce, nil
}

// compileBuilder evaluates parts per row and combines them with build: the
// list and map literals whose elements are not all constant.
func compileBuilder(c *Context, parts []plan.Expr, build func([]vector.Value) (vector.Value, error)) (evaluator, error) {
	ce := &callEval{c: c, fn: func(_ *Context, vals []vector.Value) (vector.Value, error) { return build(vals) },
		vals: make([]vector.Value, len(parts)), vecs: make([]*vector.Vector, len(parts))}
	for _, p := range parts {
		ev, err := compile(c, p)
		if err != nil {
			return nil, err
		}
		ce.args = append(ce.args, ev)
	}
	return ce, nil
}

func (e *callEval) eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	args := e.vecs
	for i, a := range e.args {
		v, err := a.eval(b)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	e.out = ensure(e.out, vector.Any)
	out := e.out
	var failed error
	forRows(sel, n, func(r int) {
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
		out.Set(r, v)
	})
	return out, failed
}
