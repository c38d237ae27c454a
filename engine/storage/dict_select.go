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
	last := ^uint64(0)
	var codes []uint16 // the codes of group last, nil when it has none in dict
	var valid []byte   // its validity bits, nil when the group has no chunk
	test := func(r int32, id uint64) bool {
		if g := id >> groupShift; g != last {
			last, codes, valid = g, nil, nil
			if c := groups.at(g); c != nil {
				valid = c.valid
				if cc := c.stringCodes(); cc != nil && cc.dict == dict {
					codes = cc.codes
				}
			}
		}
		if valid == nil {
			return true // no chunk: no value
		}
		off := id & groupMask
		if valid[off>>3]&(1<<(off&7)) == 0 {
			return true
		}
		if codes == nil {
			return false
		}
		dst[w] = r
		w += int(pass[codes[off]])
		return true
	}
	if sel == nil {
		for r, id := range ids.IDs[:n] {
			if !test(int32(r), id) {
				return dst[:k0], false
			}
		}
	} else {
		for _, r := range sel {
			if !test(r, ids.IDs[r]) {
				return dst[:k0], false
			}
		}
	}
	return dst[:w], true
}

// SelectNodePropCodes: see Snapshot.SelectNodePropCodes.
func (tx *Tx) SelectNodePropCodes(k catalog.KeyID, dict *StringDict, pass []uint8, ids *vector.Vector, sel []int32, n int, dst []int32) ([]int32, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().SelectNodePropCodes(k, dict, pass, ids, sel, n, dst)
}
