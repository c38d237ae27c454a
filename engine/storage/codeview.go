package storage

import (
	"github.com/quiverdb/quiver/vector"
)

// CodeView is a dense read view of a STRING property column whose chunks
// are all coded in one dictionary (a base read back: dict.go): each id's
// code in one array indexed by id, one byte per id when the dictionary
// holds fewer than 255 strings, two otherwise. A gather by a random
// neighbour id then loads one byte of an array of a megabyte or two
// instead of finding the id's group, its chunk, its codes and its
// validity bit: GROUP BY a.city, b.city over 10M relationships reads the
// codes of 10M random neighbours.
//
// The view is built, cached and dropped as IntView is (intview.go): from
// one immutable column version, once the column has served an eighth of
// its id span of code gathers, and never for a column with a chunk of
// mixed types or strings in a side map, or a string the first coded
// chunk's dictionary does not hold. An open chunk (the last, partial
// group of a base read back; a chunk written since) and a chunk coded in
// a dictionary of its own are read through the view in the first's
// codes, where a gather without the view gives -1 (a value without a
// code in that dictionary).
type CodeView struct {
	dict  *StringDict
	lo, n uint64 // the ids covered, lo..n-1; every other id has no value
	// u8 or u16 (exactly one is set, len n-lo): id's code at id-lo, none
	// for no value.
	u8   []uint8
	u16  []uint16
	none uint16
}

// codeView returns c's code view after recording rows of demand; nil when
// c does not qualify or has not yet been read enough to pay for a build.
func (c *column) codeView(rows int) *CodeView {
	if c == nil || c.typ() != vector.String {
		return nil
	}
	v, _ := cachedView(c, &c.cache.cview, rows, serialParts, buildCodeView)
	return v
}

// buildCodeView makes the view of c, in the dictionary of its first coded
// chunk; nil when a chunk holds a string that dictionary does not (a
// chunk coded on its own, as a sealed small one is, has its codes
// translated, and an open chunk's strings are looked up), when the values
// fill less than half of the ids the chunks span, or when the dictionary
// leaves no code for none.
func buildCodeView(c *column, _ ForParts) (*CodeView, error) {
	v := &CodeView{lo: ^uint64(0)}
	values := 0
	for g, ch := range c.groups.all() {
		if ch.typ != vector.String || len(ch.side) != 0 {
			return nil, nil
		}
		if ch.sealed {
			x := ch.stringCodes()
			if x == nil {
				return nil, nil
			}
			if v.dict == nil {
				v.dict = x.dict
			}
		}
		at := uint64(g) << groupShift
		v.lo, v.n = min(v.lo, at), max(v.n, at+uint64(ch.rows()))
		values += int(ch.counts[vector.String])
	}
	if v.dict == nil || uint64(values)*2 < v.n-v.lo {
		return nil, nil
	}
	ok := false
	switch strs := len(v.dict.Strs); {
	case strs < 0xff:
		v.none, v.u8 = 0xff, make([]uint8, v.n-v.lo)
		ok = fillCodes(c, v, v.u8)
	case strs < 0xffff:
		v.none, v.u16 = 0xffff, make([]uint16, v.n-v.lo)
		ok = fillCodes(c, v, v.u16)
	}
	if !ok {
		return nil, nil
	}
	return v, nil
}

// fillCodes writes each chunk's codes in v's dictionary into dst, none
// where an id has no value; false when a string has no code there.
func fillCodes[T uint8 | uint16](c *column, v *CodeView, dst []T) bool {
	none := T(v.none)
	for i := range dst {
		dst[i] = none
	}
	trans := map[*StringDict][]T{} // another dictionary's codes in v.dict
	for g, ch := range c.groups.all() {
		d := dst[uint64(g)<<groupShift-v.lo:]
		if !ch.sealed {
			for r := range min(ch.rows(), len(ch.str)) {
				if bitAt(ch.valid, r) {
					code, ok := v.dict.Code(ch.str[r])
					if !ok {
						return false
					}
					d[r] = T(code)
				}
			}
			continue
		}
		x := ch.stringCodes()
		tr, ok := trans[x.dict]
		if !ok && x.dict != v.dict {
			tr = make([]T, len(x.dict.Strs))
			for i, str := range x.dict.Strs {
				code, ok := v.dict.Code(str)
				if !ok {
					return false
				}
				tr[i] = T(code)
			}
			trans[x.dict] = tr
		}
		for r := range min(ch.rows(), len(x.codes)) {
			if !bitAt(ch.valid, r) {
				continue
			}
			if code := x.codes[r]; tr != nil {
				d[r] = tr[code]
			} else {
				d[r] = T(code)
			}
		}
	}
	return true
}

// gather fills codes for the rows of sel (0..n-1 when nil) as gatherCodes
// does for a column of plain coded chunks: the id's code, or null for a
// null id or an id without a value.
func (v *CodeView) gather(ids *vector.Vector, sel []int32, n int, codes []int32, null int32) {
	if v.u8 != nil {
		gatherCodeView(v, v.u8, ids, sel, n, codes, null)
	} else {
		gatherCodeView(v, v.u16, ids, sel, n, codes, null)
	}
}

func gatherCodeView[T uint8 | uint16](v *CodeView, vals []T, ids *vector.Vector, sel []int32, n int, codes []int32, null int32) {
	lo, span, none := v.lo, uint64(len(vals)), T(v.none)
	id := ids.IDs
	code := func(r int32) {
		if x := id[r] - lo; x < span && vals[x] != none {
			codes[r] = int32(vals[x])
		} else {
			codes[r] = null
		}
	}
	if sel == nil {
		for r := range int32(n) {
			code(r)
		}
	} else {
		for _, r := range sel {
			code(r)
		}
	}
	if ids.Valid != nil {
		for i := range count(sel, n) {
			if r := row(sel, i); !ids.Valid.IsValid(int(r)) {
				codes[r] = null
			}
		}
	}
}
