package exec

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// The typed sort (rule typed-sort) orders the held rows through their key
// columns' typed slices rather than compareAcross's per-comparison type
// switch, with the standard library's pattern-defeating quicksort rather
// than the stable merge sort: the comparison ends on the row number, so
// the order is total and equals the stable one. The rows to sort are
// entries of a 64-bit prefix of the first key (an INTEGER's bits with the
// sign flipped, a STRING's first 8 bytes, inverted for DESC) and the row:
// most comparisons decide on the prefix alone, within one array. A large
// input is sorted in parts on the statement's workers and the parts
// merged. Entries in row order whose prefixes vary in few bytes are
// radix-sorted instead. BenchmarkRelational (100k rows, 256 names): ORDER
// BY name SKIP 50000 LIMIT 10 160–235 → 11–13 ms, every row by name and
// id 150 → 19–21 ms.

// sortEntry is one row to sort and its first key's prefix.
type sortEntry struct {
	prefix uint64
	row    int32
}

// typedKey is one ORDER BY key read through its column's typed slice;
// typ is vector.Any when the column holds mixed types and the comparison
// goes through compareRows.
type typedKey struct {
	typ  vector.Type
	v    *vector.Vector
	desc bool
}

// typedSortMinRows is the input below which sorting on one goroutine is
// cheaper than starting others; typedSortPart is the fewest rows a part
// of a parallel sort gets.
// A top-k whose k is at least a typedTopKShare-th of its rows sorts them
// all, as does every prune (pruneAt: 8k rows and a batch).
const (
	typedSortMinRows = 1 << 15
	typedSortPart    = 1 << 14
	typedTopKShare   = 16
)

// typedKeys reads the sort keys off the held columns.
func (s *sortOp) typedKeys() []typedKey {
	keys := make([]typedKey, 0, len(s.keys))
	for _, k := range s.keys {
		v := s.cols[k.Col].V
		if v == nil { // every row null: the key never decides
			continue
		}
		t := v.Type
		if t != vector.Int64 && t != vector.String && t != vector.Float64 {
			t = vector.Any
		}
		keys = append(keys, typedKey{typ: t, v: v, desc: k.Desc})
	}
	return keys
}

// compareTyped orders rows a and b as less does, as -1, 0 or +1; 0 only
// for a == b.
func compareTyped(keys []typedKey, a, b int32) int {
	for i := range keys {
		k := &keys[i]
		var c int
		if k.v.Valid != nil {
			an, bn := k.v.IsNull(int(a)), k.v.IsNull(int(b))
			switch {
			case an && bn:
				continue
			case an:
				c = 1
			case bn:
				c = -1
			}
		}
		if c == 0 {
			switch k.typ {
			case vector.Int64:
				c = cmp.Compare(k.v.I64[a], k.v.I64[b])
			case vector.String:
				c = strings.Compare(k.v.Str[a], k.v.Str[b])
			case vector.Float64:
				c = functions.CmpTotalFloat(k.v.F64[a], k.v.F64[b])
			default:
				c = compareRows(k.v, int(a), int(b))
			}
		}
		if c != 0 {
			if k.desc {
				return -c
			}
			return c
		}
	}
	return cmp.Compare(a, b)
}

// prefixOf is the first key's prefix of row r: comparing prefixes as
// unsigned numbers never contradicts compareTyped, and equal prefixes
// leave the order to it. A null sorts last ascending, first descending,
// as in Cypher; a type without a prefix gives every row 0.
func prefixOf(k *typedKey, r int) uint64 {
	var p uint64
	switch {
	case k.v.IsNull(r):
		p = math.MaxUint64
	case k.typ == vector.Int64:
		p = uint64(k.v.I64[r]) ^ 1<<63
	case k.typ == vector.String:
		var b [8]byte
		copy(b[:], k.v.Str[r])
		p = binary.BigEndian.Uint64(b[:])
	default:
		return 0
	}
	if k.desc {
		p = ^p
	}
	return p
}

// stringRanks sets each entry's prefix to the rank of its row's string
// among the key's distinct strings (null after every string, the order
// inverted for DESC), an exact prefix, when the strings are few: at most
// a sixteenth of the rows, or 256. It reports false, leaving the
// prefixes unset, as soon as there are more. The first pass numbers the
// strings as they come in the prefixes, the second turns the numbers
// into ranks.
func stringRanks(k *typedKey, entries []sortEntry) bool {
	limit := max(len(entries)/16, 256)
	seen := make(map[string]uint32, min(limit, 1024))
	var order []string
	for i := range entries {
		r := int(entries[i].row)
		if k.v.IsNull(r) {
			entries[i].prefix = math.MaxUint64
			continue
		}
		str := k.v.Str[r]
		id, ok := seen[str]
		if !ok {
			if len(order) == limit {
				return false
			}
			id = uint32(len(order))
			seen[str] = id
			order = append(order, str)
		}
		entries[i].prefix = uint64(id)
	}
	ids := make([]uint32, len(order))
	for i := range ids {
		ids[i] = uint32(i)
	}
	slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(order[a], order[b]) })
	rank := make([]uint64, len(order))
	for rk, id := range ids {
		rank[id] = uint64(rk)
	}
	for i := range entries {
		p := entries[i].prefix
		if p != math.MaxUint64 {
			p = rank[p]
		}
		if k.desc {
			p = ^p
		}
		entries[i].prefix = p
	}
	return true
}

// sortTyped sorts perm by the sort keys (the typed-sort rule), on up to
// the statement's workers for a large input, polling the statement's
// context as sortRows does.
func (s *sortOp) sortTyped(perm []int32) error {
	n := len(perm)
	if n < 2 {
		return nil
	}
	keys := s.typedKeys()
	src, charged, err := rowstore.GrowHeld(&s.c.Mem, []sortEntry(nil), n, 16)
	if err != nil {
		return err
	}
	defer func() { s.c.Mem.Release(charged) }()
	src = src[:n]
	// dst is the second array a radix pass or a merge needs, charged and
	// made only then.
	var dst []sortEntry
	second := func() error {
		d, grown, err := rowstore.GrowHeld(&s.c.Mem, []sortEntry(nil), n, 16)
		if err != nil {
			return err
		}
		charged += grown
		dst = d[:n:n]
		return nil
	}
	for i, r := range perm {
		src[i] = sortEntry{row: r}
	}
	// rest are the keys left to compare on equal prefixes: all of them,
	// or all but the first when its prefix is exact.
	rest := keys
	if len(keys) > 0 {
		switch k := &keys[0]; {
		case k.typ == vector.String && stringRanks(k, src):
			rest = keys[1:]
		case k.typ == vector.Int64 || k.typ == vector.String:
			for i := range src {
				src[i].prefix = prefixOf(k, int(src[i].row))
			}
			if k.typ == vector.Int64 && k.v.Valid == nil {
				rest = keys[1:]
			}
		}
	}
	compare := func(x, y sortEntry) int {
		if x.prefix != y.prefix {
			if x.prefix < y.prefix {
				return -1
			}
			return 1
		}
		if len(rest) == 0 {
			return cmp.Compare(x.row, y.row)
		}
		return compareTyped(rest, x.row, y.row)
	}
	if shifts, ok := radixShifts(src); len(keys) > 0 && ok {
		if err := second(); err != nil {
			return err
		}
		radixSort(src, dst, shifts, compare)
		for i := range src {
			perm[i] = src[i].row
		}
		return s.c.Interrupted()
	}
	parts := 1
	if s.c.Parallelism > 1 && n >= typedSortMinRows {
		parts = min(s.c.Parallelism, n/typedSortPart)
	}
	bounds := make([]int, parts+1)
	for p := range bounds {
		bounds[p] = n * p / parts
	}
	stopped := make([]bool, parts)
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stopped[p] = s.sortPart(src[bounds[p]:bounds[p+1]], compare)
		}()
	}
	stopped[0] = s.sortPart(src[bounds[0]:bounds[1]], compare)
	wg.Wait()
	if slices.Contains(stopped, true) {
		return s.c.CheckCancel()
	}
	if parts > 1 {
		if err := second(); err != nil {
			return err
		}
	}
	// Merge neighbouring runs until one is left, between the two halves
	// of entries.
	for len(bounds) > 2 {
		next := []int{0}
		for p := 0; p+1 < len(bounds); p += 2 {
			if p+2 < len(bounds) {
				mergeEntries(dst[bounds[p]:bounds[p+2]], src[bounds[p]:bounds[p+1]], src[bounds[p+1]:bounds[p+2]], compare)
				next = append(next, bounds[p+2])
			} else {
				copy(dst[bounds[p]:bounds[p+1]], src[bounds[p]:bounds[p+1]])
				next = append(next, bounds[p+1])
			}
		}
		if err := s.c.Interrupted(); err != nil {
			return err
		}
		src, dst, bounds = dst, src, next
	}
	for i := range src {
		perm[i] = src[i].row
	}
	return nil
}

// sortPart sorts one part of the entries, reporting true when the
// statement's context ended first. It reads the context and nothing else
// of the statement, so parts may run on several goroutines.
func (s *sortOp) sortPart(part []sortEntry, compare func(x, y sortEntry) int) (stopped bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interruptedSort); !ok {
				panic(r)
			}
			stopped = true
		}
	}()
	ctx, n := s.c.Ctx, 0
	slices.SortFunc(part, func(x, y sortEntry) int {
		if n++; n%sortCheckEvery == 0 && ctx != nil && ctx.Err() != nil {
			panic(interruptedSort{})
		}
		return compare(x, y)
	})
	return false
}

// mergeEntries merges the sorted runs a and b into out (len(a)+len(b)).
func mergeEntries(out, a, b []sortEntry, compare func(x, y sortEntry) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if compare(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}

// radixMaxBytes is the most prefix bytes that vary for which radixSort
// is cheaper than comparing: each is a pass over the entries.
const radixMaxBytes = 3

// radixShifts reports whether entries suit radixSort: many, in row
// order, their prefixes varying in 1 to radixMaxBytes bytes, which it
// returns as shifts (prefixes all equal leave the work to comparisons,
// which the parallel sort spreads).
func radixShifts(entries []sortEntry) ([]uint, bool) {
	if len(entries) < 1<<12 {
		return nil, false
	}
	var or, and uint64 = 0, math.MaxUint64
	for i := range entries {
		if i > 0 && entries[i].row < entries[i-1].row {
			return nil, false
		}
		or |= entries[i].prefix
		and &= entries[i].prefix
	}
	varying := or ^ and
	var shifts []uint
	for shift := uint(0); shift < 64; shift += 8 {
		if varying>>shift&0xff != 0 {
			shifts = append(shifts, shift)
		}
	}
	return shifts, len(shifts) > 0 && len(shifts) <= radixMaxBytes
}

// radixSort sorts entries that are in row order by prefix, stably (so
// equal prefixes stay in row order), with one counting pass per prefix
// byte that varies (shifts, from radixShifts), through tmp (as long as
// entries); then sorts each run of equal prefixes by compare, which the
// exact prefix of one key leaves in order already.
func radixSort(entries, tmp []sortEntry, shifts []uint, compare func(x, y sortEntry) int) {
	src, dst := entries, tmp
	for _, shift := range shifts {
		var count [257]int
		for i := range src {
			count[src[i].prefix>>shift&0xff+1]++
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for i := range src {
			b := src[i].prefix >> shift & 0xff
			dst[count[b]] = src[i]
			count[b]++
		}
		src, dst = dst, src
	}
	if len(shifts)%2 == 1 {
		copy(entries, src)
	}
	for lo := 0; lo < len(entries); {
		hi := lo + 1
		for hi < len(entries) && entries[hi].prefix == entries[lo].prefix {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(entries[lo:hi], compare)
		}
		lo = hi
	}
}
