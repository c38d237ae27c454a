package storage

import (
	"math"

	"github.com/quiverdb/quiver/vector"
)

// Kernels of a top-k's bar (the executor's topk-bar): the rows whose value
// can still enter a top k, that is, sort no later than the k-th value so
// far. Unlike SelectRange, a row without a value may pass: a null sorts
// first descending, so it beats any bar there.

// SelectBar appends to dst (which must have room for every candidate
// row) the rows r of sel (0..n-1 when sel is nil) whose id has a value in
// [lo, hi], or has none (a null id, an id outside the view, an id whose
// validity bit is clear) when nulls is set; rows keep their order.
func (v *IntView) SelectBar(dst []int32, ids *vector.Vector, sel []int32, n int, lo, hi int64, nulls bool) []int32 {
	switch {
	case v.u8 != nil:
		return selectBar(v, v.u8, math.MaxUint8, dst, ids, sel, n, lo, hi, nulls)
	case v.u16 != nil:
		return selectBar(v, v.u16, math.MaxUint16, dst, ids, sel, n, lo, hi, nulls)
	case v.u32 != nil:
		return selectBar(v, v.u32, math.MaxUint32, dst, ids, sel, n, lo, hi, nulls)
	}
	return selectBar(v, v.u64, math.MaxUint64, dst, ids, sel, n, lo, hi, nulls)
}

func selectBar[T uint8 | uint16 | uint32 | uint64](v *IntView, vals []T, max uint64, dst []int32, ids *vector.Vector, sel []int32, n int, lo, hi int64, nulls bool) []int32 {
	from, span, ok := v.unsignedRange(lo, hi, max)
	if !ok && !nulls {
		return dst
	}
	f, s := T(from), T(span)
	nv, first := uint64(len(vals)), v.lo
	if ok && ids.Valid == nil && v.valid == nil {
		// The usual bulk-loaded column: every id of the view has a value,
		// one unsigned compare a row, appended without a branch.
		k := len(dst)
		dst = dst[:cap(dst)]
		test := func(r int32, x uint64) {
			if x -= first; x >= nv {
				if nulls {
					dst[k] = r
					k++
				}
				return
			}
			dst[k] = r
			k += in(vals[x]-f, s)
		}
		if sel == nil {
			for r, x := range ids.IDs[:n] {
				test(int32(r), x)
			}
		} else {
			for _, r := range sel {
				test(r, ids.IDs[r])
			}
		}
		return dst[:k]
	}
	test := func(r int) {
		var pass bool
		if ids.Valid != nil && !ids.Valid.IsValid(r) {
			pass = nulls
		} else if x := ids.IDs[r] - first; x >= nv || (v.valid != nil && v.valid[x>>6]&(1<<(x&63)) == 0) {
			pass = nulls
		} else {
			pass = ok && vals[x]-f <= s
		}
		if pass {
			dst = append(dst, int32(r))
		}
	}
	if sel == nil {
		for r := 0; r < n; r++ {
			test(r)
		}
	} else {
		for _, r := range sel {
			test(int(r))
		}
	}
	return dst
}

// SelectBar appends to dst the rows r of sel (0..n-1 when sel is nil)
// whose id's value sorts no later than bar in the order of a key sorted
// descending (desc) or ascending, NaN above every number as the sort
// orders it (0.0 and -0.0 equal), or has no value when nulls is set.
func (v *FloatView) SelectBar(dst []int32, ids *vector.Vector, sel []int32, n int, bar float64, desc, nulls bool) []int32 {
	nanBar := math.IsNaN(bar)
	if ids.Valid == nil && v.valid == nil {
		// The usual bulk-loaded column: no validity to read, one range
		// test and one compare a row.
		if sel == nil {
			for r, id := range ids.IDs[:n] {
				if v.barPass(id, bar, nanBar, desc, nulls) {
					dst = append(dst, int32(r))
				}
			}
			return dst
		}
		for _, r := range sel {
			if v.barPass(ids.IDs[r], bar, nanBar, desc, nulls) {
				dst = append(dst, r)
			}
		}
		return dst
	}
	pass := func(r int) bool {
		if ids.Valid != nil && !ids.Valid.IsValid(r) {
			return nulls
		}
		id := ids.IDs[r]
		if x := id - v.lo; id >= v.lo && id < v.n && v.valid != nil && v.valid[x>>6]&(1<<(x&63)) == 0 {
			return nulls
		}
		return v.barPass(id, bar, nanBar, desc, nulls)
	}
	if sel == nil {
		for r := range n {
			if pass(r) {
				dst = append(dst, int32(r))
			}
		}
		return dst
	}
	for _, r := range sel {
		if pass(int(r)) {
			dst = append(dst, r)
		}
	}
	return dst
}

// barPass is SelectBar's test of one id whose validity bit, if any, is
// set: an id outside the view has no value.
func (v *FloatView) barPass(id uint64, bar float64, nanBar, desc, nulls bool) bool {
	if id < v.lo || id >= v.n {
		return nulls
	}
	x := v.vals[id-v.lo]
	if desc {
		return x != x || x >= bar // nothing is >= a NaN bar
	}
	return x <= bar || nanBar
}
