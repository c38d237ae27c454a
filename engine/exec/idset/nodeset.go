package idset

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/vector"
)

// NodeSet is a dense bitset of node ids (a far end's labels, tested per
// neighbour in the counting kernels); nil holds every live node.
type NodeSet []uint64

// Has reports whether id is in the set.
func (s NodeSet) Has(id uint64) bool {
	if s == nil {
		return true
	}
	w := id >> 6
	return w < uint64(len(s)) && s[w]&(1<<(id&63)) != 0
}

// NodeSetOf is the set of bm's ids.
func NodeSetOf(bm *roaring.Bitmap) NodeSet {
	if bm.IsEmpty() {
		return NodeSet{}
	}
	s := make(NodeSet, bm.Maximum()/64+1)
	it := bm.ManyIterator()
	buf := make([]uint32, vector.Capacity)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, id := range buf[:n] {
			s[id>>6] |= 1 << (id & 63)
		}
	}
	return s
}
