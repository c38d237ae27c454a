package exec

import (
	"slices"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// A join of the equi-join rule whose table holds one row (the one given
// node: MATCH (a {id: 42}), (b) WHERE b.age = a.age AND b.city = a.city)
// tests the join's further equalities (plan.HashJoin.Also) on the probe
// rows its key matched, before pairing them: each equality's built side
// is then one value, and a probe row whose value certainly differs from
// it (another value, no value) is dropped. The Filter above tests every
// equality again, so a row the join cannot tell about is kept. A STRING
// value is compared by dictionary code, as the code filter does
// (filter_codes.go); any other value by the table's key test
// (hashjoin_one.go). W36 of the wider suite at L matched 158,703 of 10M
// nodes by age and gathered their cities, and the given node's, in the
// Filter to keep 1,072.

// alsoKey is one of the join's further equalities.
type alsoKey struct {
	probe, build       plan.Expr // swapped with the sides (hashjoin_adaptive.go)
	probeEval, buildEv expr.Evaluator

	none bool       // the built value is null: no probe row passes
	test oneKeyTest // the built value's test
	// dict and code are the STRING value's dictionary and code in it
	// (-2: none), looked up when a batch's codes come in a new one.
	dict *storage.StringDict
	code int32
}

// newAlsoKeys compiles p's further equalities.
func newAlsoKeys(c *Context, p *plan.HashJoin) ([]alsoKey, error) {
	var keys []alsoKey
	for _, k := range p.Also {
		pe, err := compile(c, k.Left)
		if err != nil {
			return nil, err
		}
		be, err := compile(c, k.Right)
		if err != nil {
			return nil, err
		}
		keys = append(keys, alsoKey{probe: k.Left, build: k.Right, probeEval: pe, buildEv: be, code: -2})
	}
	return keys, nil
}

// swapAlso turns the further equalities round with the join's sides.
func (h *hashJoin) swapAlso() {
	for i := range h.also {
		a := &h.also[i]
		a.probe, a.build = a.build, a.probe
		a.probeEval, a.buildEv = a.buildEv, a.probeEval
	}
}

// prepareAlso evaluates each further equality's built side on the
// table's one row; false when the table holds more than one row, and
// the equalities are left to the Filter.
func (h *hashJoin) prepareAlso() (bool, error) {
	if h.alsoReady {
		return !h.alsoOff, nil
	}
	h.alsoReady, h.alsoOff = true, true
	if len(h.table) != 1 {
		return false, nil
	}
	if h.prepareOne(); len(h.oneRows) != 1 {
		return false, nil
	}
	row := []int32{h.oneRows[0]}
	b := &vector.Batch{Cols: make([]*vector.Vector, len(h.rcols)), Len: 1}
	for i, col := range h.rcols {
		if col.V == nil {
			b.Cols[i] = vector.New(vector.Null, 1)
			continue
		}
		b.Cols[i] = vector.New(col.V.Type, 1)
		vector.CopyRows(b.Cols[i], 0, col.V, row)
	}
	for i := range h.also {
		a := &h.also[i]
		v, err := a.buildEv.Eval(b)
		if err != nil {
			return false, err
		}
		if v.IsNull(0) {
			a.none = true
			continue
		}
		a.test = oneKeyTestOf(v.Get(0))
	}
	h.alsoOff = false
	return true, nil
}

// narrowAlso drops from lrows (and lmatch) the rows of b some further
// equality certainly fails.
func (h *hashJoin) narrowAlso(b *vector.Batch) error {
	if len(h.also) == 0 || len(h.lrows) == 0 {
		return nil
	}
	if ok, err := h.prepareAlso(); !ok || err != nil {
		return err
	}
	for i := range h.also {
		a := &h.also[i]
		if a.none {
			h.lrows, h.lmatch = h.lrows[:0], h.lmatch[:0]
			return nil
		}
		var err error
		if !h.narrowByCodes(a, b) {
			err = h.narrowByValues(a, b)
		}
		if err != nil || len(h.lrows) == 0 {
			return err
		}
	}
	return nil
}

// narrowByCodes keeps the rows whose STRING property has the built
// value's code, or, without a code in the batch's dictionary, the built
// value itself; false when the equality is not of a node's property with a
// STRING.
func (h *hashJoin) narrowByCodes(a *alsoKey, b *vector.Batch) bool {
	if a.test.strKind != oneEqual || h.c.Deleted.HasNodes() {
		return false
	}
	ids, k, ok := h.nodeProp(a.probe, b)
	if !ok {
		return false
	}
	h.alsoCodes = slices.Grow(h.alsoCodes[:0], b.Len)[:b.Len]
	dict, ok := h.c.Tx.GatherNodePropCodes(k, ids, h.lrows, len(h.lrows), h.alsoCodes)
	if !ok {
		return false
	}
	if dict != a.dict || dict == nil {
		a.dict, a.code = dict, -2
		if i := slices.Index(dictStrings(dict), a.test.s); i >= 0 {
			a.code = int32(i)
		}
	}
	h.c.Counters.DBHits += int64(len(h.lrows))
	// The rows without a code (an open chunk, a value written since the
	// base) read their values as strings: any other value comes back
	// null, never equal.
	codes, want := h.alsoCodes, a.code
	loose := h.alsoLoose[:0]
	for _, r := range h.lrows {
		if codes[r] == -1 {
			loose = append(loose, r)
		}
	}
	h.alsoLoose = loose
	var strs *vector.Vector
	if len(loose) > 0 {
		if h.alsoStrs == nil || len(h.alsoStrs.Str) < b.Len {
			h.alsoStrs = vector.New(vector.String, max(b.Len, vector.Capacity))
		}
		strs = h.alsoStrs
		strs.ResetNulls()
		h.c.Tx.GatherNodeProp(k, ids, loose, len(loose), strs)
	}
	h.keepRows(func(r int32) bool {
		c := codes[r]
		return c == want || c == -1 && !strs.IsNull(int(r)) && strs.Str[r] == a.test.s
	})
	return true
}

// narrowByValues evaluates the probe side on the rows and keeps those the
// built value's test cannot tell apart from it.
func (h *hashJoin) narrowByValues(a *alsoKey, b *vector.Batch) error {
	sub := vector.Batch{Cols: b.Cols, Len: b.Len, Sel: h.lrows}
	v, err := a.probeEval.Eval(&sub)
	if err != nil {
		return err
	}
	h.keepRows(func(r int32) bool {
		if v.IsNull(int(r)) {
			return false // null = x is never true
		}
		eq, known := a.test.equal(v, int(r))
		return eq || !known
	})
	return nil
}

// keepRows keeps the rows of lrows, and their matches, that keep says to.
func (h *hashJoin) keepRows(keep func(r int32) bool) {
	w := 0
	for i, r := range h.lrows {
		if keep(r) {
			h.lrows[w], h.lmatch[w] = r, h.lmatch[i]
			w++
		}
	}
	h.lrows, h.lmatch = h.lrows[:w], h.lmatch[:w]
}
