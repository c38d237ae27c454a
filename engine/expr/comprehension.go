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
		list, err := compileNode(c, e.List)
		if err != nil {
			return nil, err
		}
		ev := &listCompEval{elements: elements{c: c, list: list, lb: newLocalBatch(e.Width, 1, e.Pred, e.Proj)}}
		if e.Pred != nil {
			if ev.pred, err = compileNode(c, e.Pred); err != nil {
				return nil, err
			}
		}
		if e.Proj != nil {
			if ev.proj, err = compileNode(c, e.Proj); err != nil {
				return nil, err
			}
		}
		return ev, nil
	case *plan.Quantifier:
		list, err := compileNode(c, e.List)
		if err != nil {
			return nil, err
		}
		pred, err := compileNode(c, e.Pred)
		if err != nil {
			return nil, err
		}
		return &quantEval{elements: elements{c: c, list: list, lb: newLocalBatch(e.Width, 1, e.Pred)}, kind: e.Kind, pred: pred}, nil
	case *plan.Reduce:
		init, err := compileNode(c, e.Init)
		if err != nil {
			return nil, err
		}
		list, err := compileNode(c, e.List)
		if err != nil {
			return nil, err
		}
		body, err := compileNode(c, e.Expr)
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
// them to flush in inner batches of up to vector.Capacity elements. The
// pending elements and the inner batch are in the slot's iterState.
type elements struct {
	output
	c    *Env
	list Evaluator
	lb   *localBatch
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
	st := el.slot().iterState()
	defer st.account(el.slot().t)
	idx, vals := st.idx[:0], st.elems[:0]
	defer func() { clear(vals); st.idx, st.elems = idx[:0], vals[:0] }()
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
			idx = append(idx, int32(r))
			vals = append(vals, x)
			if len(idx) == vector.Capacity {
				if failed = el.c.Interrupted(); failed != nil {
					return
				}
				if failed = flush(el.lb.fill(&st.local, b, idx, vals), idx, vals); failed != nil {
					return
				}
				idx, vals = idx[:0], vals[:0]
			}
		}
	})
	if failed != nil {
		return failed
	}
	if len(idx) > 0 {
		return flush(el.lb.fill(&st.local, b, idx, vals), idx, vals)
	}
	return nil
}

// listCompEval is [x IN list WHERE pred | proj].
type listCompEval struct {
	elements
	pred, proj Evaluator
}

func (e *listCompEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	out := e.vec(vector.Any, b.Len)
	// The result per outer physical row, and the bytes of the lists
	// built so far, reserved as they grow.
	lists := e.slot().iterState().listsFor(e.slot().t, b.Len)
	var building int64
	err := e.each(b, func(r int) { lists[r] = nil; out.SetNull(r) },
		func(r int) { lists[r] = []vector.Value{} },
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
				lists[r] = append(lists[r], v)
			}
			building += int64(len(idx)) * memory.IfaceBytes
			return e.c.Mem.Reserve(building)
		})
	sel, n := rows(b)
	if err != nil {
		vector.ForRows(sel, n, func(r int) { lists[r] = nil })
		return nil, err
	}
	vector.ForRows(sel, n, func(r int) {
		if lists[r] != nil {
			out.Set(r, lists[r])
			lists[r] = nil
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
	kind string
	pred Evaluator
}

func (e *quantEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	st := e.slot().iterState()
	for i := range st.counts {
		st.counts[i] = rowsOf(st.counts[i], b.Len)
	}
	st.null = rowsOf(st.null, b.Len)
	trues, falses, nulls, isNull := st.counts[0], st.counts[1], st.counts[2], st.null
	err := e.each(b, func(r int) { isNull[r] = true },
		func(r int) { isNull[r], trues[r], falses[r], nulls[r] = false, 0, 0, 0 },
		func(inner *vector.Batch, idx []int32, _ []vector.Value) error {
			p, err := e.pred.Eval(inner)
			if err != nil {
				return err
			}
			for i, r := range idx {
				switch {
				case p.IsNull(i):
					nulls[r]++
				case p.Type == vector.Bool && p.Bools[i]:
					trues[r]++
				case p.Type == vector.Bool:
					falses[r]++
				default:
					bv, ok := p.Get(i).(bool)
					if !ok {
						return errs.Data("%s() expects a boolean predicate, got %s", e.kind, functions.TypeName(p.Get(i)))
					}
					if bv {
						trues[r]++
					} else {
						falses[r]++
					}
				}
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	out := e.vec(vector.Bool, n)
	vector.ForRows(sel, n, func(r int) {
		if isNull[r] {
			out.SetNull(r)
			return
		}
		t, f, u := trues[r], falses[r], nulls[r]
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
// vectors from step to step. Its arrays are the slot's iterState.
type reduceEval struct {
	output
	c                *Env
	init, list, body Evaluator
	lb               *localBatch
}

func (e *reduceEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	iv, err := e.init.Eval(b)
	if err != nil {
		return nil, err
	}
	lv, err := e.list.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	st := e.slot().iterState()
	defer st.account(e.slot().t)
	st.lists, st.null, st.final = rowsOf(st.lists, n), rowsOf(st.null, n), rowsOf(st.final, n)
	lists, null, final := st.lists, st.null, st.final
	defer vector.ForRows(sel, n, func(r int) { final[r], lists[r] = nil, nil })
	longest := 0
	var failed error
	vector.ForRows(sel, n, func(r int) {
		lists[r], null[r], final[r] = nil, false, nil
		switch l := lv.Get(r).(type) {
		case nil:
			null[r] = true
		case []vector.Value:
			lists[r] = l
			longest = max(longest, len(l))
			if len(l) == 0 {
				final[r] = iv.Get(r)
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
	idx, prev := st.idx[:0], st.prev[:0]
	defer func() { clear(st.elems); st.idx, st.prev = idx[:0], prev[:0] }()
	var res *vector.Vector // the accumulators after the previous step
	for k := 0; k < longest; k++ {
		if err := e.c.Interrupted(); err != nil {
			return nil, err
		}
		prev, idx = idx, prev[:0]
		st.elems, st.pos = st.elems[:0], st.pos[:0]
		p := 0
		vector.ForRows(sel, n, func(r int) {
			if len(lists[r]) <= k {
				return
			}
			idx = append(idx, int32(r))
			st.elems = append(st.elems, lists[r][k])
			if k > 0 {
				// Rows still active are a subsequence of the previous
				// step's rows: find this one's previous position.
				for prev[p] != int32(r) {
					p++
				}
				st.pos = append(st.pos, int32(p))
			}
		})
		acc := st.accs[k%2]
		if k == 0 {
			acc = vector.Reuse(acc, iv.Type)
			vector.CopyRows(acc, 0, iv, idx)
		} else {
			acc = vector.Reuse(acc, res.Type)
			vector.CopyRows(acc, 0, res, st.pos)
		}
		st.accs[k%2] = acc
		inner := e.lb.fill(&st.local, b, idx)
		e.lb.setVector(&st.local, 0, acc)
		e.lb.setValues(&st.local, 1, st.elems)
		if res, err = e.body.Eval(inner); err != nil {
			return nil, err
		}
		for i, r := range idx {
			if len(lists[r]) == k+1 {
				final[r] = res.Get(i)
			}
		}
	}
	// The result is typed when every row's value has one scalar type.
	t := vector.Null
	vector.ForRows(sel, n, func(r int) {
		if null[r] || final[r] == nil {
			return
		}
		switch vt := vector.TypeOf(final[r]); {
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
	out := e.vec(t, n)
	vector.ForRows(sel, n, func(r int) {
		if null[r] {
			out.SetNull(r)
		} else {
			out.Set(r, final[r])
		}
	})
	return out, nil
}
