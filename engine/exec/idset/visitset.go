// Package idset holds sets over 64-bit ids for the operators' hot loops:
// the visited set of a breadth-first search, the (group, value) set of
// a DISTINCT aggregate, with the reading of a value as such an id, the
// bitset of a far end's labels and the span of node ids a kernel visits
// in chunks.
package idset

// VisitSet is the visited set of a breadth-first search over node ids: a
// two-level bitset whose 512-byte blocks (4,096 ids each) are allocated
// on first touch and cleared block by block, so a search that touches a
// few nodes costs a few blocks, never O(|V|), and a search over a large
// part of the graph tests and sets bits with one load and one store.
// Roaring's array containers insert in sorted order with a memmove per
// new id: Q6's 3-hop reach of 121,671 nodes at scale M took 10.6 ms in
// VariableLengthExpand with roaring, 3.3 ms with this set (and pooled
// buffers, exec's reach.go). A set is reused across searches (Clear keeps the
// blocks for the next one).
type VisitSet struct {
	blocks  []*[visitWords]uint64
	touched []uint32 // blocks holding a bit, for Clear
	free    []*[visitWords]uint64
}

const (
	visitWords = 64
	visitShift = 12 // log2(64 words · 64 bits)
)

// Add sets id's bit and reports whether it was clear.
func (s *VisitSet) Add(id uint64) bool {
	bi := id >> visitShift
	if bi >= uint64(len(s.blocks)) {
		s.blocks = append(s.blocks, make([]*[visitWords]uint64, bi+1-uint64(len(s.blocks)))...)
	}
	b := s.blocks[bi]
	if b == nil {
		b = s.newBlock()
		s.blocks[bi] = b
		s.touched = append(s.touched, uint32(bi))
	}
	w, m := (id>>6)&(visitWords-1), uint64(1)<<(id&63)
	old := b[w]
	b[w] = old | m
	return old&m == 0
}

// Has reports whether id's bit is set.
func (s *VisitSet) Has(id uint64) bool {
	bi := id >> visitShift
	if bi >= uint64(len(s.blocks)) || s.blocks[bi] == nil {
		return false
	}
	return s.blocks[bi][(id>>6)&(visitWords-1)]&(1<<(id&63)) != 0
}

func (s *VisitSet) newBlock() *[visitWords]uint64 {
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	return new([visitWords]uint64)
}

// Clear empties the set, keeping its blocks for reuse.
func (s *VisitSet) Clear() {
	for _, bi := range s.touched {
		b := s.blocks[bi]
		*b = [visitWords]uint64{}
		s.free = append(s.free, b)
		s.blocks[bi] = nil
	}
	s.touched = s.touched[:0]
}

// Bytes is the memory the set's blocks in use hold, for the query's
// budget.
func (s *VisitSet) Bytes() int64 { return int64(len(s.touched)) * visitWords * 8 }
