package storage

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/quiverdb/quiver/vector"
)

// GroupSize is the number of consecutive ids (node or relationship) whose
// values of one property key share a chunk. 2048 keeps a sealed int64
// chunk at 16 KiB (L1/L2-friendly) and the group table at 1/2048 of the id
// space, so copying it on a commit is cheap.
const GroupSize = 2048

const (
	groupShift = 11 // log2(GroupSize)
	groupMask  = GroupSize - 1
	validBytes = GroupSize / 8
)

// chunk holds the values of one property key for one group of GroupSize
// ids: row r is id group*GroupSize + r.
//
//	chunk
//	┌──────────┬──────────────────────────────────────────────────────────┐
//	│ typ      │ dominant type: Bool | Int64 | Float64 | String | Any      │
//	│ valid    │ [256]byte, Arrow bit order: bit r ⇔ row r holds a typ     │
//	│          │ value (shared with the Arrow array once sealed)           │
//	│ data     │ open:   bits []byte (Bool, Arrow bit order, 256 bytes)    │
//	│          │         i64 []int64 | f64 []float64 | str []string |     │
//	│          │         any []vector.Value, len = rows written so far,    │
//	│          │         or flat: dim, vec []float64 (chunk_vector.go)     │
//	│          │ sealed: arr, an Arrow array of len GroupSize whose value  │
//	│          │         buffers bits/i64/f64 alias (zero copy); strings   │
//	│          │         are read from sarr (str is nil)                   │
//	│ side     │ map row → value for rows whose value is NOT of typ; nil   │
//	│          │ when the chunk is homogeneous                             │
//	│ counts   │ values per vector.Type, side included                     │
//	│ owner    │ epoch of the write transaction that may mutate it in      │
//	│          │ place; any other transaction copies it first              │
//	└──────────┴──────────────────────────────────────────────────────────┘
//
// Why a side map instead of a union column: in a property graph almost
// every key has one type, so the dominant array is the whole story and a
// gather is one typed load; the rare odd value costs a map lookup only in
// chunks that have any. Sealing re-picks the dominant type by count, so a
// group whose first value was the odd one out still ends up flat.
//
// Any-dominant chunks (lists, maps) have no Arrow form and stay a Go slice
// when sealed. Strings are stored plain; dictionary encoding comes with the
// bulk-import issue.
//
// A chunk is sealed once its group is complete (every id in it assigned):
// the writer converts it at commit. Sealed chunks are immutable; writing
// into one copies it back to the open form for the writing transaction.
type chunk struct {
	owner  uint64
	typ    vector.Type
	sealed bool
	valid  []byte
	bits   []byte
	i64    []int64
	f64    []float64
	str    []string
	any    []vector.Value
	// dim > 0: a flat Any chunk, vec holds its rows (chunk_vector.go).
	dim    int
	vec    []float64
	arr    arrow.Array
	sarr   *array.String
	side   map[uint16]vector.Value
	counts [numTypes]int32
	// codes are the dictionary codes of a sealed String chunk, set at
	// decode or on first use (dict.go); writes drop them.
	codes atomic.Pointer[chunkCodes]
	// shared is the number of leading typed rows this open chunk shares
	// with the chunk it extended (extendCopy): read-only until privatize.
	shared int
	// extended is set once a later version appends to this chunk's typed
	// values in place (extendCopy): past its rows, the backing array is
	// that version's, so nobody else may extend it.
	extended atomic.Bool
}

func newChunk(owner uint64, typ vector.Type) *chunk {
	c := &chunk{owner: owner, typ: typ, valid: make([]byte, validBytes)}
	if typ == vector.Bool {
		c.bits = make([]byte, validBytes)
	}
	return c
}

func bitAt(b []byte, r int) bool { return b[r>>3]&(1<<(uint(r)&7)) != 0 }
func setBit(b []byte, r int)     { b[r>>3] |= 1 << (uint(r) & 7) }
func clearBit(b []byte, r int)   { b[r>>3] &^= 1 << (uint(r) & 7) }

// rows is the number of physical rows: GroupSize when sealed, else the
// length of the open typed slice (rows at or past it are null unless in
// side).
func (c *chunk) rows() int {
	if c.sealed {
		return GroupSize
	}
	switch c.typ {
	case vector.Int64:
		return len(c.i64)
	case vector.Float64:
		return len(c.f64)
	case vector.String:
		return len(c.str)
	case vector.Any:
		if c.dim > 0 {
			return len(c.vec) / c.dim
		}
		return len(c.any)
	}
	return GroupSize // Bool: bits is always a full bitmap
}

// total is the number of values in the chunk.
func (c *chunk) total() int {
	n := 0
	for _, x := range c.counts {
		n += int(x)
	}
	return n
}

// get returns row r's value, nil when the row has none. The slow path:
// gathers use typed loops instead.
func (c *chunk) get(r int) vector.Value {
	if bitAt(c.valid, r) {
		switch c.typ {
		case vector.Bool:
			return bitAt(c.bits, r)
		case vector.Int64:
			return c.i64[r]
		case vector.Float64:
			return c.f64[r]
		case vector.String:
			if c.sarr != nil {
				return c.sarr.Value(r)
			}
			return c.str[r]
		case vector.Any:
			if c.dim > 0 {
				if c.sealed { // immutable: the list may point into it
					return vector.BoxFloatsAliased(c.vecRow(r))
				}
				return vector.BoxFloats(c.vecRow(r))
			}
			return c.any[r]
		}
	}
	if c.side != nil {
		return c.side[uint16(r)]
	}
	return nil
}

// has reports whether row r holds a value (get without boxing it).
func (c *chunk) has(r int) bool {
	if bitAt(c.valid, r) {
		return true
	}
	_, ok := c.side[uint16(r)]
	return ok
}

// grow extends the open typed slice to hold row r.
func (c *chunk) grow(r int) {
	switch c.typ {
	case vector.Int64:
		for len(c.i64) <= r {
			c.i64 = append(c.i64, 0)
		}
	case vector.Float64:
		for len(c.f64) <= r {
			c.f64 = append(c.f64, 0)
		}
	case vector.String:
		for len(c.str) <= r {
			c.str = append(c.str, "")
		}
	case vector.Any:
		if c.dim > 0 {
			for len(c.vec) < (r+1)*c.dim {
				c.vec = append(c.vec, 0)
			}
			return
		}
		for len(c.any) <= r {
			c.any = append(c.any, nil)
		}
	}
}

// set stores v (validated, non-nil) in row r. The chunk must be open and
// owned by the caller.
func (c *chunk) set(r int, v vector.Value) {
	if c.sealed {
		panic("BUG: storage: set on a sealed chunk")
	}
	c.clear(r)
	c.codes.Store(nil)
	t := vector.TypeOf(v)
	c.counts[t]++
	if t != c.typ {
		if c.side == nil {
			c.side = make(map[uint16]vector.Value)
		}
		c.side[uint16(r)] = v
		return
	}
	if t == vector.Any {
		c.fitAny(v)
	}
	c.grow(r)
	setBit(c.valid, r)
	switch t {
	case vector.Bool:
		if v.(bool) {
			setBit(c.bits, r)
		} else {
			clearBit(c.bits, r)
		}
	case vector.Int64:
		c.i64[r] = v.(int64)
	case vector.Float64:
		c.f64[r] = v.(float64)
	case vector.String:
		c.str[r] = v.(string)
	case vector.Any:
		if c.dim > 0 {
			c.setFlat(r, v.([]vector.Value))
		} else {
			c.any[r] = v
		}
	}
}

// fitAny readies an Any chunk for the Any value v (already counted):
// flat when v is its only Any value and qualifies, boxed when v does not
// fit its flat rows.
func (c *chunk) fitAny(v vector.Value) {
	d := flatDim(v)
	switch {
	case c.dim == 0 && d > 0 && c.counts[vector.Any] == 1:
		c.startFlat(d)
	case c.dim > 0 && d != c.dim:
		c.unflatten()
	}
}

// clear removes row r's value, if any. The chunk must be open.
func (c *chunk) clear(r int) {
	c.codes.Store(nil)
	if bitAt(c.valid, r) {
		clearBit(c.valid, r)
		c.counts[c.typ]--
		switch c.typ {
		case vector.String:
			c.str[r] = "" // let the string be collected
		case vector.Any:
			if c.dim > 0 {
				clear(c.vecRow(r)) // invalid rows hold zeros
			} else {
				c.any[r] = nil
			}
		}
		return
	}
	if c.side != nil {
		if old, ok := c.side[uint16(r)]; ok {
			c.counts[vector.TypeOf(old)]--
			delete(c.side, uint16(r))
			if len(c.side) == 0 {
				c.side = nil
			}
		}
	}
}

// openCopy returns an open, private copy of c owned by owner. Its cost is
// bounded by GroupSize, which is what keeps commits O(touched groups).
func (c *chunk) openCopy(owner uint64) *chunk {
	n := &chunk{owner: owner, typ: c.typ, counts: c.counts}
	n.valid = append([]byte(nil), c.valid...)
	if c.bits != nil {
		n.bits = append([]byte(nil), c.bits...)
	}
	switch c.typ {
	case vector.Int64:
		n.i64 = append([]int64(nil), c.i64...)
	case vector.Float64:
		n.f64 = append([]float64(nil), c.f64...)
	case vector.String:
		if c.sarr != nil {
			n.str = make([]string, GroupSize)
			for r := range n.str {
				if bitAt(c.valid, r) {
					n.str[r] = c.sarr.Value(r)
				}
			}
		} else {
			n.str = append([]string(nil), c.str...)
		}
	case vector.Any:
		n.any = append([]vector.Value(nil), c.any...)
		n.dim, n.vec = c.dim, append([]float64(nil), c.vec...)
	}
	if c.side != nil {
		n.side = make(map[uint16]vector.Value, len(c.side))
		for r, v := range c.side {
			n.side[r] = v
		}
	}
	return n
}

// extendCopy is openCopy for a write at row r of an open chunk: when r is
// past the rows c holds and no other version extended c yet, the copy
// shares c's typed values (c's readers never look past its rows, which
// the copy appends after) and copies only the validity and the side map.
// A commit creating a node thus costs O(1) per property instead of a
// group's worth of values.
func (c *chunk) extendCopy(owner uint64, r int) *chunk {
	if c.typ == vector.Bool || r < c.rows() || !c.extended.CompareAndSwap(false, true) {
		return c.openCopy(owner)
	}
	n := &chunk{owner: owner, typ: c.typ, counts: c.counts, i64: c.i64, f64: c.f64, str: c.str, any: c.any,
		dim: c.dim, vec: c.vec, shared: c.rows()}
	n.valid = append([]byte(nil), c.valid...)
	if c.side != nil {
		n.side = make(map[uint16]vector.Value, len(c.side))
		for r, v := range c.side {
			n.side[r] = v
		}
	}
	return n
}

// privatize copies the typed values extendCopy shared, before a write
// among them.
func (c *chunk) privatize() {
	switch c.typ {
	case vector.Int64:
		c.i64 = append(make([]int64, 0, cap(c.i64)), c.i64...)
	case vector.Float64:
		c.f64 = append(make([]float64, 0, cap(c.f64)), c.f64...)
	case vector.String:
		c.str = append(make([]string, 0, cap(c.str)), c.str...)
	case vector.Any:
		if c.dim > 0 {
			c.vec = append(make([]float64, 0, cap(c.vec)), c.vec...)
		} else {
			c.any = append(make([]vector.Value, 0, cap(c.any)), c.any...)
		}
	}
	c.shared = 0
}

// dominant is the type with the most values (ties keep the current one).
func (c *chunk) dominant() vector.Type {
	best := c.typ
	for t, n := range c.counts {
		if n > c.counts[best] {
			best = vector.Type(t)
		}
	}
	return best
}

// rebuilt returns an open chunk holding the same values with dominant type
// typ.
func (c *chunk) rebuilt(typ vector.Type) *chunk {
	n := newChunk(c.owner, typ)
	for r := 0; r < GroupSize; r++ {
		if v := c.get(r); v != nil {
			n.set(r, v)
		}
	}
	return n
}

// seal turns an open chunk owned by the caller into its immutable Arrow
// form (possibly returning a rebuilt chunk when another type dominates).
func (c *chunk) seal() *chunk {
	if c.sealed {
		return c
	}
	if d := c.dominant(); d != c.typ {
		c = c.rebuilt(d)
	}
	nulls := GroupSize - int(c.counts[c.typ])
	validBuf := memory.NewBufferBytes(c.valid)
	switch c.typ {
	case vector.Bool:
		c.arr = array.NewBooleanData(array.NewData(arrow.FixedWidthTypes.Boolean, GroupSize,
			[]*memory.Buffer{validBuf, memory.NewBufferBytes(c.bits)}, nil, nulls, 0))
	case vector.Int64:
		c.grow(GroupSize - 1)
		c.arr = array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, GroupSize,
			[]*memory.Buffer{validBuf, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.i64))}, nil, nulls, 0))
	case vector.Float64:
		c.grow(GroupSize - 1)
		c.arr = array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, GroupSize,
			[]*memory.Buffer{validBuf, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(c.f64))}, nil, nulls, 0))
	case vector.String:
		c.grow(GroupSize - 1)
		offsets := make([]int32, GroupSize+1)
		size := 0
		for r, s := range c.str {
			size += len(s)
			if size > 1<<31-1 {
				panic("BUG: storage: string chunk over 2 GiB")
			}
			offsets[r+1] = int32(size)
		}
		data := make([]byte, 0, size)
		for _, s := range c.str {
			data = append(data, s...)
		}
		c.sealStrings(offsets, data)
		return c
	case vector.Any:
		c.flatten()
		c.grow(GroupSize - 1)
	}
	c.sealed = true
	return c
}

// sealStrings seals an open String chunk whose values are already in Arrow
// form: offsets (GroupSize+1) and data, every row's bytes in row order
// (empty for rows without a value).
func (c *chunk) sealStrings(offsets []int32, data []byte) {
	nulls := GroupSize - int(c.counts[c.typ])
	c.sarr = array.NewStringData(array.NewData(arrow.BinaryTypes.String, GroupSize,
		[]*memory.Buffer{memory.NewBufferBytes(c.valid), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)),
			memory.NewBufferBytes(data)}, nil, nulls, 0))
	c.arr = c.sarr
	c.str = nil
	c.sealed = true
}

// Arrow returns the sealed chunk's Arrow array (nil while open or for
// Any-dominant chunks). Checkpoints write it with Arrow IPC.
func (c *chunk) Arrow() arrow.Array { return c.arr }

// check verifies the chunk's internal consistency. limit is the number of
// leading rows that may hold values (ids below the bound); live reports
// whether a row's id exists (nil: every row below limit does). complete
// says the group is fully assigned, so the chunk must be sealed.
func (c *chunk) check(limit int, complete bool, live func(r int) bool) error {
	if c.typ != vector.Bool && c.typ != vector.Int64 && c.typ != vector.Float64 &&
		c.typ != vector.String && c.typ != vector.Any {
		return fmt.Errorf("dominant type %s cannot be stored", c.typ)
	}
	if len(c.valid) != validBytes {
		return fmt.Errorf("validity has %d bytes, want %d", len(c.valid), validBytes)
	}
	if complete && !c.sealed {
		return fmt.Errorf("group is complete but chunk is open")
	}
	if c.sealed {
		if c.typ != vector.Any && (c.arr == nil || c.arr.Len() != GroupSize) {
			return fmt.Errorf("sealed chunk without an Arrow array of %d rows", GroupSize)
		}
		if c.arr != nil && c.arr.NullN() != GroupSize-int(c.counts[c.typ]) {
			return fmt.Errorf("Arrow array has %d nulls, counts say %d", c.arr.NullN(), GroupSize-int(c.counts[c.typ]))
		}
	}
	if err := c.checkFlat(); err != nil {
		return err
	}
	rows := c.rows()
	// An open Bool chunk's data is a full bitmap; the per-row loop below
	// still rejects values past the limit.
	if rows > GroupSize || (!c.sealed && c.typ != vector.Bool && rows > limit) {
		return fmt.Errorf("%d rows, group allows %d", rows, limit)
	}
	if c.typ == vector.Bool && len(c.bits) != validBytes {
		return fmt.Errorf("bool data has %d bytes", len(c.bits))
	}
	valid := 0
	for _, b := range c.valid {
		valid += bits.OnesCount8(b)
	}
	if valid != int(c.counts[c.typ]) {
		return fmt.Errorf("%d valid rows, counts[%s] = %d", valid, c.typ, c.counts[c.typ])
	}
	var side [numTypes]int32
	for r, v := range c.side {
		t := vector.TypeOf(v)
		if t == c.typ || t == vector.Null {
			return fmt.Errorf("side row %d holds a %s value in a %s chunk", r, t, c.typ)
		}
		if bitAt(c.valid, int(r)) {
			return fmt.Errorf("row %d is both in the array and the side column", r)
		}
		side[t]++
	}
	if c.side != nil && len(c.side) == 0 {
		return fmt.Errorf("empty side column is not nil")
	}
	for t := range side {
		if vector.Type(t) != c.typ && side[t] != c.counts[t] {
			return fmt.Errorf("%d side values of %s, counts say %d", side[t], vector.Type(t), c.counts[t])
		}
	}
	if valid+len(c.side) == 0 {
		return fmt.Errorf("empty chunk is not nil")
	}
	for r := 0; r < GroupSize; r++ {
		has := bitAt(c.valid, r)
		if !has && c.side != nil {
			_, has = c.side[uint16(r)]
		}
		if !has {
			continue
		}
		if r >= limit || (live != nil && !live(r)) {
			return fmt.Errorf("row %d holds a value but its id does not exist", r)
		}
		if bitAt(c.valid, r) && !c.sealed && r >= rows {
			return fmt.Errorf("row %d valid past the %d physical rows", r, rows)
		}
	}
	return nil
}
