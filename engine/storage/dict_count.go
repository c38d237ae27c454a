package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// CountNodePropCodes counts the nodes of ids lo..hi-1 whose string
// property k holds a value whose dictionary code passes: pass(dict) is,
// for each dictionary of the chunks met (one per column in an opened
// base), one byte per code of it, 1 where the value passes. A node
// without a value does not count. It reads each chunk's codes in id
// order in one loop without a branch a row, and writes nothing.
//
// The strings of an open chunk (the last, partly filled group of a
// bulk load) have no codes: each is tested with test. clean is false,
// and n to be ignored, when a node of the range holds a value of another
// type: the caller counts those rows some other way.
func (s *Snapshot) CountNodePropCodes(k catalog.KeyID, lo, hi uint64, pass func(*StringDict) []uint8, test func(string) bool) (n int64, clean bool) {
	return s.passingCodes(k, lo, hi, pass, test, nil)
}

// SelectNodePropCodesIn is CountNodePropCodes that also appends the ids
// it counts to dst, which must have room for hi-lo more, in order.
func (s *Snapshot) SelectNodePropCodesIn(k catalog.KeyID, lo, hi uint64, pass func(*StringDict) []uint8, test func(string) bool, dst []uint64) ([]uint64, bool) {
	_, clean := s.passingCodes(k, lo, hi, pass, test, &dst)
	return dst, clean
}

// passingCodes counts the passing nodes of lo..hi-1 and, with dst,
// appends their ids to *dst.
func (s *Snapshot) passingCodes(k catalog.KeyID, lo, hi uint64, pass func(*StringDict) []uint8, test func(string) bool, dst *[]uint64) (n int64, clean bool) {
	col := s.nodeCol(k)
	if lo >= hi {
		return 0, true
	}
	if col.typ() != vector.String {
		return 0, false
	}
	groups := &col.groups
	for g := lo >> groupShift; g <= (hi-1)>>groupShift; g++ {
		c := groups.at(g)
		if c == nil {
			continue // no chunk: no value
		}
		from, to := max(lo, g<<groupShift)-g<<groupShift, min(hi, (g+1)<<groupShift)-g<<groupShift
		if len(c.side) > 0 {
			for r := range c.side {
				if uint64(r) >= from && uint64(r) < to {
					return 0, false
				}
			}
		}
		cc := c.stringCodes()
		if cc == nil {
			switch {
			case c.typ == vector.String && !c.sealed:
				n += countOpen(c.str, c.valid, test, int(from), int(to), g<<groupShift, dst)
			case anyBit(c.valid, from, to):
				return 0, false
			}
			continue
		}
		if len(cc.dict.Strs) == 0 {
			continue // every row without a value
		}
		p := pass(cc.dict)
		if len(p) < len(cc.dict.Strs) {
			return 0, false
		}
		if dst != nil {
			var m int
			*dst, m = selectCodesIn(cc.codes[:GroupSize], c.valid, p, int(from), int(to), g<<groupShift, *dst)
			n += int64(m)
			continue
		}
		n += countCodes(cc.codes[:GroupSize], c.valid, p, int(from), int(to))
	}
	return n, true
}

// countCodes counts the rows from..to-1 whose validity bit is set and
// whose code passes; a row without a value holds some code of the
// dictionary, so every row is read.
func countCodes(codes []uint16, valid []byte, pass []uint8, from, to int) int64 {
	var n int
	for r := from; r < to; r++ {
		n += int(pass[codes[r]] & (valid[r>>3] >> (r & 7)) & 1)
	}
	return int64(n)
}

// selectCodesIn appends to dst (with room) the ids base+r of the rows r
// of from..to-1 that countCodes counts, and returns it and their number:
// every id is written, and kept by its row's bits.
func selectCodesIn(codes []uint16, valid []byte, pass []uint8, from, to int, base uint64, dst []uint64) ([]uint64, int) {
	w := len(dst)
	out := dst[:w+to-from]
	for r := from; r < to; r++ {
		out[w] = base + uint64(r)
		w += int(pass[codes[r]] & (valid[r>>3] >> (r & 7)) & 1)
	}
	return out[:w], w - len(dst)
}

// countOpen counts the rows from..to-1 of an open chunk's strings that
// hold a value passing test (rows past the strings have none), and with
// dst appends their ids (base+r) to *dst.
func countOpen(strs []string, valid []byte, test func(string) bool, from, to int, base uint64, dst *[]uint64) int64 {
	var n int64
	for r := from; r < min(to, len(strs)); r++ {
		if valid[r>>3]&(1<<(r&7)) != 0 && test(strs[r]) {
			n++
			if dst != nil {
				*dst = append(*dst, base+uint64(r))
			}
		}
	}
	return n
}

// anyBit reports whether a bit of from..to-1 is set in an Arrow-order
// bitmap.
func anyBit(b []byte, from, to uint64) bool {
	for r := from; r < to; r++ {
		if b[r>>3]&(1<<(r&7)) != 0 {
			return true
		}
	}
	return false
}

// SelectNodePropCodesIn: see Snapshot.SelectNodePropCodesIn.
func (tx *Tx) SelectNodePropCodesIn(k catalog.KeyID, lo, hi uint64, pass func(*StringDict) []uint8, test func(string) bool, dst []uint64) ([]uint64, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().SelectNodePropCodesIn(k, lo, hi, pass, test, dst)
}

// CountNodePropCodes: see Snapshot.CountNodePropCodes.
func (tx *Tx) CountNodePropCodes(k catalog.KeyID, lo, hi uint64, pass func(*StringDict) []uint8, test func(string) bool) (int64, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().CountNodePropCodes(k, lo, hi, pass, test)
}
