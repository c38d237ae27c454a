package csr

import (
	"encoding/binary"
	"math/bits"
)

// Block format. A node's sorted neighbour list of d ids is cut into
// ceil(d/blockSize) blocks of blockSize ids, the last one shorter. The number
// of blocks and the ids per block follow from the degree (the offsets), so
// no count is stored and a node's blocks need no index.
//
//	k == 1:  gap:B bytes
//	k >= 2:  width:1 byte | gap:B bytes | (k-1) values of width bits
//
// B is the CSR's base width, the fewest bytes that hold NumNodes-1 (3 for a
// million nodes). gap is base-prev: base is the block's first id, which is
// its minimum because the list is sorted, and prev the last id of the
// node's previous block (0 for the first). Values are id-base for the
// block's ids 2..k, packed LSB first and padded to a whole byte. width is
// the fewest bits that hold the block's largest value (last-base), at most
// maxWidth.
//
// Why frame of reference and not deltas: every value decodes independently
// (shift, mask, add), so the loop has no carried dependency and no branch;
// a delta chain would add a serial prefix sum. Deltas would save about
// log2(k)-2 bits per id only on long lists, and the lists that dominate
// power-law graphs are short.
//
// Why a fixed-width gap and no width byte for k == 1: short lists dominate
// power-law graphs, and there per-node branches, not bits, cost the time.
// A fixed-width gap is one masked load (a varint of a random id is as long
// and branches on every byte), and the width byte's presence is selected
// without a branch. The decoder also writes whole groups of 4 values, past
// the block's end into the caller's spare capacity (decodeSlack), so a
// list of 1..5 ids takes the same path every time.
//
// The data slice ends with padBytes zero bytes so that the decoder's loads
// for those surplus values never run past the slice.

// maxWidth is the widest packed value: a value at bit offset 0..7 of an
// unaligned 64-bit load must fit the remaining 57 bits.
const maxWidth = 56

// maxNodes bounds NumNodes so that every id - base fits maxWidth bits.
const maxNodes = 1 << maxWidth

// padBytes trail the encoded data: the decoder reads up to 3 surplus values
// of up to 56 bits plus an 8-byte load past a block's last byte.
const padBytes = 32

// decodeSlack is the spare capacity decodeList may write past the list.
const decodeSlack = 4

// baseBytes is the gap width B for a CSR of n nodes.
func baseBytes(n int) uint {
	return max(1, uint(bits.Len64(uint64(max(n, 1)-1))+7)/8)
}

// packedLen is the payload size of a block of k ids of the given width.
func packedLen(k int, width uint) int {
	return ((k-1)*int(width) + 7) >> 3
}

// appendBlock encodes ids (sorted, 1..blockSize of them) after prev.
func appendBlock(dst []byte, ids []uint64, prev uint64, bb uint) []byte {
	base := ids[0]
	var width uint
	if len(ids) > 1 {
		width = uint(bits.Len64(ids[len(ids)-1] - base))
		dst = append(dst, byte(width))
	}
	dst = binary.LittleEndian.AppendUint64(dst, base-prev)[:len(dst)+int(bb)]
	if width == 0 {
		return dst
	}
	// The accumulator holds fewer than 8 pending bits before each add, and
	// 7+maxWidth < 64, so it never overflows.
	var acc uint64
	var n uint
	for _, id := range ids[1:] {
		acc |= (id - base) << n
		n += width
		for n >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	if n > 0 {
		dst = append(dst, byte(acc))
	}
	return dst
}

// appendList encodes one node's whole sorted list.
func appendList(dst []byte, ids []uint64, bb uint) []byte {
	var prev uint64
	for len(ids) > 0 {
		k := min(len(ids), blockSize)
		dst = appendBlock(dst, ids[:k], prev, bb)
		prev = ids[k-1]
		ids = ids[k:]
	}
	return dst
}

// decodeList decodes a list of d ids from the blocks at data[p:] into
// out[:d]; out must be at least d+decodeSlack long, and out[d:] is left
// holding garbage. data must be trusted (built here and checked): a corrupt
// block may panic with an index error, which Check rules out by decoding
// with bounds checks first.
func decodeList(out []uint64, d int, data []byte, p int, bb uint) {
	gapMask := uint64(1)<<(8*bb) - 1
	var prev uint64
	for i := 0; i < d; i += blockSize {
		k := min(d-i, blockSize)
		multi := 0
		if k > 1 { // compiles to a conditional move
			multi = 1
		}
		width := uint(data[p]) * uint(multi)
		p += multi
		base := prev + binary.LittleEndian.Uint64(data[p:p+8])&gapMask
		p += int(bb)
		o := out[i:]
		o[0] = base
		unpack(o[1:], k-1, data[p:], width, base)
		p += packedLen(k, width)
		prev = o[k-1]
	}
}

// unpack is the hot loop: it decodes n values (at least 4, rounded up to a
// multiple of 4, so len(out) must allow that) with one shift, mask and add
// each, no branch and no dependency between iterations. A 64-bit load at a
// byte boundary holds 57 usable bits, so it yields four ids of width <= 14
// or two of width <= 28 (ids below 2^28, the common case); the loop then
// issues a quarter or half of the loads and bounds checks. src must extend
// past the last packed byte by padBytes.
func unpack(out []uint64, n int, src []byte, width uint, base uint64) {
	mask := uint64(1)<<width - 1
	var bit uint
	switch {
	case width <= 14:
		for i := 0; ; {
			o := out[i : i+4 : i+4]
			v := binary.LittleEndian.Uint64(src[bit>>3:bit>>3+8]) >> (bit & 7)
			o[0] = base + v&mask
			o[1] = base + (v>>width)&mask
			o[2] = base + (v>>(2*width))&mask
			o[3] = base + (v>>(3*width))&mask
			bit += 4 * width
			if i += 4; i >= n {
				return
			}
		}
	case width <= 28:
		for i := 0; ; {
			o := out[i : i+4 : i+4]
			b1 := bit + 2*width
			v0 := binary.LittleEndian.Uint64(src[bit>>3:bit>>3+8]) >> (bit & 7)
			v1 := binary.LittleEndian.Uint64(src[b1>>3:b1>>3+8]) >> (b1 & 7)
			o[0] = base + v0&mask
			o[1] = base + (v0>>width)&mask
			o[2] = base + v1&mask
			o[3] = base + (v1>>width)&mask
			bit += 4 * width
			if i += 4; i >= n {
				return
			}
		}
	default:
		for i := 0; ; {
			o := out[i : i+4 : i+4]
			b1, b2, b3 := bit+width, bit+2*width, bit+3*width
			o[0] = base + (binary.LittleEndian.Uint64(src[bit>>3:bit>>3+8])>>(bit&7))&mask
			o[1] = base + (binary.LittleEndian.Uint64(src[b1>>3:b1>>3+8])>>(b1&7))&mask
			o[2] = base + (binary.LittleEndian.Uint64(src[b2>>3:b2>>3+8])>>(b2&7))&mask
			o[3] = base + (binary.LittleEndian.Uint64(src[b3>>3:b3>>3+8])>>(b3&7))&mask
			bit += 4 * width
			if i += 4; i >= n {
				return
			}
		}
	}
}
