package functions

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// IN, indexing x[i], slicing x[a..b] and CASE, whose branches engine/expr
// evaluates only on the rows that reach them.
func init() {
	register(map[string]Func{
		OpIn:    {Min: 2, Max: 2, Result: vector.Bool, Doc: "x IN list", Kernel: fnIn},
		OpIndex: {Min: 2, Max: 2, Result: vector.Any, Doc: "x[i] — a list element, a map value or a property", Kernel: fnIndex},
		OpCase:  {Min: 1, Max: 1 << 16, Result: vector.Any, Doc: "CASE … WHEN … THEN … ELSE … END", Compiled: true},
		OpSlice: {Min: 3, Max: 3, Result: vector.Any, Doc: "list[from..to]", Kernel: fnSlice},
	})
}

// fnIn is three-valued list membership: true when an element equals x,
// else null when some comparison was null, else false.
func fnIn(_ Env, a []vector.Value) (vector.Value, error) {
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

// fnIndex is x[i]: a list element (negative i counts from the end, out of
// range is null), a map value, or a node's or relationship's property.
func fnIndex(c Env, a []vector.Value) (vector.Value, error) {
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
		var found vector.Value
		// A deleted entity reads as null here, as it always has.
		_, _ = c.Properties(x, func(key string, v vector.Value) {
			if key == k {
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
func fnSlice(_ Env, a []vector.Value) (vector.Value, error) {
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
