package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// compileLocal compiles the expressions with an inner scope, map
// projections and pattern subqueries.
func compileLocal(c *Env, e plan.Expr) (Evaluator, error) {
	switch e := e.(type) {
	case *plan.ListComp:
		list, err := Compile(c, e.List)
		if err != nil {
			return nil, err
		}
		ev := &listCompEval{elements: elements{c: c, list: list, lb: newLocalBatch(e.Width, 1, e.Pred, e.Proj)}}
		if e.Pred != nil {
			if ev.pred, err = Compile(c, e.Pred); err != nil {
				return nil, err
			}
		}
		if e.Proj != nil {
			if ev.proj, err = Compile(c, e.Proj); err != nil {
				return nil, err
			}
		}
		return ev, nil
	case *plan.Quantifier:
		list, err := Compile(c, e.List)
		if err != nil {
			return nil, err
		}
		pred, err := Compile(c, e.Pred)
		if err != nil {
			return nil, err
		}
		return &quantEval{elements: elements{c: c, list: list, lb: newLocalBatch(e.Width, 1, e.Pred)}, kind: e.Kind, pred: pred}, nil
	case *plan.Reduce:
		init, err := Compile(c, e.Init)
		if err != nil {
			return nil, err
		}
		list, err := Compile(c, e.List)
		if err != nil {
			return nil, err
		}
		body, err := Compile(c, e.Expr)
		if err != nil {
			return nil, err
		}
		return &reduceEval{c: c, init: init, list: list, body: body, lb: newLocalBatch(e.Width, 2, e.Expr)}, nil
	case *plan.MapProjection:
		return compileMapProjection(c, e)
	case *plan.PatternSubquery:
		if c.Subqueries == nil {
			return nil, bug("a pattern subquery without an executor to run it")
		}
		return c.Subqueries.CompileSubquery(e)
	}
	return nil, errs.NotSupported("expression %s cannot be evaluated yet", e)
}

// elements walks the elements of the lists a batch's rows hold, handing
// them to flush in inner batches of up to vector.Capacity elements.
type elements struct {
	c    *Env
	list Evaluator
	lb   *localBatch
	idx  []int32        // outer physical row of each pending element
	vals []vector.Value // pending elements
}

// each evaluates the list of each selected row of b: a null list calls
// null(r); a list adds its elements, flushed to flush as inner batches
// (flush receives the inner batch and the outer row of each inner row).
func (el *elements) each(b *vector.Batch, null func(r int), start func(r int),
	flush func(inner *vector.Batch, idx []int32, vals []vector.Value) error) error {
	lv, err := el.list.Eval(b)
	if err != nil {
		return err
	}
	sel, n := rows(b)
	el.idx, el.vals = el.idx[:0], el.vals[:0]
	var failed error
	vector.ForRows(sel, n, func(r int) {
		if failed != nil {
			return
		}
		v := lv.Get(r)
		if v == nil {
			null(r)
			return
		}
		l, ok := v.([]vector.Value)
		if !ok {
			failed = errs.Data("expected a list to iterate over, got %s", functions.TypeName(v))
			return
		}
		start(r)
		for _, x := range l {
			el.idx = append(el.idx, int32(r))
			el.vals = append(el.vals, x)
			if len(el.idx) == vector.Capacity {
				if failed = el.c.Interrupted(); failed != nil {
					return
				}
				if failed = flush(el.lb.fill(b, el.idx, el.vals), el.idx, el.vals); failed != nil {
					return
				}
				el.idx, el.vals = el.idx[:0], el.vals[:0]
			}
		}
	})
	if failed != nil {
		return failed
	}
	if len(el.idx) > 0 {
		return flush(el.lb.fill(b, el.idx, el.vals), el.idx, el.vals)
	}
	return nil
}

// listCompEval is [x IN list WHERE pred | proj].
type listCompEval struct {
	elements
	pred, proj Evaluator
	lists      [][]vector.Value // result per outer physical row
	out        *vector.Vector
}

func (e *listCompEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	e.out = vector.Reuse(e.out, vector.Any)
	if len(e.lists) < b.Len {
		e.lists = make([][]vector.Value, vector.Capacity)
	}
	out := e.out
	var building int64 // bytes of the lists built so far, reserved as they grow
	err := e.each(b, func(r int) { e.lists[r] = nil; out.SetNull(r) },
		func(r int) { e.lists[r] = []vector.Value{} },
		func(inner *vector.Batch, idx []int32, vals []vector.Value) error {
			var keep, proj *vector.Vector
			var err error
			if e.pred != nil {
				if keep, err = e.pred.Eval(inner); err != nil {
					return err
				}
			}
			if e.proj != nil {
				if proj, err = e.proj.Eval(inner); err != nil {
					return err
				}
			}
			for i, r := range idx {
				if keep != nil && !isTrue(keep, i) {
					continue
				}
				v := vals[i]
				if proj != nil {
					v = proj.Get(i)
				}
				e.lists[r] = append(e.lists[r], v)
			}
			building += int64(len(idx)) * memory.IfaceBytes
			return e.c.Mem.Reserve(building)
		})
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	vector.ForRows(sel, n, func(r int) {
		if e.lists[r] != nil {
			out.Set(r, e.lists[r])
			e.lists[r] = nil
		}
	})
	return out, nil
}

// isTrue reports whether row i of a predicate's result is true (not false,
// not null, not a non-boolean).
func isTrue(v *vector.Vector, i int) bool {
	if v.IsNull(i) {
		return false
	}
	switch v.Type {
	case vector.Bool:
		return v.Bools[i]
	case vector.Any:
		b, ok := v.Any[i].(bool)
		return ok && b
	}
	return false
}

// quantEval is any/all/none/single(x IN list WHERE pred) with three-valued
// logic: a null predicate result makes the answer null unless the true
// and false results already decide it.
type quantEval struct {
	elements
	kind         string
	pred         Evaluator
	trues, nulls []int32
	falses       []int32
	isNull       []bool
	out          *vector.Vector
}

func (e *quantEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	if e.trues == nil {
		e.trues = make([]int32, vector.Capacity)
		e.falses = make([]int32, vector.Capacity)
		e.nulls = make([]int32, vector.Capacity)
		e.isNull = make([]bool, vector.Capacity)
	}
	e.out = vector.Reuse(e.out, vector.Bool)
	err := e.each(b, func(r int) { e.isNull[r] = true },
		func(r int) { e.isNull[r], e.trues[r], e.falses[r], e.nulls[r] = false, 0, 0, 0 },
		func(inner *vector.Batch, idx []int32, _ []vector.Value) error {
			p, err := e.pred.Eval(inner)
			if err != nil {
				return err
			}
			for i, r := range idx {
				switch {
				case p.IsNull(i):
					e.nulls[r]++
				case p.Type == vector.Bool && p.Bools[i]:
					e.trues[r]++
				case p.Type == vector.Bool:
					e.falses[r]++
				default:
					bv, ok := p.Get(i).(bool)
					if !ok {
						return errs.Data("%s() expects a boolean predicate, got %s", e.kind, functions.TypeName(p.Get(i)))
					}
					if bv {
						e.trues[r]++
					} else {
						e.falses[r]++
					}
				}
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	out := e.out
	vector.ForRows(sel, n, func(r int) {
		if e.isNull[r] {
			out.SetNull(r)
			return
		}
		t, f, u := e.trues[r], e.falses[r], e.nulls[r]
		var res, null bool
		switch e.kind {
		case "any":
			res, null = t > 0, t == 0 && u > 0
		case "all":
			res, null = f == 0 && u == 0, f == 0 && u > 0
		case "none":
			res, null = t == 0 && u == 0, t == 0 && u > 0
		case "single":
			res, null = t == 1 && u == 0, t <= 1 && u > 0
		}
		if null {
			out.SetNull(r)
			return
		}
		out.Bools[r] = res
	})
	return out, nil
}

// reduceEval is reduce(acc = init, x IN list | expr). Each step evaluates
// expr for the k-th element of every row whose list is that long, all
// rows of the batch in one inner batch; the accumulators stay in typed
// vectors from step to step.
type reduceEval struct {
	c                *Env
	init, list, body Evaluator
	lb               *localBatch
	lists            [][]vector.Value
	final            []vector.Value
	null             []bool
	idx, prev, pos   []int32
	elems            []vector.Value
	accs             [2]*vector.Vector // alternating accumulator columns
	out              *vector.Vector
}

func (e *reduceEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	if e.final == nil {
		e.final = make([]vector.Value, vector.Capacity)
		e.lists = make([][]vector.Value, vector.Capacity)
		e.null = make([]bool, vector.Capacity)
	}
	iv, err := e.init.Eval(b)
	if err != nil {
		return nil, err
	}
	lv, err := e.list.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	longest := 0
	var failed error
	vector.ForRows(sel, n, func(r int) {
		e.lists[r], e.null[r], e.final[r] = nil, false, nil
		switch l := lv.Get(r).(type) {
		case nil:
			e.null[r] = true
		case []vector.Value:
			e.lists[r] = l
			longest = max(longest, len(l))
			if len(l) == 0 {
				e.final[r] = iv.Get(r)
			}
		default:
			if failed == nil {
				failed = errs.Data("reduce() expects a list, got %s", functions.TypeName(l))
			}
		}
	})
	if failed != nil {
		return nil, failed
	}
	var res *vector.Vector // the accumulators after the previous step
	for k := 0; k < longest; k++ {
		if err := e.c.Interrupted(); err != nil {
			return nil, err
		}
		e.prev, e.idx = e.idx, e.prev[:0]
		e.elems, e.pos = e.elems[:0], e.pos[:0]
		p := 0
		vector.ForRows(sel, n, func(r int) {
			if len(e.lists[r]) <= k {
				return
			}
			e.idx = append(e.idx, int32(r))
			e.elems = append(e.elems, e.lists[r][k])
			if k > 0 {
				// Rows still active are a subsequence of the previous
				// step's rows: find this one's previous position.
				for e.prev[p] != int32(r) {
					p++
				}
				e.pos = append(e.pos, int32(p))
			}
		})
		acc := e.accs[k%2]
		if k == 0 {
			acc = vector.Reuse(acc, iv.Type)
			vector.CopyRows(acc, 0, iv, e.idx)
		} else {
			acc = vector.Reuse(acc, res.Type)
			vector.CopyRows(acc, 0, res, e.pos)
		}
		e.accs[k%2] = acc
		inner := e.lb.fill(b, e.idx)
		e.lb.setVector(0, acc)
		e.lb.setValues(1, e.elems)
		if res, err = e.body.Eval(inner); err != nil {
			return nil, err
		}
		for i, r := range e.idx {
			if len(e.lists[r]) == k+1 {
				e.final[r] = res.Get(i)
			}
		}
	}
	// The result is typed when every row's value has one scalar type.
	t := vector.Null
	vector.ForRows(sel, n, func(r int) {
		if e.null[r] || e.final[r] == nil {
			return
		}
		switch vt := vector.TypeOf(e.final[r]); {
		case t == vector.Null:
			t = vt
		case t != vt:
			t = vector.Any
		}
	})
	switch t {
	case vector.Bool, vector.Int64, vector.Float64, vector.String, vector.Node, vector.Rel:
	default:
		t = vector.Any
	}
	e.out = vector.Reuse(e.out, t)
	out := e.out
	vector.ForRows(sel, n, func(r int) {
		if e.null[r] {
			out.SetNull(r)
		} else {
			out.Set(r, e.final[r])
		}
		e.final[r], e.lists[r] = nil, nil
	})
	return out, nil
}
