package expr

import (
	"unsafe"

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
	output
	c    *Env
	name string
	fn   functions.Kernel
	args []Evaluator
	vecs []*vector.Vector
	vals []vector.Value
	t    vector.Type
}

func compileCall(c *Env, e *plan.Call) (Evaluator, error) {
	if e.Strategy == plan.RuleCodeCall {
		ev, err := compileCodeCall(c, e)
		if err != nil || ev != nil {
			return ev, err
		}
	}
	if ev, err := compileFLE(c, e); err != nil || ev != nil {
		return ev, err
	}
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
	args, err := compileArgs(c, e.Args)
	if err != nil {
		return nil, err
	}
	return newCallEval(c, e.Name, fn, args, e.T), nil
}

func newCallEval(c *Env, name string, fn functions.Kernel, args []Evaluator, t vector.Type) *callEval {
	return &callEval{c: c, name: name, fn: fn, args: args, t: outType(t),
		vals: make([]vector.Value, len(args)), vecs: make([]*vector.Vector, len(args))}
}

// CompileArgs compiles exprs for an operator that holds their results
// together: each is a tree of its own (Compile).
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

// builderEval builds the list and map literals whose parts are not all
// constant. It evaluates one part at a time and puts its values into
// every row's list or map at once, so the parts share one slot: a literal
// of 100,000 property reads costs one vector, not 100,000.
type builderEval struct {
	output
	isMap bool
	keys  []string // a map's keys
	parts []Evaluator
}

// listGroup is the rows whose lists share their arrays (lists).
const listGroup = 64

func compileBuilder(c *Env, isMap bool, keys []string, parts []plan.Expr) (Evaluator, error) {
	evs, err := compileSeq(c, parts)
	if err != nil {
		return nil, err
	}
	return &builderEval{isMap: isMap, keys: keys, parts: evs}, nil
}

func (e *builderEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	if !e.isMap {
		return e.lists(b, sel, n)
	}
	return e.maps(b, sel, n)
}

// lists builds a list literal's lists. A list and a box an element a
// row took most of `[i, i + 1, i + 2]`'s 250 ns a row; here the lists of
// listGroup rows share one array of elements, their INTEGER and FLOAT
// elements are boxed from one array of numbers a group, and the lists
// from one array of slices (boxes.go). The group bounds what a list kept
// by a later operator (a DISTINCT, a top-k) holds alive beyond itself:
// listGroup rows' arrays, not a whole batch's. Each part is consumed
// before the next is evaluated: the parts' outputs may share scratch.
func (e *builderEval) lists(b *vector.Batch, sel []int32, n int) (*vector.Vector, error) {
	k := len(e.parts)
	s := e.slot()
	lists := s.iterState().listsFor(s.t, n)
	defer vector.ForRows(sel, n, func(r int) { lists[r] = nil })
	out := e.vec(vector.Any, n)
	listType := typeWord[[]vector.Value]()
	var all []vector.Value
	var heads [][]vector.Value
	groups := 0
	vector.ForRows(sel, n, func(r int) {
		if len(heads) == 0 {
			all, heads = make([]vector.Value, listGroup*k), make([][]vector.Value, listGroup)
			groups++
		}
		heads[0] = all[:k:k]
		lists[r] = heads[0]
		box(&out.Any[r], listType, unsafe.Pointer(&heads[0]))
		all, heads = all[k:], heads[1:]
	})
	nums := make([]numberGroup, groups)
	for i, p := range e.parts {
		v, err := p.Eval(b)
		if err != nil {
			return nil, err
		}
		g, j := 0, 0 // the row's group, and its place in it
		vector.ForRows(sel, n, func(r int) {
			at := &lists[r][i]
			switch {
			case v.IsNull(r):
			case v.Type == vector.Int64:
				box(at, intTypeWord, unsafe.Pointer(nums[g].int(k, j*k+i, v.I64[r])))
			case v.Type == vector.Float64:
				box(at, floatTypeWord, unsafe.Pointer(nums[g].float(k, j*k+i, v.F64[r])))
			default:
				*at = v.Get(r)
			}
			if j++; j == listGroup {
				g, j = g+1, 0
			}
		})
	}
	return out, nil
}

// maps builds a map literal's maps.
func (e *builderEval) maps(b *vector.Batch, sel []int32, n int) (*vector.Vector, error) {
	s := e.slot()
	maps := s.iterState().mapsFor(s.t, n)
	vector.ForRows(sel, n, func(r int) { maps[r] = make(map[string]vector.Value, len(e.keys)) })
	defer vector.ForRows(sel, n, func(r int) { maps[r] = nil })
	for i, p := range e.parts {
		v, err := p.Eval(b)
		if err != nil {
			return nil, err
		}
		k := e.keys[i]
		vector.ForRows(sel, n, func(r int) { maps[r][k] = v.Get(r) })
	}
	out := e.vec(vector.Any, n)
	vector.ForRows(sel, n, func(r int) { out.Any[r] = maps[r] })
	return out, nil
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
	out := e.vec(e.t, n)
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
