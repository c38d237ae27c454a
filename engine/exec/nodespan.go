package exec

import "github.com/RoaringBitmap/roaring/v2"

// nodeSpan is a set of node ids a kernel visits in chunks. A bulk-loaded
// graph's live nodes (and a label every node carries) are one contiguous
// range, which needs no materialised id array: ToArray of a million-node
// run container costs more than a degree-sum kernel over it.
type nodeSpan struct {
	ids []uint32 // the ids; nil when the span is the range lo..lo+n-1
	lo  uint32
	n   int
}

// spanOf is the span of bm's ids, a range when bm has no holes.
func spanOf(bm *roaring.Bitmap) nodeSpan {
	card := bm.GetCardinality()
	if card == 0 {
		return nodeSpan{}
	}
	lo := bm.Minimum()
	if uint64(bm.Maximum()-lo)+1 == card {
		return nodeSpan{lo: lo, n: int(card)}
	}
	return nodeSpan{ids: bm.ToArray(), n: int(card)}
}

// bytes is the memory the span holds.
func (s nodeSpan) bytes() int64 { return int64(len(s.ids)) * 4 }

// chunks is the number of chunks of size ids.
func (s nodeSpan) chunks(size int) int { return (s.n + size - 1) / size }

// chunk returns the ids of chunk i of the given size, filling buf (of
// capacity >= size) for a range.
func (s nodeSpan) chunk(i, size int, buf []uint32) []uint32 {
	lo, hi := i*size, min((i+1)*size, s.n)
	if s.ids != nil {
		return s.ids[lo:hi]
	}
	buf = buf[:hi-lo]
	for k := range buf {
		buf[k] = s.lo + uint32(lo+k)
	}
	return buf
}
