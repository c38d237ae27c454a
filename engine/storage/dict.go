package storage

import (
	"sort"
	"sync/atomic"

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
	// index maps each string to its code, made on the first Code.
	index atomic.Pointer[map[string]int32]
	// order is the codes sorted by their strings, made on the first
	// Order.
	order atomic.Pointer[dictOrder]
}

// dictOrder is a dictionary's sort order: byRank[i] is the code of the
// i-th smallest string (byte order, as ORDER BY compares strings), and
// rank[c] the position of code c's string.
type dictOrder struct {
	byRank []int32
	rank   []uint32
}

// Ranks returns each code's position among the dictionary's strings
// sorted (rank[c]); made once per dictionary (a sort of its strings) and
// kept with it, so a top-k over a string property compares small
// integers instead of strings.
func (d *StringDict) Ranks() []uint32 { return d.sortOrder().rank }

// RankBound returns the number of the dictionary's strings that sort
// before s (those equal to s too when inclusive): a code c's string
// sorts before s exactly when Ranks()[c] < RankBound(s, false).
func (d *StringDict) RankBound(s string, inclusive bool) uint32 {
	o := d.sortOrder()
	return uint32(sort.Search(len(o.byRank), func(i int) bool {
		x := d.Strs[o.byRank[i]]
		if inclusive {
			return x > s
		}
		return x >= s
	}))
}

func (d *StringDict) sortOrder() *dictOrder {
	if o := d.order.Load(); o != nil {
		return o
	}
	o := &dictOrder{byRank: make([]int32, len(d.Strs)), rank: make([]uint32, len(d.Strs))}
	for i := range o.byRank {
		o.byRank[i] = int32(i)
	}
	sort.Slice(o.byRank, func(i, j int) bool { return d.Strs[o.byRank[i]] < d.Strs[o.byRank[j]] })
	for r, c := range o.byRank {
		o.rank[c] = uint32(r)
	}
	d.order.CompareAndSwap(nil, o)
	return d.order.Load()
}

// Code returns s's code in d; false when d does not hold s. The first
// call makes an index of d (a map of len(d.Strs) entries), kept with it:
// a caller that met a string without a code (an open chunk, a value
// written since) finds its code among those of the bulk-loaded rows.
func (d *StringDict) Code(s string) (int32, bool) {
	m := d.index.Load()
	if m == nil {
		idx := make(map[string]int32, len(d.Strs))
		for i, x := range d.Strs {
			idx[x] = int32(i)
		}
		d.index.CompareAndSwap(nil, &idx)
		m = d.index.Load()
	}
	c, ok := (*m)[s]
	return c, ok
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
	return gatherCodes(col, nil, ids, sel, n, codes, -1), true
}

// NullCode is the code GatherNodePropCodesIn gives a row known to have
// no value.
const NullCode = -2

// GatherNodePropCodesIn is GatherNodePropCodes for a caller that keeps one
// dictionary across batches: the codes are those of dict (of the first
// coded chunk when dict is nil, which is returned), and a row known to
// have no value (a null id, no chunk, a clear validity bit in a chunk
// holding only strings) gets NullCode instead of -1, so that a caller
// counting distinct values reads nulls without gathering them.
func (s *Snapshot) GatherNodePropCodesIn(k catalog.KeyID, dict *StringDict, ids *vector.Vector, sel []int32, n int, codes []int32) (*StringDict, bool) {
	col := s.nodeCol(k)
	if col.typ() != vector.String {
		return nil, false
	}
	return gatherCodes(col, dict, ids, sel, n, codes, NullCode), true
}

// gatherCodes fills codes for GatherNodePropCodes(In): the codes in dict
// (the first coded chunk's dictionary when nil), -1 for a value without
// one, and null for a row without a value. The rows are taken a run at a
// time, a run being the rows whose ids fall in one group (a scan's batch
// is a few runs): its chunk, codes and validity are looked up once.
func gatherCodes(col *column, dict *StringDict, ids *vector.Vector, sel []int32, n int, codes []int32, null int32) *StringDict {
	cnt := count(sel, n)
	if v := col.codeView(cnt); v != nil && (dict == nil || dict == v.dict) {
		v.gather(ids, sel, n, codes, null)
		return v.dict
	}
	groups := &col.groups
	id := ids.IDs
	for i := 0; i < cnt; {
		r := row(sel, i)
		if ids.Valid != nil && !ids.Valid.IsValid(int(r)) {
			codes[r] = null
			i++
			continue
		}
		g := id[r] >> groupShift
		c := groups.at(g)
		var cc []uint16 // nil: the chunk has no codes in dict
		// plain: a clear validity bit means no value (the chunk's values
		// are all of its type, STRING; a chunk of another dominant type
		// keeps its strings in the side map, without validity bits).
		plain := false
		var valid []byte
		if c != nil {
			valid = c.valid
			plain = c.typ == vector.String && len(c.side) == 0
			if x := c.stringCodes(); x != nil {
				if dict == nil {
					dict = x.dict
				}
				if x.dict == dict {
					cc = x.codes
				}
			}
		}
		none := int32(-1)
		if plain || c == nil {
			none = null
		}
		if sel == nil && ids.Valid == nil && cc != nil {
			// A scan's run of a coded chunk: a bit test and a load a row.
			for ; i < cnt; i++ {
				x := id[i]
				if x>>groupShift != g {
					break
				}
				off := x & groupMask
				if valid[off>>3]&(1<<(off&7)) == 0 {
					codes[i] = none
				} else {
					codes[i] = int32(cc[off])
				}
			}
			continue
		}
		for ; i < cnt; i++ {
			r := row(sel, i)
			if ids.Valid != nil && !ids.Valid.IsValid(int(r)) {
				break
			}
			x := id[r]
			if x>>groupShift != g {
				break
			}
			off := x & groupMask
			switch {
			case c == nil || valid[off>>3]&(1<<(off&7)) == 0:
				codes[r] = none
			case cc != nil:
				codes[r] = int32(cc[off])
			default:
				codes[r] = -1
			}
		}
	}
	return dict
}

// GatherNodePropCodes: see Snapshot.GatherNodePropCodes.
func (tx *Tx) GatherNodePropCodes(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, codes []int32) (*StringDict, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().GatherNodePropCodes(k, ids, sel, n, codes)
}

// GatherNodePropCodesIn: see Snapshot.GatherNodePropCodesIn.
func (tx *Tx) GatherNodePropCodesIn(k catalog.KeyID, dict *StringDict, ids *vector.Vector, sel []int32, n int, codes []int32) (*StringDict, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().GatherNodePropCodesIn(k, dict, ids, sel, n, codes)
}

// MarkNodePropCodes is the distinct values of a string property in one
// pass, as codes of dict: for each row r of sel (0..n-1 when sel is nil)
// it sets bit c+1 of seen when the row's value has code c in dict, bit 0
// when the row has no value, and appends r to miss (returned) when the
// value has no code in dict. seen has len(dict.Strs)+1 bits; full says
// every one of them but perhaps bit 0 is set, so that a run of rows in a
// chunk whose values are all strings coded in dict can add nothing, when
// bit 0 is set too or the chunk has a value in every row, and is skipped
// unread (count(DISTINCT) of a column of few values sees them all in the
// first thousands of rows). ok is
// false, and nothing is done, when the column's gather type is not
// STRING.
func (s *Snapshot) MarkNodePropCodes(k catalog.KeyID, dict *StringDict, ids *vector.Vector, sel []int32, n int, seen []uint64, full bool, miss []int32) ([]int32, bool) {
	col := s.nodeCol(k)
	if col.typ() != vector.String || dict == nil || len(seen)*64 < len(dict.Strs)+1 {
		return miss, false
	}
	groups := &col.groups
	cnt := count(sel, n)
	id := ids.IDs
	for i := 0; i < cnt; {
		r := row(sel, i)
		if ids.Valid != nil && !ids.Valid.IsValid(int(r)) {
			seen[0] |= 1
			i++
			continue
		}
		g := id[r] >> groupShift
		c := groups.at(g)
		if c == nil { // no chunk: no value in the run
			for i < cnt && id[row(sel, i)]>>groupShift == g && (ids.Valid == nil || ids.Valid.IsValid(int(row(sel, i)))) {
				seen[0] |= 1
				i++
			}
			continue
		}
		var cc []uint16
		if x := c.stringCodes(); x != nil && x.dict == dict {
			cc = x.codes
		}
		plain, valid := c.typ == vector.String && len(c.side) == 0, c.valid
		if plain && cc != nil && ids.Valid == nil {
			// Every value of the chunk is a string coded in dict: a row
			// without one marks code 0, without a branch.
			if full && (seen[0]&1 != 0 || allSet(valid, GroupSize)) {
				i = skipGroup(id, sel, i, cnt, g)
			} else {
				i = markCodes(id, sel, i, cnt, g, valid, cc, seen)
			}
			continue
		}
		for ; i < cnt; i++ {
			r := row(sel, i)
			x := id[r]
			if x>>groupShift != g || ids.Valid != nil && !ids.Valid.IsValid(int(r)) {
				break
			}
			off := x & groupMask
			switch {
			case valid[off>>3]&(1<<(off&7)) == 0 && plain:
				seen[0] |= 1
			case valid[off>>3]&(1<<(off&7)) != 0 && cc != nil:
				code := uint64(cc[off]) + 1
				seen[code>>6] |= 1 << (code & 63)
			default:
				miss = append(miss, r)
			}
		}
	}
	return miss, true
}

// markCodes marks in seen the code + 1 of each row of sel (0..cnt-1 when
// nil) from i on whose node is in group g, or 0 for one without a value,
// and returns the first row of another group (cnt at the end). The loop
// is written twice so that, without a selection, it reads no row number.
func markCodes(id []uint64, sel []int32, i, cnt int, g uint64, valid []byte, cc []uint16, seen []uint64) int {
	if sel == nil {
		for ; i < cnt; i++ {
			x := id[i]
			if x>>groupShift != g {
				return i
			}
			off := x & groupMask
			code := (uint64(cc[off]) + 1) * (uint64(valid[off>>3]>>(off&7)) & 1)
			seen[code>>6] |= 1 << (code & 63)
		}
		return i
	}
	for ; i < cnt; i++ {
		x := id[sel[i]]
		if x>>groupShift != g {
			return i
		}
		off := x & groupMask
		code := (uint64(cc[off]) + 1) * (uint64(valid[off>>3]>>(off&7)) & 1)
		seen[code>>6] |= 1 << (code & 63)
	}
	return i
}

// skipGroup returns the first row of sel (0..cnt-1 when nil) from i on
// whose node is not in group g (cnt at the end).
func skipGroup(id []uint64, sel []int32, i, cnt int, g uint64) int {
	if sel == nil {
		for i < cnt && id[i]>>groupShift == g {
			i++
		}
		return i
	}
	for i < cnt && id[sel[i]]>>groupShift == g {
		i++
	}
	return i
}

// MarkNodePropCodes: see Snapshot.MarkNodePropCodes.
func (tx *Tx) MarkNodePropCodes(k catalog.KeyID, dict *StringDict, ids *vector.Vector, sel []int32, n int, seen []uint64, full bool, miss []int32) ([]int32, bool) {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().MarkNodePropCodes(k, dict, ids, sel, n, seen, full, miss)
}
