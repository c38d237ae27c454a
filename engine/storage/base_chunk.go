package storage

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"

	"github.com/quiverdb/quiver/vector"
)

// A chunk record of a base column file: the decoding of one group's
// values (base_write.go has the layout).

// chunk decodes one chunk record after its group number; complete says
// the group is complete, so the chunk is sealed. A sealed String chunk
// goes straight to its Arrow form (no string per row); one that was
// dictionary-encoded also returns its local dictionary and codes.
func (d *decoder) chunk(complete bool) (*chunk, []string, []byte) {
	typ := vector.Type(d.u8())
	flat := typ == chunkFlatVectors
	switch {
	case flat:
		typ = vector.Any
	case typ == vector.Bool, typ == vector.Int64, typ == vector.Float64, typ == vector.String, typ == vector.Any:
	default:
		d.fail("chunk type %d cannot be stored", typ)
		return nil, nil, nil
	}
	c := newChunk(0, typ)
	copy(c.valid, d.bytes(validBytes))
	rows := GroupSize
	if typ != vector.Bool {
		// Compared before the conversion: a varint past MaxInt64 would
		// wrap to a negative row count.
		n := d.uvarint()
		if n > GroupSize {
			d.fail("%d rows in a chunk", n)
			return nil, nil, nil
		}
		rows = int(n)
	}
	var str chunkStrings
	switch typ {
	case vector.Bool:
		copy(c.bits, d.bytes(validBytes))
	case vector.Int64:
		b := d.bytes(8 * rows)
		c.i64 = take(&d.slabs.i64, rows, d.slabs.left)
		if b != nil {
			copyLE(c.i64, b)
		}
	case vector.Float64:
		b := d.bytes(8 * rows)
		c.f64 = take(&d.slabs.f64, rows, d.slabs.left)
		if b != nil {
			copyLE(c.f64, b)
		}
	case vector.String:
		if !d.chunkStrings(&str, rows) {
			return nil, nil, nil
		}
	case vector.Any:
		if flat {
			if !d.flatVectors(c, rows) {
				return nil, nil, nil
			}
			break
		}
		c.any = make([]vector.Value, rows)
		for r := range rows {
			c.any[r] = d.value(0)
		}
	}
	if d.err != nil || !d.checkValid(c, typ, rows, str.off) || !d.sideValues(c, typ) {
		return nil, nil, nil
	}
	if typ == vector.String {
		if complete && c.dominant() == vector.String {
			c.sealStrings(str.off, str.data)
			if rows != GroupSize {
				str.dict, str.codes = nil, nil
			}
			return c, str.dict, append([]byte(nil), str.codes...)
		}
		c.str = make([]string, rows)
		for r := range c.str {
			c.str[r] = string(str.data[str.off[r]:str.off[r+1]])
		}
	}
	if complete {
		c = c.seal()
	}
	return c, nil, nil
}

// chunkStrings are a String chunk's rows in Arrow form (off has
// GroupSize+1 offsets into data), and when it was dictionary-encoded its
// dictionary and a code per row.
type chunkStrings struct {
	off   []int32
	data  []byte
	dict  []string
	codes []byte
}

// chunkStrings decodes the strings of a chunk's rows into s, stored
// plain (encoding 0) or dictionary-encoded (1); false on a bad record.
func (d *decoder) chunkStrings(s *chunkStrings, rows int) bool {
	s.off = make([]int32, GroupSize+1)
	ok := false
	switch enc := d.u8(); enc {
	case 0:
		ok = d.plainStrings(s, rows)
	case 1:
		ok = d.dictStrings(s, rows)
	default:
		d.fail("string encoding %d", enc)
	}
	if !ok {
		return false
	}
	for r := rows; r < GroupSize; r++ {
		s.off[r+1] = s.off[rows]
	}
	return true
}

// plainStrings reads rows length-prefixed strings: sized first, so the
// bytes are copied once.
func (d *decoder) plainStrings(s *chunkStrings, rows int) bool {
	from, size := d.p, 0
	for range rows {
		n := d.count(1)
		d.bytes(n)
		size += n
	}
	if d.err != nil || size > math.MaxInt32 {
		d.fail("bad strings")
		return false
	}
	d.p = from
	s.data = make([]byte, 0, size)
	for r := range rows {
		s.data = append(s.data, d.bytes(d.count(1))...)
		s.off[r+1] = int32(len(s.data))
	}
	return true
}

// dictStrings reads a dictionary of at most 256 strings and a byte code
// per row.
func (d *decoder) dictStrings(s *chunkStrings, rows int) bool {
	s.dict = make([]string, d.count(1))
	if len(s.dict) > 256 {
		d.fail("dictionary of %d strings", len(s.dict))
		return false
	}
	for i := range s.dict {
		s.dict[i] = d.str()
	}
	s.codes = d.bytes(rows)
	if d.err != nil {
		return false
	}
	size := 0
	for _, x := range s.codes {
		if int(x) >= len(s.dict) {
			d.fail("dictionary code %d of %d", x, len(s.dict))
			return false
		}
		size += len(s.dict[x])
	}
	if size > math.MaxInt32 {
		d.fail("strings of %d bytes in a chunk", size)
		return false
	}
	s.data = make([]byte, 0, size)
	for r, x := range s.codes {
		s.data = append(s.data, s.dict[x]...)
		s.off[r+1] = int32(len(s.data))
	}
	return true
}

// checkValid checks the validity bits against the rows: a valid row is
// one of the chunk's rows and holds a value, an invalid one holds none
// (soff, a String chunk's offsets, is nil for other types).
func (d *decoder) checkValid(c *chunk, typ vector.Type, rows int, soff []int32) bool {
	for r := 0; r < GroupSize; r++ {
		if bitAt(c.valid, r) {
			if r >= rows {
				d.fail("row %d valid past the %d rows", r, rows)
				return false
			}
			if typ == vector.Any && c.dim == 0 && c.any[r] == nil {
				d.fail("row %d valid but null", r)
				return false
			}
		} else if typ == vector.Any && r < rows && c.dim == 0 && c.any[r] != nil {
			d.fail("row %d holds a value but is not valid", r)
			return false
		} else if typ == vector.String && soff[r+1] != soff[r] {
			d.fail("row %d holds a string but is not valid", r)
			return false
		}
	}
	return true
}

// sideValues counts the chunk's valid rows and reads its side values:
// those of another type than the chunk's, at invalid rows, ascending.
func (d *decoder) sideValues(c *chunk, typ vector.Type) bool {
	valid := 0
	for _, b := range c.valid {
		valid += bits.OnesCount8(b)
	}
	c.counts[typ] = int32(valid)
	ns := d.count(2)
	prev := -1
	for range ns {
		r := int(d.uvarint())
		v := d.value(0)
		if d.err != nil {
			return false
		}
		t := vector.TypeOf(v)
		if r <= prev || r >= GroupSize || bitAt(c.valid, r) || t == typ || t == vector.Null {
			d.fail("bad side value at row %d", r)
			return false
		}
		prev = r
		if c.side == nil {
			c.side = make(map[uint16]vector.Value, ns)
		}
		c.side[uint16(r)] = v
		c.counts[t]++
	}
	return true
}

// copyLE fills dst from b, len(dst) little-endian 8-byte values: one
// copy on a little-endian machine.
func copyLE[T int64 | float64](dst []T, b []byte) {
	if nativeLE {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 8*len(dst)), b)
		return
	}
	for r := range dst {
		x := leU64(b[8*r:])
		dst[r] = *(*T)(unsafe.Pointer(&x))
	}
}

// nativeLE: the machine stores integers little-endian, as the base format.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func leU64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// flatVectors reads a flat chunk's dimension and rows × dim doubles into
// c (chunk_vector.go); rows without a value must hold zeros, as the
// writer leaves them.
func (d *decoder) flatVectors(c *chunk, rows int) bool {
	dim := d.uvarint()
	if d.err != nil || dim == 0 || dim > uint64(d.left()/8) || uint64(rows)*dim > uint64(d.left()/8) {
		d.fail("flat vectors: %d rows of dimension %d in %d bytes", rows, dim, d.left())
		return false
	}
	c.dim = int(dim)
	c.vec = make([]float64, rows*c.dim)
	copyLE(c.vec, d.bytes(8*len(c.vec)))
	if err := c.checkFlat(); err != nil {
		d.fail("%v", err)
		return false
	}
	return true
}
