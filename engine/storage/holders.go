package storage

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
)

// NodesHolding returns the nodes of within that hold a value of key k: the
// nodes a predicate on k can be true for. It reads the column's validity
// bits group by group, skipping a group without a chunk whole, so it
// costs a bit test per node of within in groups that hold k and nothing
// in the others. within is not modified.
func (s *Snapshot) NodesHolding(k catalog.KeyID, within *roaring.Bitmap) *roaring.Bitmap {
	out := roaring.New()
	c := s.nodeCol(k)
	if c == nil || within.IsEmpty() {
		return out
	}
	it := within.Iterator()
	buf := make([]uint32, 0, 256)
	for it.HasNext() {
		id := it.Next()
		g := uint64(id) >> groupShift
		if g >= uint64(len(c.groups)) {
			break
		}
		ch := c.groups[g]
		if ch == nil {
			it.AdvanceIfNeeded(uint32((g + 1) << groupShift))
			continue
		}
		if r := int(id & groupMask); bitAt(ch.valid, r) || (ch.side != nil && ch.side[uint16(r)] != nil) {
			buf = append(buf, id)
			if len(buf) == cap(buf) {
				out.AddMany(buf)
				buf = buf[:0]
			}
		}
	}
	out.AddMany(buf)
	return out
}

// NodesHolding: see Snapshot.NodesHolding; a Tx sees its own writes.
func (tx *Tx) NodesHolding(k catalog.KeyID, within *roaring.Bitmap) *roaring.Bitmap {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodesHolding(k, within)
}
