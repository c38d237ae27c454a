package expr

import (
	"encoding/binary"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// The dense form of CASE. When every WHEN is cheap (comparisons, logic
// and arithmetic over columns, constants and properties), evaluating
// each over the whole batch costs less than cutting the batch into the
// rows each WHEN still decides: the WHENs run one after the other over
// all the rows, each row keeps the number of its first true WHEN (a
// byte), and the THENs are then placed by that number, a constant by a
// table lookup, an input column selected over the whole batch
// (case_columns.go), anything else on the rows it decides only (a THEN
// may fail where it is not taken: CASE WHEN x = 0 THEN 0 ELSE 1 / x
// END). A WHEN
// that fails, or gives no boolean, may have failed on a row an earlier
// WHEN took: the batch is then evaluated again in the lazy form, which
// decides whether the statement fails, as it always did.
//
// BenchmarkExpr/case (two WHENs over an INTEGER column, constant
// strings; bench/RESULTS-expr.md): 25 ns a row in the lazy form as it
// was, 4.2 dense; in a later run, 3.1 with a row's branch an int32 set
// a row at a time after testing it, 1.7 as a byte set eight rows a word.

// denseCaseNodes bounds the size of a WHEN evaluated densely, and
// denseCaseWhens their number: a large WHEN, or one of many, is rather
// evaluated on the rows still undecided when it comes.
const (
	denseCaseNodes = 16
	denseCaseWhens = 8
)

// cheapWhen reports whether e can be evaluated over every row of a batch
// at about the cost of a comparison: no calls but the string and IN
// operators, no subqueries, a few nodes.
func cheapWhen(e plan.Expr) bool {
	nodes, cheap := 0, true
	plan.Walk(e, func(x plan.Expr) {
		nodes++
		switch x := x.(type) {
		case *plan.ColRef, *plan.Const, *plan.Param, *plan.Property, *plan.Binary,
			*plan.Not, *plan.Neg, *plan.IsNull, *plan.HasLabels:
		case *plan.Call:
			switch x.Name {
			case functions.OpIn, functions.OpStartsWith, functions.OpEndsWith, functions.OpContains:
			default:
				cheap = false
			}
		default:
			cheap = false
		}
	})
	return cheap && nodes <= denseCaseNodes
}

// evalDense is the dense form; ok is false when the batch must be
// evaluated lazily instead (a WHEN failed or gave no boolean, or a
// simple CASE compares values of other than one typed kind). The WHENs
// are evaluated last to first, each setting its number on the rows
// where it holds: what a row keeps is its first true WHEN, with no test
// of what an earlier one decided. The order is the lazy form's business
// only: a WHEN evaluated densely cannot fail the statement.
func (e *caseEval) evalDense(b *vector.Batch, out, subj *vector.Vector) (ok bool, err error) {
	s := e.slot()
	sel, n := rows(b)
	if len(e.idx) < n {
		e.idx = make([]uint8, max(n, vector.Capacity))
		s.t.charge(int64(len(e.idx)))
	}
	idx := e.idx[:n]
	if e.simple && e.table.usable(e.whens, subj) && e.placeByTable(out, b, subj, n) {
		return true, nil
	}
	if e.simple && e.table.number(idx, e.whens, subj, n) {
		return true, e.place(out, b, sel, idx)
	}
	none := uint8(len(e.whens)) // the ELSE
	for i := range idx {
		idx[i] = none
	}
	for w := len(e.whens) - 1; w >= 0; w-- {
		if k, isConst := e.whens[w].(*constEval); isConst && e.simple && setEqualConst(idx, uint8(w), subj, k.val, n) {
			continue
		}
		cond, err := e.whens[w].Eval(b)
		if err != nil {
			return false, nil
		}
		if !e.simple {
			if cond.Type != vector.Bool {
				return false, nil
			}
			setTrue(idx, uint8(w), cond.Bools[:n], cond.Valid)
			continue
		}
		if !setEqual(idx, uint8(w), subj, cond, n) {
			return false, nil
		}
	}
	return true, e.place(out, b, sel, idx)
}

// setTrue sets idx[i] to w where the condition is true (not false, not
// null). The loops have no branch on the data: the conditions of a CASE
// are as good as random to a branch predictor.
func setTrue(idx []uint8, w uint8, bools []bool, valid vector.Validity) {
	bs := boolBytes(bools)
	idx = idx[:len(bs)]
	// Eight rows a word: a true row's byte of the mask is 0xff.
	ws := uint64(w) * 0x0101010101010101
	i := 0
	for ; i+8 <= len(bs); i += 8 {
		t := binary.LittleEndian.Uint64(bs[i:])
		if valid != nil {
			t &= spreadBits(valid[i>>6] >> uint(i&63) & 0xff)
		}
		x := binary.LittleEndian.Uint64(idx[i:])
		binary.LittleEndian.PutUint64(idx[i:], x^(x^ws)&(t*0xff))
	}
	for ; i < len(bs); i++ {
		x := idx[i]
		v := uint8(b2i(valid.IsValid(i)))
		idx[i] = x ^ (x^w)&-(bs[i]&v)
	}
}

// setEqual sets idx[i] to w where the simple CASE's subject equals the
// WHEN value, both non-null; false when the two are not of one typed
// kind.
func setEqual(idx []uint8, w uint8, subj, cond *vector.Vector, n int) bool {
	if subj.Type != cond.Type {
		return false
	}
	sv, cv := subj.Valid, cond.Valid
	switch subj.Type {
	case vector.Int64:
		setEq(idx, w, subj.I64[:n], cond.I64[:n], sv, cv)
	case vector.String:
		setEq(idx, w, subj.Str[:n], cond.Str[:n], sv, cv)
	case vector.Float64:
		setEq(idx, w, subj.F64[:n], cond.F64[:n], sv, cv)
	case vector.Bool:
		setEq(idx, w, subj.Bools[:n], cond.Bools[:n], sv, cv)
	default:
		return false
	}
	return true
}

// setEqualConst is setEqual against a constant WHEN value of the
// subject's typed kind, without a vector of it; false for other kinds.
func setEqualConst(idx []uint8, w uint8, subj *vector.Vector, k vector.Value, n int) bool {
	switch x := k.(type) {
	case int64:
		if subj.Type == vector.Int64 {
			setEqK(idx, w, subj.I64[:n], x, subj.Valid)
			return true
		}
	case string:
		if subj.Type == vector.String {
			setEqK(idx, w, subj.Str[:n], x, subj.Valid)
			return true
		}
	}
	return false
}

func setEqK[T int64 | string](idx []uint8, w uint8, a []T, k T, valid vector.Validity) {
	idx = idx[:len(a)]
	if valid == nil {
		for i := range a {
			x := idx[i]
			idx[i] = x ^ (x^w)&-uint8(b2i(a[i] == k))
		}
		return
	}
	for i := range a {
		x := idx[i]
		v := uint8(valid[i>>6]>>(uint(i)&63)) & 1
		idx[i] = x ^ (x^w)&-(uint8(b2i(a[i] == k))&v)
	}
}

func setEq[T int64 | float64 | string | bool](idx []uint8, w uint8, a, c []T, av, cv vector.Validity) {
	idx = idx[:len(a)]
	c = c[:len(a)]
	if av == nil && cv == nil {
		for i := range a {
			x := idx[i]
			idx[i] = x ^ (x^w)&-uint8(b2i(a[i] == c[i]))
		}
		return
	}
	// A match on a null row is no match.
	for i := range a {
		x := idx[i]
		v := uint8(b2i(av.IsValid(i) && cv.IsValid(i)))
		idx[i] = x ^ (x^w)&-(uint8(b2i(a[i] == c[i]))&v)
	}
}

// place writes each selected row's branch into out: a table lookup when
// every branch is a constant of out's type, else each branch on its rows.
func (e *caseEval) place(out *vector.Vector, b *vector.Batch, sel []int32, idx []uint8) error {
	if e.placeConsts(out, idx) || e.placeColumns(out, b, idx) {
		return nil
	}
	// Rows are grouped by branch in one pass (a counting sort, which
	// keeps each branch's rows in order), and each branch computed on
	// its group.
	k := len(e.whens) + 1
	if cap(e.starts) < k+1 {
		e.starts = make([]int, k+1)
	}
	starts := e.starts[:k+1]
	clear(starts)
	sorted := e.slot().sel(1)
	if sel == nil {
		for _, w := range idx {
			starts[w+1]++
		}
	} else {
		for _, r := range sel {
			starts[idx[r]+1]++
		}
	}
	for w := 1; w <= k; w++ {
		starts[w] += starts[w-1]
	}
	sorted = sorted[:starts[k]]
	next := e.next[:0]
	for _, x := range starts[:k] {
		next = append(next, int32(x))
	}
	e.next = next
	if sel == nil {
		for r, w := range idx {
			sorted[next[w]] = int32(r)
			next[w]++
		}
	} else {
		for _, r := range sel {
			w := idx[r]
			sorted[next[w]] = r
			next[w]++
		}
	}
	for w := range k {
		branch := e.els
		if w < len(e.whens) {
			branch = e.thens[w]
		}
		if err := e.fill(out, branch, b, sorted[starts[w]:starts[w+1]]); err != nil {
			return err
		}
	}
	return nil
}

// placeConsts is place when every branch is a constant of out's type (or
// null); it reports whether they were.
func (e *caseEval) placeConsts(out *vector.Vector, idx []uint8) bool {
	k := len(e.whens) + 1
	vals := e.constVals[:0]
	for w := range k {
		branch := e.els
		if w < len(e.whens) {
			branch = e.thens[w]
		}
		c, isConst := branch.(*constEval)
		if !isConst || (c.t != out.Type && c.t != vector.Null) {
			return false
		}
		vals = append(vals, c.val)
	}
	e.constVals = vals
	switch out.Type {
	case vector.Int64:
		placeTable(out.I64, idx, vals)
	case vector.Float64:
		placeTable(out.F64, idx, vals)
	case vector.String:
		placeTable(out.Str, idx, vals)
	case vector.Bool:
		placeTable(out.Bools, idx, vals)
	default:
		return false
	}
	for w, v := range vals {
		if v != nil {
			continue
		}
		for i, x := range idx {
			if x == uint8(w) {
				out.SetNull(i)
			}
		}
	}
	return true
}

// placeTable sets dst[i] to the constant of branch idx[i] (its zero for
// a null branch, whose rows are then made null).
func placeTable[T int64 | float64 | string | bool](dst []T, idx []uint8, vals []vector.Value) {
	var tbl [8]T
	table := tbl[:0]
	if len(vals) > len(tbl) {
		table = make([]T, 0, len(vals))
	}
	for _, v := range vals {
		x, _ := v.(T)
		table = append(table, x)
	}
	dst = dst[:len(idx)]
	for i, w := range idx {
		dst[i] = table[w]
	}
}
