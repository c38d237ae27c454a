// Package inttable maps int64 keys to small numbers (a grouping's group
// numbers, a key's ids): a direct-mapped array for the small
// non-negative keys ids are, an open-addressing table for the rest. It
// is the hash aggregate's table for an integer or node key (keys.go reads
// a row as such a key), and the table of a multi-key grouping's combined
// ids.
package inttable

import "math/bits"

// Table maps int64 grouping keys to group numbers. It replaces a Go
// map on the hash aggregate's hottest path (GROUP BY an integer id),
// where a map costs two hashed probes per new key and a pointer-chasing
// rehash as it grows.
//
// Keys in [0, len(dense)) live in a direct-mapped array: ids and other
// small non-negative keys are the common grouping key, and a direct load
// beats any hash, which misses cache on every new key (exec's
// BenchmarkAggIntKeysDense against Hashed: 1M groups in 89 against 146 ms on a loaded
// machine, a third of the bytes allocated). The array only
// grows while it stays dense (at most denseSlack slots per group plus a
// fixed start, and half as much again as it grows), so a few huge keys
// cannot make it large; every other key
// lives in an open-addressing table with linear probing over two flat
// slices, kept at most half full. When the array grows it takes over the
// hashed keys of its new range, so a key is always in exactly one part.
type Table struct {
	dense []int32 // group+1 of key k at dense[k]; 0 marks no group
	keys  []int64
	vals  []int32 // group+1; 0 marks an empty slot
	n     int     // keys in the hashed part
	total int     // keys in both parts
	shift uint    // 64 - log2(len(keys))
}

const (
	denseStart = 1 << 16 // keys below this are always direct-mapped
	denseSlack = 4       // array slots allowed per group
)

// Ref returns the cell holding k's group+1, or the empty cell (0) where
// the caller stores group+1 for a new k. Storing a nonzero value in an
// empty cell is the insertion: the caller must do so before the next
// call, and a cell is only good until then.
func (t *Table) Ref(k int64) *int32 {
	if uint64(k) < uint64(len(t.dense)) {
		return t.count(&t.dense[k])
	}
	if k >= 0 && k < 1<<31-1 && k < int64(denseStart+denseSlack*(t.total+1)) {
		t.growDense(k)
		return t.count(&t.dense[k])
	}
	if 2*(t.n+1) > len(t.keys) {
		t.growHash()
	}
	mask := uint64(len(t.keys) - 1)
	i := (uint64(k) * 0x9E3779B97F4A7C15) >> t.shift
	for t.vals[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	if t.vals[i] == 0 {
		t.keys[i] = k
		t.n++
		t.total++
	}
	return &t.vals[i]
}

// Dense is the direct-mapped array: Dense()[k], for k below its length,
// is key k's group+1 (0: none). A hot loop reads it without a call, and
// reads it again after a Ref, which may grow it.
func (t *Table) Dense() []int32 { return t.dense }

// Len is the number of keys in the table.
func (t *Table) Len() int { return t.total }

// count counts a dense cell about to be filled.
func (t *Table) count(c *int32) *int32 {
	if *c == 0 {
		t.total++
	}
	return c
}

// growDense extends the array to cover k (doubling it where the bound
// allows) and moves the hashed keys it now covers into it. The array may
// run half past the dense bound: keys that start high and climb (a
// label's nodes after a bulk load number from where the previous label's
// ended) reach the bound only a few groups at a time, and growing just to
// it would copy the whole array for every few new groups.
func (t *Table) growDense(k int64) {
	bound := int64(denseStart + denseSlack*(t.total+1))
	size := max(int64(2*len(t.dense)), k+1, 1024)
	size = min(size, max(k+1, bound+bound/2))
	grown := make([]int32, size)
	copy(grown, t.dense)
	t.dense = grown
	if t.n == 0 {
		return
	}
	old, oldVals := t.keys, t.vals
	t.keys, t.vals, t.n = nil, nil, 0
	for i, v := range oldVals {
		if v == 0 {
			continue
		}
		if uint64(old[i]) < uint64(len(t.dense)) {
			t.dense[old[i]] = v
			continue
		}
		if 2*(t.n+1) > len(t.keys) {
			t.growHash()
		}
		t.insertHash(old[i], v)
	}
}

func (t *Table) growHash() { t.rehash(max(1024, 2*len(t.keys))) }

// ReserveHash sizes the hashed part for n more keys at once. A caller
// inserting another table's keys in that table's order (Each) must: they
// come in the order of their hashes, and into a smaller table of the
// same hash they pile up in one run that every insertion walks.
func (t *Table) ReserveHash(n int) {
	size := max(1024, len(t.keys))
	for 2*(t.n+n) > size {
		size *= 2
	}
	if size > len(t.keys) {
		t.rehash(size)
	}
}

// rehash moves the hashed keys into a table of size slots (a power of
// two, room for them at most half full).
func (t *Table) rehash(size int) {
	old, oldVals := t.keys, t.vals
	t.keys, t.vals = make([]int64, size), make([]int32, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for i, v := range oldVals {
		if v != 0 {
			t.insertHash(old[i], v)
		}
	}
}

// insertHash puts a key known to be absent into the hashed part, which
// has room.
func (t *Table) insertHash(k int64, v int32) {
	mask := uint64(len(t.keys) - 1)
	i := (uint64(k) * 0x9E3779B97F4A7C15) >> t.shift
	for t.vals[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
}

// ReserveDense sizes the direct-mapped array for keys below n at once,
// when every key so far was direct-mapped (a grouping by id that will
// make about n groups); the array then never grows by copying.
func (t *Table) ReserveDense(n int) {
	if t.n > 0 || n <= len(t.dense) || n >= 1<<31-1 {
		return
	}
	grown := make([]int32, n)
	copy(grown, t.dense)
	t.dense = grown
}

// Bytes is the memory the table holds, for the query's budget.
func (t *Table) Bytes() int64 { return 4*int64(len(t.dense)) + 12*int64(len(t.keys)) }

// Each calls fn with every key of the table and its value, in no
// particular order.
func (t *Table) Each(fn func(k int64, v int32)) {
	for k, v := range t.dense {
		if v != 0 {
			fn(int64(k), v)
		}
	}
	for i, v := range t.vals {
		if v != 0 {
			fn(t.keys[i], v)
		}
	}
}
