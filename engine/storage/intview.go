package storage

import (
	"math"
	"sync/atomic"

	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/vector"
)

// IntView is a dense read view of a homogeneous INTEGER property column:
// one array indexed by id over every id up to the highest holding a
// value, frame-of-reference encoded in the narrowest unsigned width the
// value range fits (age 18..80 is one byte per id, so a gather by a random
// neighbour id hits a 1 MiB array in L2 instead of chasing a group table,
// a chunk pointer, a validity byte and an 8-byte value).
//
//	IntView
//	  base    the smallest value; id's value is base + vals[id-lo]
//	  lo, n   the ids covered, lo..n-1: the lowest and one past the
//	          highest holding a value
//	  u8|u16|u32|u64  exactly one is set, len n-lo
//	  valid   one bit per id (bit id-lo), set when the id has a value;
//	          nil when every id of lo..n-1 has one (the usual bulk-loaded
//	          column)
//
// The ids start at lo, not 0, because a bulk load numbers each label's
// nodes, and each type's relationships, consecutively: a property of one
// label or type fills its own id range densely while spanning few of the
// others.
//
// A view is built from one immutable column version and cached on it
// (column.view); a writer that mutates a column in place (one it owns)
// drops the cached view in column.set, and a writer's copy of a shared
// column starts without one, so no reader ever sees a stale view. (The
// slot-ordered views, which hold only one CSR's relationships, are
// carried to the copy and dropped only by a write to one of those:
// slotview_cache.go.) It is
// built only for columns whose values fill at least half of their id
// span (lo..n-1), so it never takes more memory than the column's own int64 values,
// and only once the column has served about n/8 rows of gathers or
// comparisons since it was made (demand), so a point query never pays an
// O(ids) build.
type IntView struct {
	base  int64
	lo, n uint64
	u8    []uint8
	u16   []uint16
	u32   []uint32
	u64   []uint64
	valid []uint64
	// unique caches Unique: 0 not yet known, 1 yes, 2 no.
	unique atomic.Int32
}

// viewCache is the cached view of a column and the demand that decides
// when to build it. Its zero value is ready: no view, no demand.
type viewCache struct {
	view   atomic.Pointer[IntView]
	fview  atomic.Pointer[FloatView] // a FLOAT column's (floatview.go)
	demand atomic.Int64
	failed atomic.Bool // the column does not qualify; never try again
	slots  atomic.Pointer[slotViews]
	fslots atomic.Pointer[floatSlotViews] // a FLOAT column's (floatview.go)
	vview  atomic.Pointer[VectorView]     // a column of vectors' (vectorview.go)
	cview  atomic.Pointer[CodeView]       // a STRING column's codes (codeview.go)
}

// intView returns c's dense view after recording rows of demand; nil when
// c is not a homogeneous INTEGER column, is too sparse, or has not yet
// been read enough to pay for a build.
func (c *column) intView(rows int) *IntView {
	v, _ := c.intViewParts(rows, serialParts)
	return v
}

// intViewParts is intView built in parts run by par (ForParts); the
// error is par's, and leaves nothing cached.
func (c *column) intViewParts(rows int, par ForParts) (*IntView, error) {
	if c == nil || c.typ() != vector.Int64 {
		return nil, nil
	}
	return cachedView(c, &c.cache.view, rows, par, buildIntView)
}

// cachedView is the view in *slot, built by build (in parts run by par)
// once the column has served rows of demand worth an eighth of its id
// span; nil before that or when build refused the column (remembered:
// never tried again). The error is par's: the build was abandoned.
func cachedView[V any](c *column, slot *atomic.Pointer[V], rows int, par ForParts, build func(*column, ForParts) (*V, error)) (*V, error) {
	if v := slot.Load(); v != nil {
		return v, nil
	}
	if c.cache.failed.Load() {
		return nil, nil
	}
	span := int64(c.groups.len()) << groupShift
	if c.cache.demand.Add(int64(rows)) < span/8 {
		return nil, nil
	}
	v, err := build(c, par)
	if err != nil {
		return nil, err
	}
	if v == nil {
		c.cache.failed.Store(true)
		return nil, nil
	}
	if !slot.CompareAndSwap(nil, v) {
		return slot.Load(), nil
	}
	return v, nil
}

// dropView forgets the cached views a write of id changes: every
// id-ordered one, and the slot-ordered ones of CSRs holding a
// relationship numbered id or higher (slotview_cache.go); column.set
// calls it on every in-place write.
func (c *column) dropView(id uint64) {
	c.cache.vview.Store(nil)
	if c.cache.view.Load() != nil || c.cache.fview.Load() != nil || c.cache.cview.Load() != nil || c.cache.failed.Load() || c.cache.demand.Load() != 0 {
		c.cache.view.Store(nil)
		c.cache.fview.Store(nil)
		c.cache.cview.Store(nil)
		c.cache.failed.Store(false)
		c.cache.demand.Store(0)
	}
	c.cache.dropSlotViews(id)
}

// buildIntView makes the view of c (typ Int64), nil when its values fill
// less than half of the id span. A value is in its chunk's typed array,
// or in the side map of a chunk whose dominant type is another (one that
// held other values once): column type Int64 only says every value is an
// integer. Two passes, a leaf of groups a part each: the ids' span and
// the value range (which pick the width), then the values.
func buildIntView(c *column, par ForParts) (*IntView, error) {
	count := c.counts[vector.Int64]
	sc, err := scanTyped(c, vector.Int64, chunkI64, true, par)
	if err != nil {
		return nil, err
	}
	first, n := sc.first, sc.n // lowest and 1 + highest id with a value
	if count == 0 || sc.found != count || uint64(count)*2 < n-first {
		return nil, nil
	}
	v := &IntView{base: sc.lo, lo: first, n: n}
	if ids := n - first; uint64(count) != ids {
		v.valid = make([]uint64, (ids+63)/64)
	}
	switch span, ids := uint64(sc.hi-sc.lo), n-first; {
	case span <= math.MaxUint8:
		v.u8 = make([]uint8, ids)
		err = fillView(v, c, v.u8, par)
	case span <= math.MaxUint16:
		v.u16 = make([]uint16, ids)
		err = fillView(v, c, v.u16, par)
	case span <= math.MaxUint32:
		v.u32 = make([]uint32, ids)
		err = fillView(v, c, v.u32, par)
	default:
		v.u64 = make([]uint64, ids)
		err = fillView(v, c, v.u64, par)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

func chunkI64(ch *chunk) []int64 { return ch.i64 }

func fillView[T uint8 | uint16 | uint32 | uint64](v *IntView, c *column, dst []T, par ForParts) error {
	base := v.base
	return fillTyped(c, vector.Int64, chunkI64, v.lo, v.valid, par, func(at uint64, xs []int64) {
		d := dst[at : at+uint64(len(xs))]
		for i, x := range xs {
			d[i] = T(uint64(x - base))
		}
	})
}

// Len is one past the highest id the view covers: every id at or past it
// has no value (nor has any below its first id).
func (v *IntView) Len() uint64 { return v.n }

// Lo is the lowest id the view covers: every id below it has no value.
func (v *IntView) Lo() uint64 { return v.lo }

// Bytes is the view's memory.
func (v *IntView) Bytes() int {
	return len(v.u8) + 2*len(v.u16) + 4*len(v.u32) + 8*len(v.u64) + 8*len(v.valid)
}

// Width is the bytes per id of the encoded values (1, 2, 4 or 8).
func (v *IntView) Width() int {
	switch {
	case v.u8 != nil:
		return 1
	case v.u16 != nil:
		return 2
	case v.u32 != nil:
		return 4
	}
	return 8
}

// Get returns id's value; ok is false when it has none.
func (v *IntView) Get(id uint64) (x int64, ok bool) {
	if id < v.lo || id >= v.n {
		return 0, false
	}
	if id -= v.lo; v.valid != nil && v.valid[id>>6]&(1<<(id&63)) == 0 {
		return 0, false
	}
	switch {
	case v.u8 != nil:
		return v.base + int64(v.u8[id]), true
	case v.u16 != nil:
		return v.base + int64(v.u16[id]), true
	case v.u32 != nil:
		return v.base + int64(v.u32[id]), true
	}
	return v.base + int64(v.u64[id]), true
}

// unsignedRange maps the value range [lo, hi] to the view's encoded
// domain: encoded values e with e-from <= span (unsigned) are exactly the
// values in range. ok is false when no value of the view can be in range.
func (v *IntView) unsignedRange(lo, hi int64, max uint64) (from, span uint64, ok bool) {
	if lo > hi {
		return 0, 0, false
	}
	// Clamp to [base, base+max] without overflowing int64.
	top := v.base + int64(min(max, uint64(math.MaxInt64-v.base)))
	if hi < v.base || lo > top {
		return 0, 0, false
	}
	lo, hi = maxInt(lo, v.base), minInt(hi, top)
	return uint64(lo - v.base), uint64(hi - lo), true
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func minInt(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// slotView returns c's values laid out in the slot order of CSR base:
// entry s is the value of relationship base's slot s holds. A neighbour
// list of base is then a contiguous range of the view, read
// sequentially whatever the direction (relationship ids follow forward
// slots only). The view a base stored for base is there from the open
// (base_slots.go); any other is built from the id-ordered view, so only
// once that exists (see intView for demand), and cached per base, which
// is immutable like the column version, so neither can change under it.
// Both builds run in parts by par; the error is par's.
func (c *column) slotView(base *csr.CSR, rows int, par ForParts) (*IntView, error) {
	if c == nil || base == nil || c.typ() != vector.Int64 {
		return nil, nil
	}
	// First the cached one: a base's stored view is there from the open
	// (base_slots.go), without the id-ordered view.
	if sv := c.cache.slots.Load(); sv != nil {
		for _, x := range *sv {
			if x.base == base {
				return x.view, nil
			}
		}
	}
	v, err := c.intViewParts(rows, par)
	if v == nil {
		return nil, err
	}
	sv, err := buildSlotView(v, base, par)
	if err != nil {
		return nil, err
	}
	old := c.cache.slots.Load()
	next := slotViews(withSlotView((*[]slotView)(old), slotView{base: base, view: sv, maxRel: maxRelID(base)}))
	c.cache.slots.CompareAndSwap(old, &next)
	return sv, nil
}

// buildSlotView encodes v's values in base's slot order (slotOrder), with
// v's base and width (a slot's value is one of v's).
func buildSlotView(v *IntView, base *csr.CSR, par ForParts) (*IntView, error) {
	sv := &IntView{base: v.base}
	var valid []uint64
	var err error
	switch {
	case v.u8 != nil:
		sv.u8, valid, err = slotOrder(base, v.lo, v.u8, v.valid, par)
	case v.u16 != nil:
		sv.u16, valid, err = slotOrder(base, v.lo, v.u16, v.valid, par)
	case v.u32 != nil:
		sv.u32, valid, err = slotOrder(base, v.lo, v.u32, v.valid, par)
	default:
		sv.u64, valid, err = slotOrder(base, v.lo, v.u64, v.valid, par)
	}
	if err != nil {
		return nil, err
	}
	sv.n, sv.valid = uint64(base.NumEdges()), valid
	return sv, nil
}

// SpanFloat is FloatView.Span for an INTEGER view: the values of ids
// from..from+len(dst)-1 as floats, written to dst; false (dst partly
// written) when one of them has no value or lies outside the view. A
// projection reads INTEGER weights of a slot-ordered view (RelSlotView)
// with it, as it reads FLOAT ones.
func (v *IntView) SpanFloat(dst []float64, from uint64) bool {
	if from < v.lo || from+uint64(len(dst)) > v.n {
		return false
	}
	x := from - v.lo
	switch {
	case v.u8 != nil:
		spanFloat(dst, v.u8[x:x+uint64(len(dst))], v.base)
	case v.u16 != nil:
		spanFloat(dst, v.u16[x:x+uint64(len(dst))], v.base)
	case v.u32 != nil:
		spanFloat(dst, v.u32[x:x+uint64(len(dst))], v.base)
	default:
		spanFloat(dst, v.u64[x:x+uint64(len(dst))], v.base)
	}
	return allValid(v.valid, x, uint64(len(dst)))
}

// allValid reports whether the n rows from x all have a value in the
// validity bitmap valid (nil: every row has).
func allValid(valid []uint64, x, n uint64) bool {
	if valid == nil {
		return true
	}
	for y := x; y < x+n; y++ {
		if valid[y>>6]&(1<<(y&63)) == 0 {
			return false
		}
	}
	return true
}

func spanFloat[T uint8 | uint16 | uint32 | uint64](dst []float64, src []T, base int64) {
	dst = dst[:len(src)]
	for i, e := range src {
		dst[i] = float64(base + int64(e))
	}
}
