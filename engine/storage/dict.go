package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// Dictionary codes of string chunks: grouping and DISTINCT on a string
// property compare small integers instead of hashing strings (on GROUP BY
// p.city over 1M nodes, 28 ms of string hashing become a table load per
// row).
//
//	StringDict   Strs []string: code → string, never changed once built
//	chunk.codes  *chunkCodes, set only on sealed String chunks:
//	               dict   the StringDict the codes index
//	               codes  [GroupSize]uint16, row → code (meaningful where
//	                      the row's validity bit is set)
//
// A base's low-cardinality string chunks arrive dictionary-encoded
// (base_write.go appendStrings); decodeColumn keeps their codes, all
// indexing one StringDict per column, so a query over a freshly opened
// base sees one dictionary for the whole column. Any other sealed String
// chunk (sealed at a commit, rebuilt by compaction) is coded on first use
// with a dictionary of its own, once: a sealed chunk never changes, and
// a write replaces it with an open copy (openCopy), which has no codes.
// So codes can never be stale; open chunks are never coded.
type StringDict struct {
	Strs []string
}

type chunkCodes struct {
	dict  *StringDict
	codes []uint16
}

// maxDictStrings bounds a column's shared dictionary (codes are uint16).
const maxDictStrings = 1 << 16

// dictBuilder collects a column's shared dictionary while it is decoded.
type dictBuilder struct {
	dict  *StringDict
	codes map[string]uint16
}

// code returns s's code, false when the dictionary is full.
func (b *dictBuilder) code(s string) (uint16, bool) {
	if b.dict == nil {
		b.dict = &StringDict{}
		b.codes = map[string]uint16{}
	}
	if c, ok := b.codes[s]; ok {
		return c, true
	}
	if len(b.dict.Strs) >= maxDictStrings {
		return 0, false
	}
	c := uint16(len(b.dict.Strs))
	b.dict.Strs = append(b.dict.Strs, s)
	b.codes[s] = c
	return c, true
}

// codeChunk gives a decoded chunk (local dictionary dict, one local code
// per row) codes in the column's shared dictionary. A full dictionary
// leaves the chunk uncoded.
func (b *dictBuilder) codeChunk(c *chunk, dict []string, local []byte) {
	var remap [256]uint16
	for i, s := range dict {
		code, ok := b.code(s)
		if !ok {
			return
		}
		remap[i] = code
	}
	codes := make([]uint16, GroupSize)
	for r, l := range local {
		codes[r] = remap[l]
	}
	c.codes.Store(&chunkCodes{dict: b.dict, codes: codes})
}

// stringCodes returns the codes of a sealed String chunk, coding it on
// first use; nil for any other chunk. Concurrent first uses may each
// build the codes; one of the equal results stays.
func (c *chunk) stringCodes() *chunkCodes {
	if !c.sealed || c.typ != vector.String || c.sarr == nil {
		return nil
	}
	if cc := c.codes.Load(); cc != nil {
		return cc
	}
	d := &StringDict{}
	index := map[string]uint16{}
	codes := make([]uint16, GroupSize)
	for r := range GroupSize {
		if !bitAt(c.valid, r) {
			continue
		}
		s := c.sarr.Value(r)
		code, ok := index[s]
		if !ok {
			code = uint16(len(d.Strs))
			d.Strs = append(d.Strs, s)
			index[s] = code
		}
		codes[r] = code
	}
	cc := &chunkCodes{dict: d, codes: codes}
	if !c.codes.CompareAndSwap(nil, cc) {
		return c.codes.Load()
	}
	return cc
}

// GatherNodePropCodes is GatherNodeProp for a string property read as
// dictionary codes: it returns the dictionary of the batch and, for each
// selected row r, codes[r] such that dict.Strs[codes[r]] is the row's
// value, or codes[r] = -1 where the value has no code in that dictionary
// (no value, a value of another type, an id in an open chunk, a chunk
// coded with a dictionary of its own): the caller reads those rows with
// GatherNodeProp. The chunks of an opened base share one dictionary per
// column, so there every value has a code. ok is false, and nothing is
// filled, when the column's gather type is not STRING.
func (s *Snapshot) GatherNodePropCodes(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, codes []int32) (dict *StringDict, ok bool) {
	col := s.nodeCol(k)
	if col.typ() != vector.String {
		return nil, false
	}
	groups := &col.groups
	cnt := n
	if sel != nil {
		cnt = len(sel)
	}
	var last *chunk
	var lastCodes []uint16 // nil: the last chunk has no codes in dict
	for i := 0; i < cnt; i++ {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		codes[r] = -1
		if ids.Valid != nil && !ids.Valid.IsValid(r) {
			continue
		}
		id := ids.IDs[r]
		c := groups.at(id >> groupShift)
		if c == nil {
			continue
		}
		if c != last {
			last, lastCodes = c, nil
			if cc := c.stringCodes(); cc != nil {
				if dict == nil {
					dict = cc.dict
				}
				if cc.dict == dict {
					lastCodes = cc.codes
				}
			}
		}
		off := int(id & groupMask)
		if lastCodes != nil && c.valid[off>>3]&(1<<(uint(off)&7)) != 0 {
			codes[r] = int32(lastCodes[off])
		}
	}
	return dict, true
}

// GatherNodePropCodes: see Snapshot.GatherNodePropCodes.
func (tx *Tx) GatherNodePropCodes(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, codes []int32) (*StringDict, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().GatherNodePropCodes(k, ids, sel, n, codes)
}
