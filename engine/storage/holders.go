package storage

import (
	"encoding/binary"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
)

// NodesHolding returns the nodes of within that hold a value of key k: the
// nodes a predicate on k can be true for. within is not modified.
//
// A within of more than one id in 64 of the column's range is
// intersected with a bitmap of the column's validity words, copied
// group by group (32 words a group; 1M ids: 16k words); a sparser one
// tests each id's bit, skipping a group without a chunk whole.
func (s *Snapshot) NodesHolding(k catalog.KeyID, within *roaring.Bitmap) *roaring.Bitmap {
	c := s.nodeCol(k)
	if c == nil || within.IsEmpty() {
		return roaring.New()
	}
	if within.GetCardinality() > uint64(c.groups.len())*GroupSize/64 {
		return roaring.And(within, c.holders())
	}
	out := roaring.New()
	it := within.Iterator()
	buf := make([]uint32, 0, 256)
	for it.HasNext() {
		id := it.Next()
		g := uint64(id) >> groupShift
		if g >= uint64(c.groups.len()) {
			break
		}
		ch := c.groups.at(g)
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

// holders is the bitmap of the ids with a value: the chunks' validity
// bits (Arrow order: bit r of byte r/8, so little-endian words) and the
// rows of their side maps.
func (c *column) holders() *roaring.Bitmap {
	const words = GroupSize / 64
	dense := make([]uint64, c.groups.len()*words)
	for g, ch := range c.groups.all() {
		w := dense[g*words : (g+1)*words]
		for i := range w {
			w[i] = binary.LittleEndian.Uint64(ch.valid[i*8:])
		}
		for r := range ch.side {
			w[r/64] |= 1 << (r % 64)
		}
	}
	return roaring.FromDense(dense, false)
}

// NodesHolding: see Snapshot.NodesHolding; a Tx sees its own writes.
func (tx *Tx) NodesHolding(k catalog.KeyID, within *roaring.Bitmap) *roaring.Bitmap {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodesHolding(k, within)
}

// IndexKeyHolders is the number of nodes, of any label or none, that
// hold a value of index ix's first property: what a pattern without a
// label could match by it, against the index's entries on its label.
// O(value types) from the column's counts.
func (s *Snapshot) IndexKeyHolders(ix *catalog.Index) int64 {
	x := s.index(ix)
	if x == nil || len(x.keys) == 0 {
		return 0
	}
	c := s.nodeCol(x.keys[0])
	if c == nil {
		return 0
	}
	var n int64
	for _, k := range c.counts {
		n += k
	}
	return n
}
