package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// SelectNodePropCodes is the rows of a dictionary-code test in one pass:
// it appends to dst (which must have room for every candidate row) the
// rows r of sel (0..n-1 when sel is nil) whose node's string property k
// has a code c in dict with pass[c] = 1, reading each chunk's codes in
// id order without writing them out. A row without a value is not
// selected. clean is false, and dst is to be ignored, when some row has
// a value without a code in dict (an open chunk, a chunk coded with a
// dictionary of its own, a value of another type): the caller then takes
// GatherNodePropCodes for the batch. pass has one entry per string of
// dict.
func (s *Snapshot) SelectNodePropCodes(k catalog.KeyID, dict *StringDict, pass []uint8, ids *vector.Vector, sel []int32, n int, dst []int32) (out []int32, clean bool) {
	col := s.nodeCol(k)
	if col.typ() != vector.String || dict == nil || len(pass) < len(dict.Strs) || ids.Valid != nil {
		return dst, false
	}
	groups := &col.groups
	k0 := len(dst)
	dst = dst[:cap(dst)]
	w := k0
	cnt := count(sel, n)
	id := ids.IDs
	// The rows are taken a run at a time, a run being the rows whose ids
	// fall in one group: its chunk, validity bits and codes are looked up
	// once, and the loop over the run is a bit test, a code read and a
	// branch-free append.
	for i := 0; i < cnt; {
		r := int32(i)
		if sel != nil {
			r = sel[i]
		}
		g := id[r] >> groupShift
		c := groups.at(g)
		if c == nil { // no chunk: no value in the run
			for i < cnt && id[row(sel, i)]>>groupShift == g {
				i++
			}
			continue
		}
		valid := c.valid
		var codes []uint16
		if cc := c.stringCodes(); cc != nil && cc.dict == dict {
			codes = cc.codes
		}
		if codes != nil && len(pass) > 0 {
			i, w = selectCodes(id, sel, i, cnt, g, valid, codes, pass, dst, w)
			continue
		}
		// No codes in dict: clean only while the run holds no value.
		for ; i < cnt; i++ {
			x := id[row(sel, i)]
			if x>>groupShift != g {
				break
			}
			off := x & groupMask
			if valid[off>>3]&(1<<(off&7)) != 0 {
				return dst[:k0], false
			}
		}
	}
	return dst[:w], true
}

// selectCodes writes at dst[w:] the rows of sel (0..cnt-1 when nil) from
// i on whose node is in group g, holds a value, and whose code passes;
// it returns the first row of another group (cnt at the end) and the new
// w. Without a branch a row: every row is written, and w moves past it
// by its code's pass bit and validity bit (codes cover the whole group,
// a row without a value holding a code of dict, whose pass is not empty).
// The loop is written twice so that, without a selection, it reads no
// row number.
func selectCodes(id []uint64, sel []int32, i, cnt int, g uint64, valid []byte, codes []uint16, pass []uint8, dst []int32, w int) (int, int) {
	if sel == nil {
		for ; i < cnt; i++ {
			x := id[i]
			if x>>groupShift != g {
				break
			}
			off := x & groupMask
			dst[w] = int32(i)
			w += int(pass[codes[off]] & (valid[off>>3] >> (off & 7)) & 1)
		}
		return i, w
	}
	for ; i < cnt; i++ {
		r := sel[i]
		x := id[r]
		if x>>groupShift != g {
			break
		}
		off := x & groupMask
		dst[w] = r
		w += int(pass[codes[off]] & (valid[off>>3] >> (off & 7)) & 1)
	}
	return i, w
}

// row is the i-th row of a selection, i itself when sel is nil.
// count is the rows of sel, n without one.
func count(sel []int32, n int) int {
	if sel != nil {
		return len(sel)
	}
	return n
}

func row(sel []int32, i int) int32 {
	if sel == nil {
		return int32(i)
	}
	return sel[i]
}

// SelectNodePropCodes: see Snapshot.SelectNodePropCodes.
func (tx *Tx) SelectNodePropCodes(k catalog.KeyID, dict *StringDict, pass []uint8, ids *vector.Vector, sel []int32, n int, dst []int32) ([]int32, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().SelectNodePropCodes(k, dict, pass, ids, sel, n, dst)
}
