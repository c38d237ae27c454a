package functions

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// maxRange bounds the list range() builds, so a typo cannot exhaust memory.
const maxRange = 1 << 26

func init() {
	register(map[string]Func{
		"head":     {Min: 1, Max: 1, Result: vector.Any, Doc: "head(list)", Args: args(ArgList), Kernel: fnHead},
		"last":     {Min: 1, Max: 1, Result: vector.Any, Doc: "last(list)", Args: args(ArgList), Kernel: fnLast},
		"tail":     {Min: 1, Max: 1, Result: vector.Any, Kind: "LIST", Doc: "tail(list)", Args: args(ArgList), Kernel: fnTail},
		"coalesce": {Min: 1, Max: 1 << 16, Result: vector.Any, Doc: "coalesce(x, …) — the first non-null argument", Compiled: true},
		"range":    {Min: 2, Max: 3, Result: vector.Any, Kind: "LIST", Elem: vector.Int64, Doc: "range(start, end[, step]) — inclusive", Kernel: fnRange},
	})
}

func listArg(fn string, v vector.Value) ([]vector.Value, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, false, nil
	case []vector.Value:
		return x, true, nil
	}
	return nil, false, argError(fn, v)
}

func fnHead(_ Env, a []vector.Value) (vector.Value, error) {
	l, ok, err := listArg("head", a[0])
	if !ok || len(l) == 0 {
		return nil, err
	}
	return l[0], nil
}

func fnLast(_ Env, a []vector.Value) (vector.Value, error) {
	l, ok, err := listArg("last", a[0])
	if !ok || len(l) == 0 {
		return nil, err
	}
	return l[len(l)-1], nil
}

func fnTail(_ Env, a []vector.Value) (vector.Value, error) {
	l, ok, err := listArg("tail", a[0])
	if !ok {
		return nil, err
	}
	if len(l) == 0 {
		return []vector.Value{}, nil
	}
	return append([]vector.Value(nil), l[1:]...), nil
}

// fnRange lists start, start+step, … up to end inclusive; a step against
// the direction from start to end gives the empty list.
func fnRange(c Env, a []vector.Value) (vector.Value, error) {
	start, end, step, err := RangeBounds(a)
	if err != nil {
		return nil, err
	}
	count := RangeCount(start, end, step)
	if count > maxRange {
		return nil, errs.DataCode(errs.CodeOverflow, "range() would build %d elements, more than %d", count, maxRange)
	}
	if err := c.Reserve(int64(count) * (memory.IfaceBytes + memory.BoxedBytes)); err != nil {
		return nil, err
	}
	out := make([]vector.Value, count)
	v := start
	for i := range out {
		if i%(1<<16) == 0 {
			if err := c.Interrupted(); err != nil {
				return nil, err
			}
		}
		out[i] = v
		v += step
	}
	return out, nil
}

// RangeBounds reads range()'s start, end and optional step.
func RangeBounds(a []vector.Value) (start, end, step int64, err error) {
	var n [3]int64
	n[2] = 1
	for i, v := range a {
		switch x := v.(type) {
		case int64:
			n[i] = x
		case nil:
			return 0, 0, 0, errs.Data("range() arguments must not be null")
		default:
			return 0, 0, 0, errs.Data("range() takes INTEGER arguments, got %s", TypeName(v))
		}
	}
	if n[2] == 0 {
		return 0, 0, 0, errs.Data("range() step must not be zero")
	}
	return n[0], n[1], n[2], nil
}

// RangeCount is the number of values from start to end by step: none when
// the step points away from end. Unsigned arithmetic cannot overflow.
func RangeCount(start, end, step int64) uint64 {
	switch {
	case step > 0 && start <= end:
		return (uint64(end)-uint64(start))/uint64(step) + 1
	case step < 0 && start >= end:
		return (uint64(start)-uint64(end))/uint64(-step) + 1
	}
	return 0
}
