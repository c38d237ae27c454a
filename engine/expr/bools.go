package expr

import (
	"encoding/binary"
	"unsafe"
)

// Booleans as bits. A BOOLEAN vector holds one byte a row (0 or 1) and
// its validity one bit a row; the three-valued operators combine the
// two as 64-bit words. packBools and unpackBools convert eight rows at
// a time with a multiplication instead of a shift and an OR a row.

// boolBytes views b as its bytes, each 0 or 1.
func boolBytes(b []bool) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// packBools returns b (at most 64 rows) as bits, row i at bit i.
func packBools(b []bool) uint64 {
	bs := boolBytes(b)
	var w uint64
	i := 0
	for ; i+8 <= len(bs); i += 8 {
		// Byte k's low bit is bit 8k; the product gathers bit 8k at
		// bit 56+k, without carries (each lands on a bit of its own).
		x := binary.LittleEndian.Uint64(bs[i:])
		w |= (x * 0x0102040810204080 >> 56) << uint(i)
	}
	for ; i < len(bs); i++ {
		w |= uint64(bs[i]) << uint(i)
	}
	return w
}

// unpackBools writes the bits of w into b (at most 64 rows), bit i to
// row i.
func unpackBools(b []bool, w uint64) {
	bs := boolBytes(b)
	i := 0
	for ; i+8 <= len(bs); i += 8 {
		binary.LittleEndian.PutUint64(bs[i:], spreadBits(w>>uint(i)&0xff))
	}
	for ; i < len(bs); i++ {
		bs[i] = byte(w >> uint(i) & 1)
	}
}

// spreadBits spreads the eight bits of b over eight bytes, bit k to the
// low bit of byte k: byte k of the product keeps bit k of the eight, and
// adding 0x7f to each byte carries a set bit into the byte's top bit.
func spreadBits(b uint64) uint64 {
	x := b * 0x0101010101010101 & 0x8040201008040201
	return (x + 0x7f7f7f7f7f7f7f7f) >> 7 & 0x0101010101010101
}

// andBools, orBools and xorBools combine src into dst row by row,
// eight rows a word: on bytes of 0 or 1 the bitwise operators are the
// boolean ones.
func andBools(dst, src []bool) { wordsOp(dst, src, func(a, b uint64) uint64 { return a & b }) }
func orBools(dst, src []bool)  { wordsOp(dst, src, func(a, b uint64) uint64 { return a | b }) }
func xorBools(dst, src []bool) { wordsOp(dst, src, func(a, b uint64) uint64 { return a ^ b }) }

// notBools sets dst to the negation of src (of dst's length).
func notBools(dst, src []bool) {
	d, s := boolBytes(dst), boolBytes(src)
	s = s[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		binary.LittleEndian.PutUint64(d[i:], binary.LittleEndian.Uint64(s[i:])^0x0101010101010101)
	}
	for ; i < len(d); i++ {
		d[i] = s[i] ^ 1
	}
}

func wordsOp(dst, src []bool, op func(a, b uint64) uint64) {
	d, s := boolBytes(dst), boolBytes(src)
	s = s[:len(d)]
	i := 0
	for ; i+8 <= len(d); i += 8 {
		binary.LittleEndian.PutUint64(d[i:], op(binary.LittleEndian.Uint64(d[i:]), binary.LittleEndian.Uint64(s[i:])))
	}
	for ; i < len(d); i++ {
		d[i] = byte(op(uint64(d[i]), uint64(s[i])))
	}
}
