package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// logicEval implements AND, OR and XOR with three-valued logic: null AND
// false is false, null OR true is true, anything else involving null is
// null.
type logicEval struct {
	op     plan.BinOp
	l, r   Evaluator
	lb, rb *vector.Vector // conversion buffers for non-Bool operands
	out    *vector.Vector
}

func (e *logicEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	l, err := e.l.Eval(b)
	if err != nil {
		return nil, err
	}
	if l, err = AsBools(l, &e.lb, sel, n, e.op.String()); err != nil {
		return nil, err
	}
	r, err := e.r.Eval(b)
	if err != nil {
		return nil, err
	}
	if r, err = AsBools(r, &e.rb, sel, n, e.op.String()); err != nil {
		return nil, err
	}
	out := e.out
	out.ResetNulls()
	lv, rv, ov := l.Bools, r.Bools, out.Bools
	if l.Valid == nil && r.Valid == nil {
		// Fast path: no nulls, plain boolean algebra over the whole batch.
		switch e.op {
		case plan.OpAnd:
			for i := 0; i < n; i++ {
				ov[i] = lv[i] && rv[i]
			}
		case plan.OpOr:
			for i := 0; i < n; i++ {
				ov[i] = lv[i] || rv[i]
			}
		default:
			for i := 0; i < n; i++ {
				ov[i] = lv[i] != rv[i]
			}
		}
		return out, nil
	}
	vector.ForRows(sel, n, func(i int) {
		ln, rn := l.IsNull(i), r.IsNull(i)
		switch e.op {
		case plan.OpAnd:
			switch {
			case (!ln && !lv[i]) || (!rn && !rv[i]):
				ov[i] = false
			case ln || rn:
				out.SetNull(i)
			default:
				ov[i] = true
			}
		case plan.OpOr:
			switch {
			case (!ln && lv[i]) || (!rn && rv[i]):
				ov[i] = true
			case ln || rn:
				out.SetNull(i)
			default:
				ov[i] = false
			}
		default:
			if ln || rn {
				out.SetNull(i)
			} else {
				ov[i] = lv[i] != rv[i]
			}
		}
	})
	return out, nil
}

// notEval is NOT: null stays null.
type notEval struct {
	x   Evaluator
	xb  *vector.Vector
	out *vector.Vector
}

func (e *notEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	if x, err = AsBools(x, &e.xb, sel, n, "NOT"); err != nil {
		return nil, err
	}
	out := e.out
	out.ResetNulls()
	for i := 0; i < n; i++ {
		out.Bools[i] = !x.Bools[i]
	}
	copyNulls(out, x, sel, n)
	return out, nil
}

// AsBools returns v as a Bool vector: as is when it is one, else converted
// into *buf (a null column becomes all-null booleans; generic values must be
// booleans or null). Anything else is a type error.
func AsBools(v *vector.Vector, buf **vector.Vector, sel []int32, n int, op string) (*vector.Vector, error) {
	switch v.Type {
	case vector.Bool:
		return v, nil
	case vector.Null, vector.Any:
		if *buf == nil {
			*buf = vector.New(vector.Bool, vector.Capacity)
		}
		out := *buf
		out.ResetNulls()
		var failed error
		vector.ForRows(sel, n, func(r int) {
			switch x := v.Get(r).(type) {
			case nil:
				out.SetNull(r)
			case bool:
				out.Bools[r] = x
			default:
				failed = errs.Data("%s expects BOOLEAN operands, got %s", op, functions.TypeName(x))
			}
		})
		return out, failed
	}
	return nil, errs.Data("%s expects BOOLEAN operands, got %s", op, v.Type)
}
