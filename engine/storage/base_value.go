package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Generic value encoding of the base format (docs/storage-format.md),
// used for Any-dominant chunk rows and side values: a tag byte, then
//
//	0 nil | 1 false | 2 true | 3 int64 zigzag varint | 4 float64 8 bytes LE
//	5 string uvarint len + bytes | 6 list uvarint n + n values
//	7 map uvarint n + n (string, value), keys sorted
//	8 DATE days | 9 LOCAL TIME nanos | 10 TIME nanos, offset
//	11 LOCAL DATETIME sec, nanos | 12 DATETIME sec, nanos, offset, zone string
//	13 DURATION months, days, seconds, nanos   (all integers zigzag varints)

const (
	vtNil = iota
	vtFalse
	vtTrue
	vtInt
	vtFloat
	vtString
	vtList
	vtMap
	vtDate
	vtLocalTime
	vtTime
	vtLocalDateTime
	vtDateTime
	vtDuration
)

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendValue appends v's encoding. v is a stored value (storeValue).
func appendValue(b []byte, v vector.Value) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, vtNil)
	case bool:
		if x {
			return append(b, vtTrue)
		}
		return append(b, vtFalse)
	case int64:
		return binary.AppendVarint(append(b, vtInt), x)
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, vtFloat), math.Float64bits(x))
	case string:
		return appendString(append(b, vtString), x)
	case []vector.Value:
		b = binary.AppendUvarint(append(b, vtList), uint64(len(x)))
		for _, e := range x {
			b = appendValue(b, e)
		}
		return b
	case map[string]vector.Value:
		b = binary.AppendUvarint(append(b, vtMap), uint64(len(x)))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = appendValue(appendString(b, k), x[k])
		}
		return b
	case temporal.Date:
		return binary.AppendVarint(append(b, vtDate), x.Days)
	case temporal.LocalTime:
		return binary.AppendVarint(append(b, vtLocalTime), x.Nanos)
	case temporal.Time:
		b = binary.AppendVarint(append(b, vtTime), x.Nanos)
		return binary.AppendVarint(b, int64(x.Offset))
	case temporal.LocalDateTime:
		b = binary.AppendVarint(append(b, vtLocalDateTime), x.Sec)
		return binary.AppendVarint(b, int64(x.Nanos))
	case temporal.DateTime:
		b = binary.AppendVarint(append(b, vtDateTime), x.Sec)
		b = binary.AppendVarint(b, int64(x.Nanos))
		b = binary.AppendVarint(b, int64(x.Offset))
		return appendString(b, x.Zone)
	case temporal.Duration:
		b = binary.AppendVarint(append(b, vtDuration), x.Months)
		b = binary.AppendVarint(b, x.Days)
		b = binary.AppendVarint(b, x.Seconds)
		return binary.AppendVarint(b, int64(x.Nanos))
	}
	panic(fmt.Sprintf("BUG: storage: cannot encode a %T property value", v))
}

// decoder reads the base format from a byte slice. The first error sticks:
// later reads return zero values, so decoding code checks err once per
// record, and no read ever goes past the slice.
type decoder struct {
	b     []byte
	p     int
	err   error
	slabs colSlabs // where column chunks' values go (base_read.go)
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("byte %d: %s", d.p, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) left() int { return len(d.b) - d.p }

func (d *decoder) u8() byte {
	if d.err != nil || d.p >= len(d.b) {
		d.fail("truncated")
		return 0
	}
	d.p++
	return d.b[d.p-1]
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b[d.p:])
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.p += n
	return x
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b[d.p:])
	if n <= 0 {
		d.fail("truncated or overlong varint")
		return 0
	}
	d.p += n
	return x
}

// count reads a length that must fit the bytes left, each item taking at
// least minBytes: this bounds every allocation by the input size.
func (d *decoder) count(minBytes int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(d.left()/max(minBytes, 1)) {
		d.fail("length %d exceeds the %d bytes left", n, d.left())
		return 0
	}
	return int(n)
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > d.left() {
		d.fail("truncated: %d bytes wanted", n)
		return nil
	}
	d.p += n
	return d.b[d.p-n : d.p]
}

func (d *decoder) u64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) str() string { return string(d.bytes(d.count(1))) }

func (d *decoder) i32() int32 {
	x := d.varint()
	if x < math.MinInt32 || x > math.MaxInt32 {
		d.fail("value %d out of int32 range", x)
	}
	return int32(x)
}

// value decodes one generic value; depth bounds nesting as storeValue does.
func (d *decoder) value(depth int) vector.Value {
	if depth > maxValueDepth {
		d.fail("value nested deeper than %d levels", maxValueDepth)
		return nil
	}
	switch tag := d.u8(); tag {
	case vtNil:
		return nil
	case vtFalse:
		return false
	case vtTrue:
		return true
	case vtInt:
		return d.varint()
	case vtFloat:
		return math.Float64frombits(d.u64())
	case vtString:
		return d.str()
	case vtList:
		n := d.count(1)
		out := make([]vector.Value, n)
		for i := range out {
			out[i] = d.value(depth + 1)
		}
		return out
	case vtMap:
		n := d.count(2)
		out := make(map[string]vector.Value, n)
		for range n {
			k := d.str()
			out[k] = d.value(depth + 1)
		}
		return out
	case vtDate:
		return temporal.Date{Days: d.varint()}
	case vtLocalTime:
		return temporal.LocalTime{Nanos: d.varint()}
	case vtTime:
		return temporal.Time{Nanos: d.varint(), Offset: d.i32()}
	case vtLocalDateTime:
		return temporal.LocalDateTime{Sec: d.varint(), Nanos: d.i32()}
	case vtDateTime:
		return temporal.DateTime{Sec: d.varint(), Nanos: d.i32(), Offset: d.i32(), Zone: d.str()}
	case vtDuration:
		return temporal.Duration{Months: d.varint(), Days: d.varint(), Seconds: d.varint(), Nanos: d.i32()}
	default:
		d.fail("unknown value tag %d", tag)
		return nil
	}
}
