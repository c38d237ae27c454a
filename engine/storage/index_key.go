package storage

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/quiverdb/quiver/vector"
)

// Index keys are byte strings whose byte order is the Cypher order of the
// values within one type class, so one sorted run serves equality, ranges
// and STARTS WITH, and a hash map keyed by the same string serves
// equality with Cypher's equality (1 = 1.0).
//
//	key      = component… (one per indexed property, in index key order)
//	component:
//	  0x10 b                         boolean (b = 0 false, 1 true)
//	  0x20 f[8] d[8]                 number: f = float64(x) with the sign
//	                                 bit flipped (all bits when negative),
//	                                 big-endian; d = x − int(f) for an
//	                                 integer (exact beyond 2^53), 0 for a
//	                                 float, sign-flipped big-endian
//	  0x30 esc(s) 0x00 0x01          string; esc doubles 0x00 as 0x00 0xFF
//	  0x40 esc(type) 0x00 0x01 esc(text) 0x00 0x01
//	                                 any other scalar (temporal values):
//	                                 its Go type and ISO text (equality only)
//	  0x50 component… 0x01           list, element by element
//
// Every component is self-delimiting, so a composite key's prefix on its
// first k properties is a byte prefix. Null is never a key: a node lacking
// one of an index's properties has no entry (as in Cypher, where null
// equals nothing).
const (
	tagBool   = 0x10
	tagNumber = 0x20
	tagString = 0x30
	tagOther  = 0x40
	tagList   = 0x50
)

// AppendIndexKey appends v's key component to dst; ok is false for null
// (and for values that cannot be properties).
func AppendIndexKey(dst []byte, v vector.Value) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return dst, false
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		return append(dst, tagBool, b), true
	case int64:
		return appendIntKey(dst, x), true
	case float64:
		return appendNumber(dst, x, 0), true
	case string:
		dst = append(dst, tagString)
		return appendEscaped(dst, x), true
	case []vector.Value:
		dst = append(dst, tagList)
		for _, e := range x {
			var ok bool
			if dst, ok = AppendIndexKey(dst, e); !ok {
				dst = append(dst, 0x02) // a null element
			}
		}
		return append(dst, 0x01), true
	case map[string]vector.Value, vector.NodeRef, vector.RelRef, vector.Path:
		return dst, false
	default:
		dst = append(dst, tagOther)
		dst = appendEscaped(dst, fmt.Sprintf("%T", v))
		return appendEscaped(dst, fmt.Sprint(v)), true
	}
}

// appendIntKey appends an INTEGER's key component.
func appendIntKey(dst []byte, x int64) []byte {
	f := float64(x)
	var d int64
	if f >= math.MaxInt64 { // float64(x) rounded up to 2^63
		d = x + math.MinInt64 // x − 2^63, exact
	} else {
		d = x - int64(f)
	}
	return appendNumber(dst, f, d)
}

func appendNumber(dst []byte, f float64, d int64) []byte {
	if f == 0 {
		f = 0 // -0.0 = 0.0
	}
	if f != f {
		// One NaN, after +Inf: where ORDER BY puts NaN (after every
		// other number), whatever sign bit the NaN was computed with.
		f = math.Float64frombits(0x7FF8000000000001)
	}
	bits := math.Float64bits(f)
	if bits>>63 == 1 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	dst = append(dst, tagNumber)
	dst = binary.BigEndian.AppendUint64(dst, bits)
	return binary.BigEndian.AppendUint64(dst, uint64(d)^(1<<63))
}

func appendEscaped(dst []byte, s string) []byte {
	dst = appendEscapedOpen(dst, s)
	return append(dst, 0x00, 0x01)
}

// appendEscapedOpen appends s escaped but unterminated: the byte prefix
// of every string starting with s.
func appendEscapedOpen(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, s[i])
		if s[i] == 0 {
			dst = append(dst, 0xFF)
		}
	}
	return dst
}

// AppendStringPrefix appends the key prefix shared by every string value
// starting with s (STARTS WITH).
func AppendStringPrefix(dst []byte, s string) []byte {
	return appendEscapedOpen(append(dst, tagString), s)
}

// TypeClassBounds returns the key bounds [lo, hi) of all components of
// v's type class (numbers, strings, booleans), for open-ended ranges:
// n.p > 5 ranges over numbers only.
func TypeClassBounds(v vector.Value) (lo, hi byte, ok bool) {
	switch v.(type) {
	case int64, float64:
		return tagNumber, tagNumber + 1, true
	case string:
		return tagString, tagString + 1, true
	case bool:
		return tagBool, tagBool + 1, true
	}
	return 0, 0, false
}

// PrefixEnd is the smallest key greater than every key starting with p;
// "" (unbounded) when there is none.
func PrefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xFF {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}
