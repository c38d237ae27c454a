package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// maxRange bounds the list range() builds, so a typo cannot exhaust memory.
const maxRange = 1 << 26

func init() {
	register(map[string]scalarFunc{
		"head":  fnHead,
		"last":  fnLast,
		"tail":  fnTail,
		"range": fnRange,
	})
	registerCompiler("coalesce", compileCoalesce)
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

func fnHead(_ *Env, a []vector.Value) (vector.Value, error) {
	l, ok, err := listArg("head", a[0])
	if !ok || len(l) == 0 {
		return nil, err
	}
	return l[0], nil
}

func fnLast(_ *Env, a []vector.Value) (vector.Value, error) {
	l, ok, err := listArg("last", a[0])
	if !ok || len(l) == 0 {
		return nil, err
	}
	return l[len(l)-1], nil
}

func fnTail(_ *Env, a []vector.Value) (vector.Value, error) {
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
func fnRange(c *Env, a []vector.Value) (vector.Value, error) {
	start, end, step, err := RangeBounds(a)
	if err != nil {
		return nil, err
	}
	count := RangeCount(start, end, step)
	if count > maxRange {
		return nil, errs.DataCode(errs.CodeOverflow, "range() would build %d elements, more than %d", count, maxRange)
	}
	if err := c.Mem.Reserve(int64(count) * (memory.IfaceBytes + memory.BoxedBytes)); err != nil {
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

// coalesceEval returns the first non-null argument. Each argument is
// evaluated only on the rows still null, so a later argument cannot fail
// on a row an earlier one decided.
type coalesceEval struct {
	args []Evaluator
	t    vector.Type
	out  *vector.Vector
	sel  []int32
	next []int32
	sub  vector.Batch
}

func compileCoalesce(c *Env, e *plan.Call) (Evaluator, error) {
	args, err := CompileArgs(c, e.Args)
	if err != nil {
		return nil, err
	}
	return &coalesceEval{args: args, t: outType(e.T)}, nil
}

func (e *coalesceEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	e.out = vector.Reuse(e.out, e.t)
	out := e.out
	e.sel = selected(e.sel[:0], b)
	for _, a := range e.args {
		if len(e.sel) == 0 {
			break
		}
		e.sub = vector.Batch{Cols: b.Cols, Len: b.Len, Sel: e.sel}
		v, err := a.Eval(&e.sub)
		if err != nil {
			return nil, err
		}
		e.next = e.next[:0]
		for _, r := range e.sel {
			if v.IsNull(int(r)) {
				e.next = append(e.next, r)
				continue
			}
			if err := copyValue(out, int(r), v, int(r)); err != nil {
				return nil, err
			}
		}
		e.sel, e.next = e.next, e.sel
	}
	for _, r := range e.sel {
		out.SetNull(int(r))
	}
	return out, nil
}

// selected appends the physical rows of b to dst; the result is never nil,
// so it serves as a batch selection even when empty.
func selected(dst []int32, b *vector.Batch) []int32 {
	if dst == nil {
		dst = make([]int32, 0, vector.Capacity)
	}
	if b.Sel != nil {
		return append(dst, b.Sel...)
	}
	for r := 0; r < b.Len; r++ {
		dst = append(dst, int32(r))
	}
	return dst
}

// copyValue copies row src of v into row dst of out, converting through a
// generic value when the types differ.
func copyValue(out *vector.Vector, dst int, v *vector.Vector, src int) error {
	if out.Type == v.Type {
		out.CopyRow(dst, v, src)
		return nil
	}
	x := v.Get(src)
	if x != nil && out.Type != vector.Any && vector.TypeOf(x) != out.Type {
		return errs.Internal("a %s value where %s was expected", TypeName(x), out.Type)
	}
	out.Set(dst, x)
	return nil
}
