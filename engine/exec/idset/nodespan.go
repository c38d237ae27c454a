package idset

import "github.com/RoaringBitmap/roaring/v2"

// NodeSpan is a set of node ids a kernel visits in chunks. A bulk-loaded
// graph's live nodes (and a label every node carries) are one contiguous
// range, which needs no materialised id array: ToArray of a million-node
// run container costs more than a degree-sum kernel over it.
type NodeSpan struct {
	IDs []uint32 // the ids; nil when the span is the range Lo..Lo+N-1
	Lo  uint32   // the range's first id
	N   int      // the number of ids
}

// SpanOf is the span of bm's ids, a range when bm has no holes.
func SpanOf(bm *roaring.Bitmap) NodeSpan {
	card := bm.GetCardinality()
	if card == 0 {
		return NodeSpan{}
	}
	lo := bm.Minimum()
	if uint64(bm.Maximum()-lo)+1 == card {
		return NodeSpan{Lo: lo, N: int(card)}
	}
	return NodeSpan{IDs: bm.ToArray(), N: int(card)}
}

// Bytes is the memory the span holds.
func (s NodeSpan) Bytes() int64 { return int64(len(s.IDs)) * 4 }

// Chunks is the number of chunks of size ids.
func (s NodeSpan) Chunks(size int) int { return (s.N + size - 1) / size }

// Chunk returns the ids of chunk i of the given size, filling buf (of
// capacity >= size) for a range.
func (s NodeSpan) Chunk(i, size int, buf []uint32) []uint32 {
	lo, hi := i*size, min((i+1)*size, s.N)
	if s.IDs != nil {
		return s.IDs[lo:hi]
	}
	buf = buf[:hi-lo]
	for k := range buf {
		buf[k] = s.Lo + uint32(lo+k)
	}
	return buf
}
