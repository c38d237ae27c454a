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
	switch typ {
	case vector.Bool, vector.Int64, vector.Float64, vector.String, vector.Any:
	default:
		d.fail("chunk type %d cannot be stored", typ)
		return nil, nil, nil
	}
	c := newChunk(0, typ)
	copy(c.valid, d.bytes(validBytes))
	rows := GroupSize
	if typ != vector.Bool {
		rows = int(d.uvarint())
		if rows > GroupSize {
			d.fail("%d rows in a chunk", rows)
			return nil, nil, nil
		}
	}
	var soff []int32 // String: the rows' bytes in Arrow form
	var sdata, codes []byte
	var dict []string
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
		soff = make([]int32, GroupSize+1)
		switch enc := d.u8(); enc {
		case 0:
			from, size := d.p, 0
			for range rows {
				n := d.count(1)
				d.bytes(n)
				size += n
			}
			if d.err != nil || size > math.MaxInt32 {
				d.fail("bad strings")
				return nil, nil, nil
			}
			d.p = from
			sdata = make([]byte, 0, size)
			for r := range rows {
				sdata = append(sdata, d.bytes(d.count(1))...)
				soff[r+1] = int32(len(sdata))
			}
		case 1:
			dict = make([]string, d.count(1))
			if len(dict) > 256 {
				d.fail("dictionary of %d strings", len(dict))
				return nil, nil, nil
			}
			for i := range dict {
				dict[i] = d.str()
			}
			codes = d.bytes(rows)
			if d.err != nil {
				return nil, nil, nil
			}
			size := 0
			for _, x := range codes {
				if int(x) >= len(dict) {
					d.fail("dictionary code %d of %d", x, len(dict))
					return nil, nil, nil
				}
				size += len(dict[x])
			}
			if size > math.MaxInt32 {
				d.fail("strings of %d bytes in a chunk", size)
				return nil, nil, nil
			}
			sdata = make([]byte, 0, size)
			for r, x := range codes {
				sdata = append(sdata, dict[x]...)
				soff[r+1] = int32(len(sdata))
			}
		default:
			d.fail("string encoding %d", enc)
		}
		for r := rows; r < GroupSize; r++ {
			soff[r+1] = soff[rows]
		}
	case vector.Any:
		c.any = make([]vector.Value, rows)
		for r := range rows {
			c.any[r] = d.value(0)
		}
	}
	if d.err != nil {
		return nil, nil, nil
	}
	for r := 0; r < GroupSize; r++ {
		if bitAt(c.valid, r) {
			if r >= rows {
				d.fail("row %d valid past the %d rows", r, rows)
				return nil, nil, nil
			}
			if typ == vector.Any && c.any[r] == nil {
				d.fail("row %d valid but null", r)
				return nil, nil, nil
			}
		} else if typ == vector.Any && r < rows && c.any[r] != nil {
			d.fail("row %d holds a value but is not valid", r)
			return nil, nil, nil
		} else if typ == vector.String && soff[r+1] != soff[r] {
			d.fail("row %d holds a string but is not valid", r)
			return nil, nil, nil
		}
	}
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
			return nil, nil, nil
		}
		t := vector.TypeOf(v)
		if r <= prev || r >= GroupSize || bitAt(c.valid, r) || t == typ || t == vector.Null {
			d.fail("bad side value at row %d", r)
			return nil, nil, nil
		}
		prev = r
		if c.side == nil {
			c.side = make(map[uint16]vector.Value, ns)
		}
		c.side[uint16(r)] = v
		c.counts[t]++
	}
	if typ == vector.String {
		if complete && c.dominant() == vector.String {
			c.sealStrings(soff, sdata)
			if rows != GroupSize {
				dict, codes = nil, nil
			}
			return c, dict, append([]byte(nil), codes...)
		}
		c.str = make([]string, rows)
		for r := range c.str {
			c.str[r] = string(sdata[soff[r]:soff[r+1]])
		}
	}
	if complete {
		c = c.seal()
	}
	return c, nil, nil
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
