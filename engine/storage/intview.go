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
// column starts without one, so no reader ever sees a stale view. It is
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
}

// intView returns c's dense view after recording rows of demand; nil when
// c is not a homogeneous INTEGER column, is too sparse, or has not yet
// been read enough to pay for a build.
func (c *column) intView(rows int) *IntView {
	if c == nil || c.typ() != vector.Int64 {
		return nil
	}
	return cachedView(c, &c.cache.view, rows, buildIntView)
}

// cachedView is the view in *slot, built by build once the column has
// served rows of demand worth an eighth of its id span; nil before that
// or when build refused the column (remembered: never tried again).
func cachedView[V any](c *column, slot *atomic.Pointer[V], rows int, build func(*column) *V) *V {
	if v := slot.Load(); v != nil {
		return v
	}
	if c.cache.failed.Load() {
		return nil
	}
	span := int64(c.groups.len()) << groupShift
	if c.cache.demand.Add(int64(rows)) < span/8 {
		return nil
	}
	v := build(c)
	if v == nil {
		c.cache.failed.Store(true)
		return nil
	}
	if !slot.CompareAndSwap(nil, v) {
		return slot.Load()
	}
	return v
}

// dropView forgets the cached view; column.set calls it on every in-place
// write.
func (c *column) dropView() {
	if c.cache.view.Load() != nil || c.cache.fview.Load() != nil || c.cache.failed.Load() || c.cache.demand.Load() != 0 {
		c.cache.view.Store(nil)
		c.cache.fview.Store(nil)
		c.cache.failed.Store(false)
		c.cache.demand.Store(0)
		c.cache.slots.Store(nil)
		c.cache.fslots.Store(nil)
	}
}

// buildIntView makes the view of c (typ Int64), nil when its values fill
// less than half of the id span. A value is in its chunk's typed array,
// or in the side map of a chunk whose dominant type is another (one that
// held other values once): column type Int64 only says every value is an
// integer.
func buildIntView(c *column) *IntView {
	count := c.counts[vector.Int64]
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var first, n uint64 = math.MaxUint64, 0 // lowest and 1 + highest id with a value
	var found int64
	eachInt(c, func(id uint64, x int64) {
		lo, hi = min(lo, x), max(hi, x)
		first, n = min(first, id), max(n, id+1)
		found++
	})
	if count == 0 || found != count || uint64(count)*2 < n-first {
		return nil
	}
	v := &IntView{base: lo, lo: first, n: n}
	if ids := n - first; uint64(count) != ids {
		v.valid = make([]uint64, (ids+63)/64)
	}
	switch span, ids := uint64(hi-lo), n-first; {
	case span <= math.MaxUint8:
		v.u8 = make([]uint8, ids)
		fillView(v, c, v.u8)
	case span <= math.MaxUint16:
		v.u16 = make([]uint16, ids)
		fillView(v, c, v.u16)
	case span <= math.MaxUint32:
		v.u32 = make([]uint32, ids)
		fillView(v, c, v.u32)
	default:
		v.u64 = make([]uint64, ids)
		fillView(v, c, v.u64)
	}
	return v
}

// eachInt calls fn for every integer value of c: the typed rows of
// Int64 chunks, then side values.
func eachInt(c *column, fn func(id uint64, x int64)) {
	eachTyped(c, vector.Int64, func(ch *chunk) []int64 { return ch.i64 }, fn)
}

// eachTyped calls fn for every value of type T (of vector type t) in c:
// the rows of the chunks whose typed array holds t, then side values.
func eachTyped[T int64 | float64](c *column, t vector.Type, vals func(*chunk) []T, fn func(id uint64, x T)) {
	for g, ch := range c.groups.all() {
		start := uint64(g) << groupShift
		if ch.typ == t {
			xs := vals(ch)
			rows := min(ch.rows(), len(xs))
			for r := 0; r < rows; r++ {
				if bitAt(ch.valid, r) {
					fn(start+uint64(r), xs[r])
				}
			}
		}
		for r, val := range ch.side {
			if x, ok := val.(T); ok {
				fn(start+uint64(r), x)
			}
		}
	}
}

func fillView[T uint8 | uint16 | uint32 | uint64](v *IntView, c *column, dst []T) {
	eachInt(c, func(id uint64, x int64) {
		id -= v.lo
		dst[id] = T(uint64(x - v.base))
		if v.valid != nil {
			v.valid[id>>6] |= 1 << (id & 63)
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

// slotViews are the slot-ordered views of a relationship column (see
// RelSlotView), at most maxSlotViews, newest first; immutable once
// published.
type slotViews []slotView

type slotView struct {
	base *csr.CSR
	view *IntView
}

// maxSlotViews bounds the slot-ordered views cached per column: one per
// direction of the one relationship type a property usually belongs to.
const maxSlotViews = 2

// slotView returns c's values laid out in the slot order of CSR base:
// entry s is the value of relationship base's slot s holds. A neighbour
// list of base is then a contiguous range of the view, read
// sequentially whatever the direction (relationship ids follow forward
// slots only). Built from the id-ordered view, so only once that exists
// (see intView for demand); cached per base, which is immutable like the
// column version, so neither can change under it.
func (c *column) slotView(base *csr.CSR, rows int) *IntView {
	v := c.intView(rows)
	if v == nil || base == nil {
		return nil
	}
	if sv := c.cache.slots.Load(); sv != nil {
		for _, x := range *sv {
			if x.base == base {
				return x.view
			}
		}
	}
	sv := buildSlotView(v, base)
	old := c.cache.slots.Load()
	next := slotViews{{base: base, view: sv}}
	if old != nil {
		next = append(next, (*old)[:min(len(*old), maxSlotViews-1)]...)
	}
	c.cache.slots.CompareAndSwap(old, &next)
	return sv
}

// buildSlotView encodes v's values in base's slot order, with v's base and
// width (a slot's value is one of v's).
func buildSlotView(v *IntView, base *csr.CSR) *IntView {
	n := uint64(base.NumEdges())
	sv := &IntView{base: v.base, n: n, valid: make([]uint64, (n+63)/64)}
	switch {
	case v.u8 != nil:
		sv.u8 = make([]uint8, n)
		fillSlots(v, v.u8, sv, sv.u8, base)
	case v.u16 != nil:
		sv.u16 = make([]uint16, n)
		fillSlots(v, v.u16, sv, sv.u16, base)
	case v.u32 != nil:
		sv.u32 = make([]uint32, n)
		fillSlots(v, v.u32, sv, sv.u32, base)
	default:
		sv.u64 = make([]uint64, n)
		fillSlots(v, v.u64, sv, sv.u64, base)
	}
	all := true
	for s := uint64(0); s < n && all; s++ {
		all = sv.valid[s>>6]&(1<<(s&63)) != 0
	}
	if all {
		sv.valid = nil
	}
	return sv
}

func fillSlots[T uint8 | uint16 | uint32 | uint64](v *IntView, src []T, sv *IntView, dst []T, base *csr.CSR) {
	for s := range uint64(base.NumEdges()) {
		if rel := base.SlotRel(s) - v.lo; rel < uint64(len(src)) && (v.valid == nil || v.valid[rel>>6]&(1<<(rel&63)) != 0) {
			dst[s] = src[rel]
			sv.valid[s>>6] |= 1 << (s & 63)
		}
	}
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
