package expr

import (
	"unsafe"

	"github.com/quiverdb/quiver/vector"
)

// The simple CASE over an INTEGER subject with constant INTEGER WHENs
// close together (CASE x % 3 WHEN 0 THEN … WHEN 1 THEN … END) numbers
// its rows by a table indexed by the subject's value less the smallest
// WHEN, in one pass over the batch instead of one comparison pass a
// WHEN: a value outside the WHENs' span, or a null subject, takes the
// ELSE.
//
// When the branches are constants and columns (placeColumns), a row's
// branch is looked up and its value gathered in the same pass.
//
// BenchmarkExpr/case-simple (two WHENs): the two comparison passes cost
// 1.8 ns a row, the table's one pass about 0.5.

// caseTableSpan bounds the span of the WHENs' values a table covers.
const caseTableSpan = 256

// caseTable is a simple CASE's table; built on first use.
type caseTable struct {
	built bool
	ok    bool
	lo    int64
	// tbl[v-lo] is the branch of subject value v, its last entry the
	// ELSE's (where a value past the span is clamped).
	tbl []uint8
}

// build makes the table of whens, or records that there is none: a WHEN
// is not an INTEGER constant, or the span is too wide.
func (t *caseTable) build(whens []Evaluator) {
	t.built = true
	var lo, hi int64
	for w, x := range whens {
		k, isConst := x.(*constEval)
		if !isConst {
			return
		}
		v, isInt := k.val.(int64)
		if !isInt {
			return
		}
		if w == 0 || v < lo {
			lo = v
		}
		if w == 0 || v > hi {
			hi = v
		}
	}
	if len(whens) == 0 || uint64(hi-lo) >= caseTableSpan {
		return
	}
	none := uint8(len(whens))
	t.tbl = make([]uint8, hi-lo+2)
	for i := range t.tbl {
		t.tbl[i] = none
	}
	for w := len(whens) - 1; w >= 0; w-- { // the first WHEN of a value wins
		t.tbl[whens[w].(*constEval).val.(int64)-lo] = uint8(w)
	}
	t.lo, t.ok = lo, true
}

// usable reports whether there is a table for whens and an INTEGER
// subject.
func (t *caseTable) usable(whens []Evaluator, subj *vector.Vector) bool {
	if !t.built {
		t.build(whens)
	}
	return t.ok && subj.Type == vector.Int64
}

// placeByTable is the dense CASE's numbering and place in one pass, for
// a subject without nulls whose table is usable and branches that
// placeColumns takes: each row's branch is looked up and its value
// gathered at once, with no branch number stored a row. It reports
// whether it could.
func (e *caseEval) placeByTable(out *vector.Vector, b *vector.Batch, subj *vector.Vector, n int) bool {
	if subj.Valid != nil {
		return false
	}
	srcs, k, nulls, ok := e.branchColumns(out, b, n)
	if !ok {
		return false
	}
	a := subj.I64[:n]
	switch out.Type {
	case vector.Int64:
		gatherTable(out, out.I64, &srcs, k, func(v *vector.Vector) []int64 { return v.I64 }, &e.table, a, nulls)
	case vector.Float64:
		gatherTable(out, out.F64, &srcs, k, func(v *vector.Vector) []float64 { return v.F64 }, &e.table, a, nulls)
	case vector.String:
		gatherTable(out, out.Str, &srcs, k, func(v *vector.Vector) []string { return v.Str }, &e.table, a, nulls)
	case vector.Bool:
		gatherTable(out, out.Bools, &srcs, k, func(v *vector.Vector) []bool { return v.Bools }, &e.table, a, nulls)
	default:
		return false
	}
	return true
}

// gatherTable is gatherRows with each row's branch looked up in t by
// the subject's value a. The hot loop reads through base pointers: each
// branch's column and the table are known long enough (a column has the
// batch's rows, an index into the table is clamped to its last entry),
// and the checks the compiler cannot drop on a slice picked a row cost
// a third of the loop.
func gatherTable[T int64 | float64 | string | bool](out *vector.Vector, dst []T, srcs *[caseBranches]*vector.Vector, k int,
	data func(*vector.Vector) []T, t *caseTable, a []int64, nulls bool) {
	// Indexed by a uint8, arrays of 256 need no check either; only the
	// first k entries are ever read (the table holds branches below k).
	var cols [256]unsafe.Pointer
	for w := range k {
		c := data(srcs[w])[:len(a)] // panics, as it should, on a short column
		cols[w] = unsafe.Pointer(unsafe.SliceData(c))
	}
	var zero T
	size := unsafe.Sizeof(zero)
	tbl, lo := unsafe.Pointer(unsafe.SliceData(t.tbl)), t.lo
	last := uint64(len(t.tbl) - 1)
	branch := func(x int64) uint8 { return *(*uint8)(unsafe.Add(tbl, min(uint64(x-lo), last))) }
	dst = dst[:len(a)]
	if !nulls {
		for i, x := range a {
			dst[i] = *(*T)(unsafe.Add(cols[branch(x)], uintptr(i)*size))
		}
		return
	}
	ow := validWords(out, len(a))
	var words [256]uint64 // each branch's validity over the 64 rows
	for base := 0; base < len(a); base += 64 {
		end := min(base+64, len(a))
		for w := range k {
			words[w] = ^uint64(0)
			if v := srcs[w].Valid; v != nil {
				words[w] = v[base>>6]
			}
		}
		var m uint64
		as, ds := a[base:end], dst[base:end]
		ds = ds[:len(as)]
		for j, x := range as {
			w := branch(x)
			ds[j] = *(*T)(unsafe.Add(cols[w], uintptr(base+j)*size))
			m |= words[w] & (1 << uint(j))
		}
		ow[base>>6] &= m
	}
}

// number sets idx[i] to the branch of row i of subj, an INTEGER vector;
// false when there is no table.
func (t *caseTable) number(idx []uint8, whens []Evaluator, subj *vector.Vector, n int) bool {
	if !t.usable(whens, subj) {
		return false
	}
	tbl, lo := t.tbl, t.lo
	last := uint64(len(tbl) - 1)
	a := subj.I64[:n]
	idx = idx[:n]
	if subj.Valid == nil {
		for i, x := range a {
			idx[i] = tbl[min(uint64(x-lo), last)]
		}
		return true
	}
	none := tbl[last]
	for i, x := range a {
		w := tbl[min(uint64(x-lo), last)]
		v := -uint8(subj.Valid[i>>6] >> (uint(i) & 63) & 1)
		idx[i] = none ^ (none^w)&v
	}
	return true
}
