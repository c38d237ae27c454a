package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

func init() { registerCompiler("coalesce", compileCoalesce) }

// coalesceEval returns the first non-null argument. Each argument is
// evaluated only on the rows still null, so a later argument cannot fail
// on a row an earlier one decided. An argument's values are copied out
// before the next is evaluated, so the arguments share one slot.
type coalesceEval struct {
	output
	args []Evaluator
	t    vector.Type
	sub  vector.Batch
}

func compileCoalesce(c *Env, e *plan.Call) (Evaluator, error) {
	args, err := compileSeq(c, e.Args)
	if err != nil {
		return nil, err
	}
	return &coalesceEval{args: args, t: outType(e.T)}, nil
}

func (e *coalesceEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	s := e.slot()
	out := s.vec(e.t, b.Len)
	sel, next := selected(s.sel(0), b), s.sel(1)
	for _, a := range e.args {
		if len(sel) == 0 {
			break
		}
		e.sub = vector.Batch{Cols: b.Cols, Len: b.Len, Sel: sel}
		v, err := a.Eval(&e.sub)
		if err != nil {
			return nil, err
		}
		if v.Type == out.Type && v.Type != vector.Any {
			next = coalesceTyped(out, v, sel, next[:0])
			sel, next = next, sel
			continue
		}
		next = next[:0]
		for _, r := range sel {
			if v.IsNull(int(r)) {
				next = append(next, r)
				continue
			}
			if err := copyValue(out, int(r), v, int(r)); err != nil {
				return nil, err
			}
		}
		sel, next = next, sel
	}
	for _, r := range sel {
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
		return errs.Internal("a %s value where %s was expected", functions.TypeName(x), out.Type)
	}
	out.Set(dst, x)
	return nil
}

// coalesceTyped copies the rows of sel where v is not null into out, of
// v's type, and returns the others in next.
func coalesceTyped(out, v *vector.Vector, sel, next []int32) []int32 {
	switch v.Type {
	case vector.Bool:
		return takeValid(out.Bools, v.Bools, v.Valid, sel, next)
	case vector.Int64:
		return takeValid(out.I64, v.I64, v.Valid, sel, next)
	case vector.Float64:
		return takeValid(out.F64, v.F64, v.Valid, sel, next)
	case vector.String:
		return takeValid(out.Str, v.Str, v.Valid, sel, next)
	case vector.Node, vector.Rel:
		return takeValid(out.IDs, v.IDs, v.Valid, sel, next)
	}
	return append(next, sel...) // vector.Null: every row is still null
}

func takeValid[T any](dst, src []T, valid vector.Validity, sel, next []int32) []int32 {
	if valid == nil {
		for _, r := range sel {
			dst[r] = src[r]
		}
		return next
	}
	for _, r := range sel {
		if valid[r>>6]&(1<<(uint(r)&63)) != 0 {
			dst[r] = src[r]
		} else {
			next = append(next, r)
		}
	}
	return next
}
