package expr

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// arithEval implements + - * / % ^. INTEGER with INTEGER stays INTEGER and
// fails on overflow; any FLOAT operand makes the result FLOAT; other
// combinations (strings, lists, generic values) go row by row.
type arithEval struct {
	output
	c    *Env
	op   byte
	l, r Evaluator
	out  *vector.Vector
	// t is the plan's type of the expression.
	t vector.Type
	// div is the last constant divisor's multiplication.
	div divisor
}

func (e *arithEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	l, err := e.l.Eval(b)
	if err != nil {
		return nil, err
	}
	if k, isConst := e.r.(*constEval); isConst && e.op != '^' {
		done := false
		switch x := k.val.(type) {
		case int64:
			if l.Type == vector.Int64 {
				done = e.intsConst(l, x, n)
			} else if l.Type == vector.Float64 {
				done = e.floatsConst(l, float64(x), n)
			}
		case float64:
			done = isNumeric(l.Type) && e.floatsConst(l, x, n)
		}
		if done {
			copyNulls(e.out, l, sel, n)
			return e.out, nil
		}
	}
	r, err := e.r.Eval(b)
	if err != nil {
		return nil, err
	}
	lt, rt := l.Type, r.Type
	switch {
	case lt == vector.Null || rt == vector.Null:
		return NullVector, nil
	case lt == vector.Int64 && rt == vector.Int64 && e.op != '^':
		e.out = e.vec(vector.Int64, n)
		if err := e.ints(l, r, sel, n); err != nil {
			return nil, err
		}
	case isNumeric(lt) && isNumeric(rt):
		lf, rf := l.F64, r.F64
		if lt == vector.Int64 {
			lf = widen(e.temp(0, vector.Float64, n), l, n).F64
		}
		if rt == vector.Int64 {
			rf = widen(e.temp(1, vector.Float64, n), r, n).F64
		}
		e.out = e.vec(vector.Float64, n)
		floatKernel(e.op, e.out.F64, lf, rf, n)
	case lt == vector.String && rt == vector.String && e.op == '+':
		if err := e.concat(l, r, sel, n); err != nil {
			return nil, err
		}
	default:
		return e.generic(l, r, sel, n)
	}
	mergeNulls(e.out, l, r, sel, n)
	return e.out, nil
}

// concat is + over two STRING vectors: the batch's results are built in
// one buffer, one allocation a batch rather than one a row (the strings
// cut from it keep it whole while any of them lives), after reserving
// what the row path reserves.
func (e *arithEval) concat(l, r *vector.Vector, sel []int32, n int) error {
	size := 0
	forSel(sel, n, func(i int) { size += len(l.Str[i]) + len(r.Str[i]) })
	if e.c.Mem.Active() {
		var need int64
		forSel(sel, n, func(i int) { need += concatBytes(l, r, i) })
		if err := e.c.Mem.Reserve(need); err != nil {
			return err
		}
	}
	// The output is typed only where the plan types the sum STRING: a
	// typed vector names the result column's type (resultColumns), which
	// the row path's generic output leaves ANY.
	e.out = e.vec(outType(e.t), n)
	out := e.out
	buf := make([]byte, 0, size)
	forSel(sel, n, func(i int) {
		at := len(buf)
		buf = append(append(buf, l.Str[i]...), r.Str[i]...)
		s := unsafe.String(unsafe.SliceData(buf[at:]), len(buf)-at)
		if out.Type == vector.String {
			out.Str[i] = s
		} else {
			out.Any[i] = s
		}
	})
	return nil
}

func isNumeric(t vector.Type) bool { return t == vector.Int64 || t == vector.Float64 }

// ints is the INTEGER kernel. It computes every row of the batch densely
// and only flags trouble (overflow, division by zero); a flagged batch is
// then checked row by row, because the flag may come from an unselected
// or null row whose slot holds garbage.
func (e *arithEval) ints(l, r *vector.Vector, sel []int32, n int) error {
	out, a, b := e.out.I64[:n], l.I64[:n], r.I64[:n]
	b = b[:len(a)]
	// The overflow checks accumulate into ovf without a branch a row:
	// its sign (+ and -) or any bit (*) flags the batch.
	var ovf int64
	bad := false
	switch e.op {
	case '+':
		for i := range out {
			s := a[i] + b[i]
			ovf |= (a[i] ^ s) & (b[i] ^ s)
			out[i] = s
		}
		bad = ovf < 0
	case '-':
		for i := range out {
			d := a[i] - b[i]
			ovf |= (a[i] ^ b[i]) & (a[i] ^ d)
			out[i] = d
		}
		bad = ovf < 0
	case '*':
		for i := range out {
			p, o := mulOverflow(a[i], b[i])
			ovf |= o
			out[i] = p
		}
		bad = ovf != 0
	case '/', '%':
		for i := range out {
			if b[i] == 0 || (b[i] == -1 && a[i] == math.MinInt64) {
				bad = true
				continue
			}
			if e.op == '/' {
				out[i] = a[i] / b[i]
			} else {
				out[i] = a[i] % b[i]
			}
		}
	}
	if !bad {
		return nil
	}
	var failed error
	vector.ForRows(sel, n, func(i int) {
		if failed != nil || l.IsNull(i) || r.IsNull(i) {
			return
		}
		v, err := functions.ArithInt(e.op, a[i], b[i])
		if err != nil {
			failed = err
			return
		}
		out[i] = v.(int64)
	})
	return failed
}

// divisor is the constant divisor k as a multiplication (divisor.go),
// derived at the first batch; false when k has none.
func (e *arithEval) divisor(k int64) (divisor, bool) {
	if e.div.d != k {
		v, ok := newDivisor(k)
		if !ok {
			return divisor{}, false
		}
		e.div = v
	}
	return e.div, true
}

// mulOverflow returns x*y, wrapped, and a value other than 0 when the
// product overflows: the high word of the signed 128-bit product differs
// from the low word's sign. No division, no branch.
func mulOverflow(x, y int64) (int64, int64) {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	shi := int64(hi) - (x>>63)&y - (y>>63)&x
	return int64(lo), shi ^ int64(lo)>>63
}

// intsConst is the INTEGER kernel against a constant, which needs no
// vector of its own; false when some row may overflow (the general
// kernel then finds the row and its error).
func (e *arithEval) intsConst(l *vector.Vector, k int64, n int) bool {
	e.out = e.vec(vector.Int64, n)
	out, a := e.out.I64[:n], l.I64[:n]
	var ovf int64 // as in ints
	bad := false
	switch e.op {
	case '+':
		for i, x := range a {
			s := x + k
			ovf |= (x ^ s) & (k ^ s)
			out[i] = s
		}
		bad = ovf < 0
	case '-':
		for i, x := range a {
			d := x - k
			ovf |= (x ^ k) & (x ^ d)
			out[i] = d
		}
		bad = ovf < 0
	case '*':
		// x*k is monotonic in x, so the batch overflows only if its
		// smallest or largest x does: two checks a batch, not one a row.
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i, x := range a {
			out[i] = x * k
			lo = min(lo, x)
			hi = max(hi, x)
		}
		if len(a) > 0 {
			_, o1 := mulOverflow(lo, k)
			_, o2 := mulOverflow(hi, k)
			bad = o1|o2 != 0
		}
	case '/':
		if k == 0 || k == -1 {
			return false
		}
		if v, ok := e.divisor(k); ok && v.plain() {
			for i, x := range a {
				out[i] = v.quoPlain(x)
			}
			break
		} else if ok {
			for i, x := range a {
				out[i] = v.quo(x)
			}
			break
		}
		for i, x := range a {
			out[i] = x / k
		}
	case '%':
		if k == 0 || k == -1 {
			return false
		}
		if v, ok := e.divisor(k); ok && v.plain() {
			for i, x := range a {
				out[i] = v.remPlain(x)
			}
			break
		} else if ok {
			for i, x := range a {
				out[i] = v.rem(x)
			}
			break
		}
		for i, x := range a {
			out[i] = x % k
		}
	default:
		return false
	}
	return !bad
}

// floatsConst is the FLOAT kernel of an INTEGER or FLOAT column against
// a constant: no vector for the constant, none for the widened column.
func (e *arithEval) floatsConst(l *vector.Vector, k float64, n int) bool {
	e.out = e.vec(vector.Float64, n)
	out := e.out.F64[:n]
	if l.Type == vector.Int64 {
		a := l.I64[:n]
		switch e.op {
		case '+':
			for i, x := range a {
				out[i] = float64(x) + k
			}
		case '-':
			for i, x := range a {
				out[i] = float64(x) - k
			}
		case '*':
			for i, x := range a {
				out[i] = float64(x) * k
			}
		case '/':
			for i, x := range a {
				out[i] = float64(x) / k
			}
		default:
			return false
		}
		return true
	}
	a := l.F64[:n]
	switch e.op {
	case '+':
		for i, x := range a {
			out[i] = x + k
		}
	case '-':
		for i, x := range a {
			out[i] = x - k
		}
	case '*':
		for i, x := range a {
			out[i] = x * k
		}
	case '/':
		for i, x := range a {
			out[i] = x / k
		}
	default:
		return false
	}
	return true
}

func floatKernel(op byte, out, a, b []float64, n int) {
	out, a, b = out[:n], a[:n], b[:n]
	switch op {
	case '+':
		for i := range out {
			out[i] = a[i] + b[i]
		}
	case '-':
		for i := range out {
			out[i] = a[i] - b[i]
		}
	case '*':
		for i := range out {
			out[i] = a[i] * b[i]
		}
	case '/':
		for i := range out {
			out[i] = a[i] / b[i]
		}
	default:
		for i := range out {
			out[i] = functions.ArithFloat(op, a[i], b[i])
		}
	}
}

// generic is the row-by-row path for strings, lists and mixed columns.
func (e *arithEval) generic(l, r *vector.Vector, sel []int32, n int) (*vector.Vector, error) {
	if e.op == '+' && e.c.Mem.Active() {
		// Concatenation can double a value per step (reduce(s = 'x', …
		// | s + s)): reserve what the batch builds before building it.
		var need int64
		vector.ForRows(sel, n, func(i int) { need += concatBytes(l, r, i) })
		if err := e.c.Mem.Reserve(need); err != nil {
			return nil, err
		}
	}
	e.out = e.vec(vector.Any, n)
	out := e.out
	var failed error
	vector.ForRows(sel, n, func(i int) {
		if failed != nil {
			return
		}
		v, err := functions.ArithValues(e.op, l.Get(i), r.Get(i))
		if err != nil {
			failed = err
			return
		}
		out.Set(i, v)
	})
	if failed != nil {
		if _, ok := errs.As(failed); !ok {
			failed = errs.Data("%v", failed)
		}
		return nil, failed
	}
	return out, nil
}

// concatBytes estimates what row i of l + r builds when it concatenates
// strings or lists, and 0 otherwise. It reads the typed slices: boxing
// each value to look at it would cost an allocation a row.
func concatBytes(l, r *vector.Vector, i int) int64 {
	sl, cl := cellSize(l, i)
	sr, cr := cellSize(r, i)
	if !cl && !cr {
		return 0
	}
	return memory.SliceBytes + sl + sr
}

// cellSize is the bytes row i of v adds to a concatenation, and whether
// it is a string or a list.
func cellSize(v *vector.Vector, i int) (int64, bool) {
	switch v.Type {
	case vector.String:
		return int64(len(v.Str[i])), true
	case vector.Any:
		switch x := v.Any[i].(type) {
		case string:
			return int64(len(x)), true
		case []vector.Value:
			return int64(len(x)) * memory.IfaceBytes, true
		}
	}
	return memory.IfaceBytes, false
}
