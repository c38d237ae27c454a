package storage

// Tallying a view counts its ids by value: a grouping by an INTEGER
// property with few distinct values (a relationship's since year, a
// node's age) reads the view in id order and bumps one counter per id,
// with no hashing while the values fit 16 bits.

// Base is the value code 0 stands for: an id with code c has value
// Base()+c.
func (v *IntView) Base() int64 { return v.base }

// Codes is the number of codes a value of the view can take when it is
// at most 16 bits wide (256 or 65536), 0 for a wider view, whose values
// Tally counts in a map.
func (v *IntView) Codes() int {
	switch {
	case v.u8 != nil:
		return 1 << 8
	case v.u16 != nil:
		return 1 << 16
	}
	return 0
}

// Tally counts the ids from..to-1 by value: dense[c] grows by one per id
// with code c when Codes() > 0 (dense has Codes() entries), sparse[value]
// per id otherwise. It returns how many of the ids have no value (ids
// outside the view have none).
func (v *IntView) Tally(from, to uint64, dense []int64, sparse map[int64]int64) (nulls int64) {
	if to <= from {
		return 0
	}
	lo, hi := max(from, v.lo), min(to, v.n)
	if hi <= lo {
		return int64(to - from)
	}
	nulls = int64(lo-from) + int64(to-hi)
	x, y := lo-v.lo, hi-v.lo
	switch {
	case v.u8 != nil:
		nulls += tallyDense(v.u8[x:y], v.valid, x, dense)
	case v.u16 != nil:
		nulls += tallyDense(v.u16[x:y], v.valid, x, dense)
	case v.u32 != nil:
		nulls += tallySparse(v.u32[x:y], v.valid, x, v.base, sparse)
	default:
		nulls += tallySparse(v.u64[x:y], v.valid, x, v.base, sparse)
	}
	return nulls
}

// tallyDense counts vals (rows at..at+len(vals)-1 of the view) by code;
// valid is the view's validity bitmap (nil: every row has a value).
func tallyDense[T uint8 | uint16](vals []T, valid []uint64, at uint64, dense []int64) (nulls int64) {
	if valid == nil {
		dense = dense[:1<<(8*sizeOf[T]())]
		for _, c := range vals {
			dense[c]++
		}
		return 0
	}
	for i, c := range vals {
		r := at + uint64(i)
		if valid[r>>6]&(1<<(r&63)) == 0 {
			nulls++
			continue
		}
		dense[c]++
	}
	return nulls
}

// tallySparse counts vals by value in a map, for views wider than 16
// bits.
func tallySparse[T uint32 | uint64](vals []T, valid []uint64, at uint64, base int64, sparse map[int64]int64) (nulls int64) {
	for i, c := range vals {
		if r := at + uint64(i); valid != nil && valid[r>>6]&(1<<(r&63)) == 0 {
			nulls++
			continue
		}
		sparse[base+int64(c)]++
	}
	return nulls
}

// sizeOf is the size in bytes of a dense code type.
func sizeOf[T uint8 | uint16]() uint {
	var z T
	if ^z == T(0xff) {
		return 1
	}
	return 2
}
