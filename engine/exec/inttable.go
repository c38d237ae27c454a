package exec

import "math/bits"

// intTable maps int64 grouping keys to group numbers: open addressing
// with linear probing over two flat slices, kept at most half full. It
// replaces a Go map on the hash aggregate's hottest path (GROUP BY an
// integer id), where a map costs two hashed probes per new key and a
// pointer-chasing rehash as it grows.
type intTable struct {
	keys  []int64
	vals  []int32 // group+1; 0 marks an empty slot
	n     int
	shift uint // 64 - log2(len(keys))
}

// slot returns the slot holding k, or the empty slot where k belongs. It
// may grow the table, so a slot is only good until the next call.
func (t *intTable) slot(k int64) int {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	i := (uint64(k) * 0x9E3779B97F4A7C15) >> t.shift
	for t.vals[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	return int(i)
}

// put stores group g for k, which must not be in the table yet, at the
// slot slot returned for it.
func (t *intTable) put(i int, k int64, g int32) {
	t.keys[i], t.vals[i] = k, g+1
	t.n++
}

func (t *intTable) grow() {
	size := max(1024, 2*len(t.keys))
	old, oldVals := t.keys, t.vals
	t.keys, t.vals = make([]int64, size), make([]int32, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for i, v := range oldVals {
		if v != 0 {
			t.put(t.slot(old[i]), old[i], v-1)
		}
	}
}
