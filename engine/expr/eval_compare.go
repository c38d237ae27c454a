package expr

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// compareEval implements = <> < <= > >=. Operands of one typed kind run a
// tight loop; INTEGER against FLOAT compares as FLOAT; everything else goes
// through the generic value comparison. Any null operand makes the row null.
type compareEval struct {
	output
	op   plan.BinOp
	l, r Evaluator
}

func (e *compareEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	l, err := e.l.Eval(b)
	if err != nil {
		return nil, err
	}
	if k, isConst := e.r.(*constEval); isConst {
		if out := e.againstConst(l, k.val, n); out != nil {
			return out, nil
		}
	}
	r, err := e.r.Eval(b)
	if err != nil {
		return nil, err
	}
	out := e.vec(vector.Bool, n)
	lt, rt := l.Type, r.Type
	switch {
	case lt == vector.Null || rt == vector.Null:
		vector.ForRows(sel, n, func(i int) { out.SetNull(i) })
		return out, nil
	case lt == vector.Int64 && rt == vector.Int64:
		compareOrdered(e.op, out.Bools, l.I64, r.I64, n)
	case lt == vector.Float64 && rt == vector.Float64:
		compareOrdered(e.op, out.Bools, l.F64, r.F64, n)
	case lt == vector.Int64 && rt == vector.Float64:
		lf := widen(e.temp(0, vector.Float64, n), l, n)
		compareOrdered(e.op, out.Bools, lf.F64, r.F64, n)
	case lt == vector.Float64 && rt == vector.Int64:
		rf := widen(e.temp(1, vector.Float64, n), r, n)
		compareOrdered(e.op, out.Bools, l.F64, rf.F64, n)
	case lt == vector.String && rt == vector.String:
		compareOrdered(e.op, out.Bools, l.Str, r.Str, n)
	case (lt == vector.Node && rt == vector.Node) || (lt == vector.Rel && rt == vector.Rel):
		if e.op != plan.OpEq && e.op != plan.OpNe {
			// Entities have no order: the comparison is null.
			vector.ForRows(sel, n, func(i int) { out.SetNull(i) })
			return out, nil
		}
		compareOrdered(e.op, out.Bools, l.IDs, r.IDs, n)
	default:
		e.generic(out, l, r, sel, n)
		return out, nil
	}
	mergeNulls(out, l, r, sel, n)
	return out, nil
}

// generic compares row by row through generic values.
func (e *compareEval) generic(out, l, r *vector.Vector, sel []int32, n int) {
	vector.ForRows(sel, n, func(i int) {
		a, b := l.Get(i), r.Get(i)
		switch e.op {
		case plan.OpEq, plan.OpNe:
			eq, null := functions.EqualValues(a, b)
			if null {
				out.SetNull(i)
				return
			}
			out.Bools[i] = eq == (e.op == plan.OpEq)
		default:
			if functions.UnorderedNaN(a, b) {
				out.Bools[i] = false
				return
			}
			c, ok := functions.OrderValues(a, b)
			if !ok {
				out.SetNull(i)
				return
			}
			out.Bools[i] = holds(e.op, c)
		}
	})
}

// holds reports whether a comparison result c (-1, 0, 1) satisfies op.
func holds(op plan.BinOp, c int) bool {
	switch op {
	case plan.OpEq:
		return c == 0
	case plan.OpNe:
		return c != 0
	case plan.OpLt:
		return c < 0
	case plan.OpLe:
		return c <= 0
	case plan.OpGt:
		return c > 0
	}
	return c >= 0
}

// compareOrdered compares the first n rows densely: comparisons cannot
// fail, so computing unselected rows is cheaper than following the
// selection.
func compareOrdered[T int64 | uint64 | float64 | string](op plan.BinOp, out []bool, a, b []T, n int) {
	out, a, b = out[:n], a[:n], b[:n]
	switch op {
	case plan.OpEq:
		for i := range out {
			out[i] = a[i] == b[i]
		}
	case plan.OpNe:
		for i := range out {
			out[i] = a[i] != b[i]
		}
	case plan.OpLt:
		for i := range out {
			out[i] = a[i] < b[i]
		}
	case plan.OpLe:
		for i := range out {
			out[i] = a[i] <= b[i]
		}
	case plan.OpGt:
		for i := range out {
			out[i] = a[i] > b[i]
		}
	case plan.OpGe:
		for i := range out {
			out[i] = a[i] >= b[i]
		}
	}
}

// widen converts an INTEGER vector to FLOAT into buf (a temporary of
// the tree). Nulls are not copied: callers take them from the original
// operand.
func widen(buf, v *vector.Vector, n int) *vector.Vector {
	src, dst := v.I64[:n], buf.F64[:n]
	for i, x := range src {
		dst[i] = float64(x)
	}
	return buf
}

// mergeNulls makes out null wherever l or r is null, on the selected rows.
func mergeNulls(out, l, r *vector.Vector, sel []int32, n int) {
	if l.Valid == nil && r.Valid == nil {
		return
	}
	if out.Type != vector.Any {
		andNullWords(out, l, n)
		andNullWords(out, r, n)
		return
	}
	vector.ForRows(sel, n, func(i int) {
		if l.IsNull(i) || r.IsNull(i) {
			out.SetNull(i)
		}
	})
}

// againstConst compares a typed column with a constant of its kind (an
// INTEGER column with a FLOAT constant as FLOAT) without filling a
// vector with the constant; nil when the kinds differ.
func (e *compareEval) againstConst(l *vector.Vector, k vector.Value, n int) *vector.Vector {
	var out *vector.Vector
	switch x := k.(type) {
	case int64:
		switch l.Type {
		case vector.Int64:
			out = e.vec(vector.Bool, n)
			compareScalar(e.op, out.Bools, l.I64, x, n)
		case vector.Float64:
			out = e.vec(vector.Bool, n)
			compareScalar(e.op, out.Bools, l.F64, float64(x), n)
		}
	case float64:
		switch l.Type {
		case vector.Float64:
			out = e.vec(vector.Bool, n)
			compareScalar(e.op, out.Bools, l.F64, x, n)
		case vector.Int64:
			out = e.vec(vector.Bool, n)
			lf := widen(e.temp(0, vector.Float64, n), l, n)
			compareScalar(e.op, out.Bools, lf.F64, x, n)
		}
	case string:
		if l.Type == vector.String {
			out = e.vec(vector.Bool, n)
			compareScalar(e.op, out.Bools, l.Str, x, n)
		}
	}
	if out != nil {
		andNullWords(out, l, n)
	}
	return out
}

// compareScalar is compareOrdered against one value.
func compareScalar[T int64 | float64 | string](op plan.BinOp, out []bool, a []T, k T, n int) {
	out, a = out[:n], a[:n]
	switch op {
	case plan.OpEq:
		for i := range out {
			out[i] = a[i] == k
		}
	case plan.OpNe:
		for i := range out {
			out[i] = a[i] != k
		}
	case plan.OpLt:
		for i := range out {
			out[i] = a[i] < k
		}
	case plan.OpLe:
		for i := range out {
			out[i] = a[i] <= k
		}
	case plan.OpGt:
		for i := range out {
			out[i] = a[i] > k
		}
	case plan.OpGe:
		for i := range out {
			out[i] = a[i] >= k
		}
	}
}
