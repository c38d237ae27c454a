package expr

import "github.com/quiverdb/quiver/vector"

// The simple CASE over an INTEGER subject with constant INTEGER WHENs
// close together (CASE x % 3 WHEN 0 THEN … WHEN 1 THEN … END) numbers
// its rows by a table indexed by the subject's value less the smallest
// WHEN, in one pass over the batch instead of one comparison pass a
// WHEN: a value outside the WHENs' span, or a null subject, takes the
// ELSE.
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

// number sets idx[i] to the branch of row i of subj, an INTEGER vector;
// false when there is no table.
func (t *caseTable) number(idx []uint8, whens []Evaluator, subj *vector.Vector, n int) bool {
	if !t.built {
		t.build(whens)
	}
	if !t.ok || subj.Type != vector.Int64 {
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
