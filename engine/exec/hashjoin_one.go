package exec

import (
	"math"
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// A hash join whose table holds one key (the equi-join of one given node
// with every other, MATCH (a {id: 42}), (b) WHERE b.age = a.age) tests
// each probe row of a typed INTEGER or STRING key column against that
// key's value directly instead of encoding the row's index key and
// comparing bytes: the encoding (storage.AppendIndexKey) maps INTEGERs
// one to one, a FLOAT of integral value below 2^53 as the INTEGER of that
// value, and STRINGs as themselves, so the comparison gives the same
// answer.

// matchView matches probe batch b against a table of one INTEGER key
// when the probe key is a node property with an integer view: the view
// selects the rows of that value (storage.IntView.SelectRange) without
// gathering every row's value first. viewed is false when it cannot,
// and the key is then evaluated.
func (h *hashJoin) matchView(b *vector.Batch) (viewed bool, err error) {
	if len(h.table) != 1 {
		return false, nil
	}
	if h.prepareOne(); h.one.intKind != oneEqual {
		return false, nil
	}
	ids, k, ok := h.nodeProp(h.lexpr, b)
	if !ok {
		return false, nil
	}
	view := h.c.Tx.NodeIntView(k, b.Rows())
	if view == nil {
		return false, nil
	}
	sel, n := rows(b)
	if err := h.c.CheckDeleted(ids, sel, n); err != nil {
		return true, err
	}
	h.c.Counters.DBHits += int64(b.Rows())
	h.lrows = view.SelectRange(slices.Grow(h.lrows[:0], b.Rows()), ids, sel, n, h.one.i, h.one.i)
	h.lmatch = h.lmatch[:0]
	for range h.lrows {
		h.lmatch = append(h.lmatch, h.oneRows)
	}
	return true, nil
}

// nodeProp is the node ids and key of e on b when e is a property of a
// node column of b whose key some value has; ok is false otherwise.
func (h *hashJoin) nodeProp(e plan.Expr, b *vector.Batch) (ids *vector.Vector, k catalog.KeyID, ok bool) {
	p, ok := e.(*plan.Property)
	if !ok {
		return nil, 0, false
	}
	ref, ok := p.Of.(*plan.ColRef)
	if !ok || ref.Idx >= len(b.Cols) || b.Cols[ref.Idx].Type != vector.Node {
		return nil, 0, false
	}
	k, ok = h.c.Catalog.LookupKey(p.Key)
	return b.Cols[ref.Idx], k, ok
}

// oneKeyTest compares probe rows with the table's one key.
type oneKeyTest struct {
	intKind int // oneNoMatch, oneEqual or oneUnknown for INTEGER rows
	strKind int // the same for STRING rows
	i       int64
	s       string
}

const (
	oneUnknown = iota // encode the row's key and compare bytes
	oneNoMatch        // no row of that type has the key
	oneEqual          // the row has the key when its value equals the test's
)

// oneKeyTestOf is the test for a table whose one key is v's.
func oneKeyTestOf(v vector.Value) oneKeyTest {
	switch x := v.(type) {
	case int64:
		return oneKeyTest{intKind: oneEqual, i: x, strKind: oneNoMatch}
	case float64:
		t := oneKeyTest{strKind: oneNoMatch}
		switch {
		case x != math.Trunc(x): // fractional, infinite or NaN: no INTEGER's key
			t.intKind = oneNoMatch
		case math.Abs(x) < 1<<53:
			t.intKind, t.i = oneEqual, int64(x)
		}
		return t
	case string:
		return oneKeyTest{intKind: oneNoMatch, strKind: oneEqual, s: x}
	case bool:
		return oneKeyTest{intKind: oneNoMatch, strKind: oneNoMatch}
	}
	return oneKeyTest{}
}

// equal reports whether row r of v (not null) has the key; known is false
// when the row's key must be encoded to tell.
func (t *oneKeyTest) equal(v *vector.Vector, r int) (eq, known bool) {
	switch v.Type {
	case vector.Int64:
		switch t.intKind {
		case oneEqual:
			return v.I64[r] == t.i, true
		case oneNoMatch:
			return false, true
		}
	case vector.String:
		switch t.strKind {
		case oneEqual:
			return v.Str[r] == t.s, true
		case oneNoMatch:
			return false, true
		}
	case vector.Any:
		switch x := v.Any[r].(type) {
		case int64:
			return t.intKind == oneEqual && x == t.i, t.intKind != oneUnknown
		case string:
			return t.strKind == oneEqual && x == t.s, t.strKind != oneUnknown
		}
	}
	return false, false
}
