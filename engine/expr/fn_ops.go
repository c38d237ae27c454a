package expr

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// IN, indexing x[i] and slicing x[a..b].
func init() {
	register(map[string]scalarFunc{
		plan.FnIn:    fnIn,
		plan.FnIndex: fnIndex,
		plan.FnSlice: fnSlice,
	})
	registerCompiler(plan.FnIn, compileIn)
}

// fnIn is three-valued list membership: true when an element equals x,
// else null when some comparison was null, else false.
func fnIn(_ *Env, a []vector.Value) (vector.Value, error) {
	switch l := a[1].(type) {
	case nil:
		return nil, nil
	case []vector.Value:
		sawNull := false
		for _, el := range l {
			eq, null := EqualValues(a[0], el)
			if eq {
				return true, nil
			}
			sawNull = sawNull || null
		}
		if sawNull {
			return nil, nil
		}
		return false, nil
	}
	return nil, errs.Data("IN expects a list on its right, got %s", TypeName(a[1]))
}

// inSetEval is IN over an INTEGER or STRING vector against a constant list
// of non-null values of the same type: a set lookup per row.
type inSetEval struct {
	x    Evaluator
	ints map[int64]struct{}
	strs map[string]struct{}
	row  *callEval
	out  *vector.Vector
}

func compileIn(c *Env, e *plan.Call) (Evaluator, error) {
	// The list is known before the rows when it is a literal or a
	// parameter (WHERE n.id IN $ids).
	var list []vector.Value
	known := false
	switch k := e.Args[1].(type) {
	case *plan.Const:
		if k.Val != nil {
			l, isList := k.Val.([]vector.Value)
			if !isList {
				return nil, errs.Semantic("IN expects a list on its right, got %s", TypeName(k.Val))
			}
			list, known = l, true
		}
	case *plan.Param:
		list, known = c.Params[k.Name].([]vector.Value)
	}
	row, err := compileRowCall(c, e)
	if err != nil || !known || !c.Rules.On(plan.RuleInSetLookup) {
		return row, err
	}
	ev := &inSetEval{x: row.args[0], row: row, out: vector.New(vector.Bool, vector.Capacity)}
	for _, v := range list {
		switch x := v.(type) {
		case int64:
			if ev.ints == nil {
				ev.ints = map[int64]struct{}{}
			}
			ev.ints[x] = struct{}{}
		case string:
			if ev.strs == nil {
				ev.strs = map[string]struct{}{}
			}
			ev.strs[x] = struct{}{}
		default:
			return row, nil // nulls, floats, lists: the general rules
		}
	}
	if (ev.ints == nil) == (ev.strs == nil) {
		return row, nil // empty, or mixed
	}
	return ev, nil
}

func (e *inSetEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	out := e.out
	out.ResetNulls()
	switch {
	case x.Type == vector.Int64 && e.strs == nil:
		vector.ForRows(sel, n, func(i int) {
			_, ok := e.ints[x.I64[i]]
			out.Bools[i] = ok
		})
	case x.Type == vector.String && e.ints == nil:
		vector.ForRows(sel, n, func(i int) {
			_, ok := e.strs[x.Str[i]]
			out.Bools[i] = ok
		})
	default:
		e.row.vecs[0] = x
		list, err := e.row.args[1].Eval(b)
		if err != nil {
			return nil, err
		}
		e.row.vecs[1] = list
		return e.row.evalVecs(b, e.row.vecs)
	}
	// A null x is null against a non-empty list (the list here is never
	// empty: an empty one has neither set).
	copyNulls(out, x, sel, n)
	return out, nil
}

// fnIndex is x[i]: a list element (negative i counts from the end, out of
// range is null), a map value, or a node's or relationship's property.
func fnIndex(c *Env, a []vector.Value) (vector.Value, error) {
	if a[0] == nil || a[1] == nil {
		return nil, nil
	}
	switch x := a[0].(type) {
	case []vector.Value:
		i, ok := a[1].(int64)
		if !ok {
			return nil, errs.Data("a list index must be an INTEGER, got %s", TypeName(a[1]))
		}
		if i < 0 {
			i += int64(len(x))
		}
		if i < 0 || i >= int64(len(x)) {
			return nil, nil
		}
		return x[i], nil
	case map[string]vector.Value:
		k, ok := a[1].(string)
		if !ok {
			return nil, errs.Data("a map key must be a STRING, got %s", TypeName(a[1]))
		}
		return x[k], nil
	case vector.NodeRef, vector.RelRef:
		k, ok := a[1].(string)
		if !ok {
			return nil, errs.Data("a property key must be a STRING, got %s", TypeName(a[1]))
		}
		id, known := c.Catalog.LookupKey(k)
		if !known {
			return nil, nil
		}
		var found vector.Value
		EntityProps(c, x, func(key catalog.KeyID, v vector.Value) {
			if key == id {
				found = v
			}
		})
		return found, nil
	}
	return nil, errs.Data("cannot index a value of type %s", TypeName(a[0]))
}

// fnSlice is x[from..to] over a list: bounds count from the end when
// negative and are clamped to the list; a bound that is null makes the
// result null (the binder passes a missing bound as the list's start or
// end).
func fnSlice(_ *Env, a []vector.Value) (vector.Value, error) {
	x, from, to := a[0], a[1], a[2]
	if x == nil {
		return nil, nil
	}
	l, ok := x.([]vector.Value)
	if !ok {
		return nil, errs.Data("cannot slice a value of type %s", TypeName(x))
	}
	n := int64(len(l))
	bound := func(v vector.Value) (int64, bool, error) {
		if v == nil {
			return 0, false, nil
		}
		i, isInt := v.(int64)
		if !isInt {
			return 0, false, errs.Data("a list slice bound must be an INTEGER, got %s", TypeName(v))
		}
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n), true, nil
	}
	lo, ok, err := bound(from)
	if !ok || err != nil {
		return nil, err
	}
	hi, ok, err := bound(to)
	if !ok || err != nil {
		return nil, err
	}
	if lo >= hi {
		return []vector.Value{}, nil
	}
	return append([]vector.Value(nil), l[lo:hi]...), nil
}
