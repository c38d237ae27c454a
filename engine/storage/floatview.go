package storage

import (
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// FloatView is IntView's counterpart for a homogeneous FLOAT property
// column: one float64 per id over lo..n-1, with a validity bit per id
// when some of them have no value. It is built, cached, dropped on a
// write and paid for by demand exactly as an IntView (the two share the
// column's cache: a column is either all INTEGER or all FLOAT), so a
// factorized aggregate reads a FLOAT property's values by id without a
// chunk lookup.
type FloatView struct {
	lo, n uint64
	vals  []float64
	valid []uint64
}

// floatView returns c's dense float view after recording rows of
// demand; nil when c is not a homogeneous FLOAT column, is too sparse,
// or has not yet been read enough to pay for a build.
func (c *column) floatView(rows int) *FloatView {
	v, _ := c.floatViewParts(rows, serialParts)
	return v
}

// floatViewParts is floatView built in parts run by par (ForParts); the
// error is par's, and leaves nothing cached.
func (c *column) floatViewParts(rows int, par ForParts) (*FloatView, error) {
	if c == nil || c.typ() != vector.Float64 {
		return nil, nil
	}
	return cachedView(c, &c.cache.fview, rows, par, buildFloatView)
}

// buildFloatView makes the view of c (typ Float64), nil when its values
// fill less than half of their id span: a scan for the ids' span, then
// a copy of each chunk's values (parts: a leaf of groups each).
func buildFloatView(c *column, par ForParts) (*FloatView, error) {
	count := c.counts[vector.Float64]
	sc, err := scanTyped(c, vector.Float64, chunkF64, false, par)
	if err != nil {
		return nil, err
	}
	first, n := sc.first, sc.n
	if count == 0 || sc.found != count || uint64(count)*2 < n-first {
		return nil, nil
	}
	v := &FloatView{lo: first, n: n, vals: make([]float64, n-first)}
	if uint64(count) != n-first {
		v.valid = make([]uint64, (n-first+63)/64)
	}
	err = fillTyped(c, vector.Float64, chunkF64, first, v.valid, par, func(at uint64, xs []float64) {
		copy(v.vals[at:at+uint64(len(xs))], xs)
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func chunkF64(ch *chunk) []float64 { return ch.f64 }

// FloatSummary is the sum and count of a set of FLOAT values.
type FloatSummary struct {
	Sum float64
	N   int64
}

// Summarize adds the values of ids (ids without a value are skipped) to
// s in order, one typed loop: the same additions, in the same order, as
// a sum over the rows of those ids.
func (v *FloatView) Summarize(ids []uint64, s *FloatSummary) {
	sum, n := s.Sum, s.N
	first, nv := v.lo, uint64(len(v.vals))
	for _, id := range ids {
		x := id - first
		if x >= nv || v.valid != nil && v.valid[x>>6]&(1<<(x&63)) == 0 {
			continue
		}
		sum += v.vals[x]
		n++
	}
	s.Sum, s.N = sum, n
}

// Get returns id's value; ok is false when it has none.
func (v *FloatView) Get(id uint64) (x float64, ok bool) {
	if id < v.lo || id >= v.n {
		return 0, false
	}
	if id -= v.lo; v.valid != nil && v.valid[id>>6]&(1<<(id&63)) == 0 {
		return 0, false
	}
	return v.vals[id], true
}

// NodeFloatView is the float view of node property k, after recording
// rows of demand (see NodeIntView).
func (s *Snapshot) NodeFloatView(k catalog.KeyID, rows int) *FloatView {
	return s.nodeCol(k).floatView(rows)
}

// RelFloatView is NodeFloatView for a relationship property.
func (s *Snapshot) RelFloatView(k catalog.KeyID, rows int) *FloatView {
	return s.relCol(k).floatView(rows)
}

// NodeFloatView: see Snapshot.NodeFloatView.
func (tx *Tx) NodeFloatView(k catalog.KeyID, rows int) *FloatView {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodeFloatView(k, rows)
}

// RelFloatView: see Snapshot.RelFloatView.
func (tx *Tx) RelFloatView(k catalog.KeyID, rows int) *FloatView {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelFloatView(k, rows)
}

// floatSlotView is slotView for a FLOAT column: entry s is the value of
// the relationship base's slot s holds, so a clean list of base reads
// its values as one contiguous range (a projection's weights are then
// copied, not gathered relationship by relationship). Built in parts run
// by par, as the id-ordered view it is derived from; the error is par's.
func (c *column) floatSlotView(base *csr.CSR, rows int, par ForParts) (*FloatView, error) {
	if c == nil || base == nil || c.typ() != vector.Float64 {
		return nil, nil
	}
	if sv := c.cache.fslots.Load(); sv != nil { // first: see slotView
		for _, x := range *sv {
			if x.base == base {
				return x.view, nil
			}
		}
	}
	v, err := c.floatViewParts(rows, par)
	if v == nil {
		return nil, err
	}
	sv, err := buildFloatSlotView(v, base, par)
	if err != nil {
		return nil, err
	}
	old := c.cache.fslots.Load()
	next := floatSlotViews(withSlotView((*[]floatSlotView)(old), floatSlotView{base: base, view: sv, maxRel: maxRelID(base)}))
	c.cache.fslots.CompareAndSwap(old, &next)
	return sv, nil
}

// buildFloatSlotView lays v's values out in base's slot order
// (slotOrder).
func buildFloatSlotView(v *FloatView, base *csr.CSR, par ForParts) (*FloatView, error) {
	vals, valid, err := slotOrder(base, v.lo, v.vals, v.valid, par)
	if err != nil {
		return nil, err
	}
	return &FloatView{n: uint64(len(vals)), vals: vals, valid: valid}, nil
}

// Span is the values of ids from..from+len(dst)-1, written to dst; false
// (dst partly written) when one of them has no value or lies outside the
// view.
func (v *FloatView) Span(dst []float64, from uint64) bool {
	if from < v.lo || from+uint64(len(dst)) > v.n {
		return false
	}
	x := from - v.lo
	copy(dst, v.vals[x:x+uint64(len(dst))])
	return allValid(v.valid, x, uint64(len(dst)))
}

// RelFloatSlotView is the FLOAT counterpart of RelSlotView: relationship
// property k in the slot order of base, nil when RelFloatView(k, rows)
// is.
func (s *Snapshot) RelFloatSlotView(k catalog.KeyID, base *csr.CSR, rows int) *FloatView {
	v, _ := s.relCol(k).floatSlotView(base, rows, serialParts)
	return v
}

// RelFloatSlotViewParts is RelFloatSlotView built, when it is not cached
// yet, in parts run by par (see ForParts): on the caller's workers,
// with its stop checked between parts. The error is par's.
func (s *Snapshot) RelFloatSlotViewParts(k catalog.KeyID, base *csr.CSR, rows int, par ForParts) (*FloatView, error) {
	return s.relCol(k).floatSlotView(base, rows, par)
}

// RelFloatSlotView: see Snapshot.RelFloatSlotView.
func (tx *Tx) RelFloatSlotView(k catalog.KeyID, base *AdjacencyBase, rows int) *FloatView {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelFloatSlotView(k, base, rows)
}

// RelFloatSlotViewParts: see Snapshot.RelFloatSlotViewParts.
func (tx *Tx) RelFloatSlotViewParts(k catalog.KeyID, base *AdjacencyBase, rows int, par ForParts) (*FloatView, error) {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelFloatSlotViewParts(k, base, rows, par)
}
