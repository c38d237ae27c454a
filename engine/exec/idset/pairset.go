package idset

import (
	"math/bits"

	"github.com/quiverdb/quiver/vector"
)

// PairSet is a set of (group, 64-bit value) pairs: the duplicate check of
// a DISTINCT aggregate over integers, nodes or relationships. Open
// addressing with linear probing over two flat slices kept at most half
// full, so a check is one multiply and a probe or two, where the generic
// path (a Go map over byte keys, package rowkey) encodes, hashes and often
// grows a map per value (25 ms of Q6's count(DISTINCT c) over 121,671
// node rows at scale M went to that map; a global aggregate now takes a
// bitset instead, see exec's aggState.global, and the Aggregate costs 1 ms).
type PairSet struct {
	vals  []uint64
	grps  []int32 // group+1; 0 marks an empty slot
	n     int
	shift uint // 64 - log2(len(vals))
}

// Add inserts (g, x) and reports whether it was new.
func (s *PairSet) Add(g int32, x uint64) bool {
	if 2*(s.n+1) > len(s.vals) {
		s.grow()
	}
	mask := uint64(len(s.vals) - 1)
	i := ((x ^ uint64(g)<<40) * 0x9E3779B97F4A7C15) >> s.shift
	for {
		switch s.grps[i] {
		case 0:
			s.vals[i], s.grps[i] = x, g+1
			s.n++
			return true
		case g + 1:
			if s.vals[i] == x {
				return false
			}
		}
		i = (i + 1) & mask
	}
}

func (s *PairSet) grow() {
	size := max(64, 2*len(s.vals))
	old, oldGrps := s.vals, s.grps
	s.vals, s.grps = make([]uint64, size), make([]int32, size)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	s.n = 0
	for i, g := range oldGrps {
		if g != 0 {
			s.Add(g-1, old[i])
		}
	}
}

// Bytes is the memory the set holds, for the query's budget.
func (s *PairSet) Bytes() int64 { return 12 * int64(len(s.vals)) }

// Kinds of values a DISTINCT aggregate checks in a PairSet; every other
// value goes through its byte key.
const (
	KindInt = iota
	KindNode
	KindRel
	Kinds
)

// DistinctID reads row r of v (not null) as a value of one of the integer
// kinds. A value of such a kind gets the same answer whether it comes in
// a typed vector or a generic one, so a group's values never split
// between the set and the byte-keyed map.
func DistinctID(v *vector.Vector, r int) (kind int, x uint64, ok bool) {
	switch v.Type {
	case vector.Int64:
		return KindInt, uint64(v.I64[r]), true
	case vector.Node:
		return KindNode, v.IDs[r], true
	case vector.Rel:
		return KindRel, v.IDs[r], true
	case vector.Any:
		switch y := v.Any[r].(type) {
		case int64:
			return KindInt, uint64(y), true
		case vector.NodeRef:
			return KindNode, uint64(y), true
		case vector.RelRef:
			return KindRel, uint64(y), true
		}
	}
	return 0, 0, false
}
