package storage

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
)

// nodeIndex is one version of a node property index: an immutable base
// shared by every version built on it, plus a small sorted delta of the
// changes since the base was built. A snapshot's index table holds the
// versions it was committed with, so a query at snapshot S reads exactly
// S's entries; a write transaction copies the delta of an index it touches
// once (owned by its epoch) and edits the copy in place.
//
//	nodeIndex
//	  def     the catalog description (name, type, label, keys, slot)
//	  label   resolved label id; keys: resolved property key ids
//	  run     BTREE base: entries sorted by (key, id)
//	  hash    HASH base: key → node ids (ascending)
//	  delta   changes since the base, sorted by (key, id); each entry
//	          says whether (key, id) is present, overriding the base
//
// The delta is folded into a new base once it outgrows foldMin +
// base/foldRatio entries, so reads pay a binary search in a short delta
// and a commit's cost stays amortized O(changes · log changes). A
// transaction appends its changes to pending and merges them (flush)
// before it reads the index and at commit.
type nodeIndex struct {
	def   *catalog.Index
	label catalog.LabelID
	keys  []catalog.KeyID
	run   []indexEntry
	hash  map[string][]uint64
	nbase int
	// distinct counts the base's distinct keys (index statistics),
	// computed when the base is built.
	distinct int64
	delta    []deltaEntry
	// pending are changes of the owning transaction not yet merged into
	// delta, in the order made (a later one for the same (key, id) wins).
	// Appending keeps a bulk write O(1) per change; flush sorts and merges
	// them before any read. Committed versions have none.
	pending []deltaEntry
	epoch   uint64 // the write epoch that owns delta (may edit it in place)
}

type indexEntry struct {
	key string
	id  uint64
}

type deltaEntry struct {
	indexEntry
	present bool
}

const (
	foldMin   = 256
	foldRatio = 8
)

func entryLess(a, b indexEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.id < b.id
}

// cmpEntry orders entries by key, then id (entryLess as a comparison).
func cmpEntry(a, b indexEntry) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

func (x *nodeIndex) setBase(entries []indexEntry) {
	// Keys read in id order are often already sorted (integer keys
	// assigned in load order); checking first makes that case O(n).
	if !slices.IsSortedFunc(entries, cmpEntry) {
		slices.SortFunc(entries, cmpEntry)
	}
	x.nbase = len(entries)
	x.run, x.hash = nil, nil
	x.distinct = 0
	for i := range entries {
		if i == 0 || entries[i].key != entries[i-1].key {
			x.distinct++
		}
	}
	if x.def.Type == catalog.Hash {
		x.hash = make(map[string][]uint64, x.distinct)
		for _, e := range entries {
			x.hash[e.key] = append(x.hash[e.key], e.id)
		}
		return
	}
	x.run = entries
}

// owned returns a version of x whose delta epoch may edit in place.
func (x *nodeIndex) owned(epoch uint64) *nodeIndex {
	if x.epoch == epoch {
		return x
	}
	c := *x
	c.delta = append([]deltaEntry(nil), x.delta...)
	c.pending = nil
	c.epoch = epoch
	return &c
}

// set records that (key, id) is present or absent. The caller owns x.
func (x *nodeIndex) set(key string, id uint64, present bool) {
	x.pending = append(x.pending, deltaEntry{indexEntry{key, id}, present})
}

// flush merges pending changes into the sorted delta: a stable sort of
// the pending entries (the last change of a (key, id) wins), then one
// merge pass. The caller owns x.
func (x *nodeIndex) flush() {
	if len(x.pending) == 0 {
		return
	}
	p := x.pending
	sort.SliceStable(p, func(i, j int) bool { return entryLess(p[i].indexEntry, p[j].indexEntry) })
	last := p[:0]
	for i := range p {
		if i+1 < len(p) && p[i+1].indexEntry == p[i].indexEntry {
			continue
		}
		last = append(last, p[i])
	}
	merged := make([]deltaEntry, 0, len(x.delta)+len(last))
	d := x.delta
	for _, e := range last {
		for len(d) > 0 && entryLess(d[0].indexEntry, e.indexEntry) {
			merged = append(merged, d[0])
			d = d[1:]
		}
		if len(d) > 0 && d[0].indexEntry == e.indexEntry {
			d = d[1:]
		}
		merged = append(merged, e)
	}
	x.delta = append(merged, d...)
	x.pending = nil
	x.fold()
}

// fold merges the delta into a new base when it has grown large. The
// caller owns x; the old base stays untouched for older snapshots.
func (x *nodeIndex) fold() {
	if len(x.delta) <= foldMin+x.nbase/foldRatio {
		return
	}
	x.setBase(x.entries())
	x.delta = nil
}

// entries lists every present entry, sorted by (key, id).
func (x *nodeIndex) entries() []indexEntry {
	out := make([]indexEntry, 0, x.nbase+len(x.delta))
	if x.hash != nil {
		for k, ids := range x.hash {
			for _, id := range ids {
				out = append(out, indexEntry{k, id})
			}
		}
		sort.Slice(out, func(i, j int) bool { return entryLess(out[i], out[j]) })
	} else {
		out = append(out, x.run...)
	}
	merged := out[:0:0]
	d := x.delta
	for _, e := range out {
		for len(d) > 0 && entryLess(d[0].indexEntry, e) {
			if d[0].present {
				merged = append(merged, d[0].indexEntry)
			}
			d = d[1:]
		}
		if len(d) > 0 && d[0].indexEntry == e {
			if d[0].present {
				merged = append(merged, e)
			}
			d = d[1:]
			continue
		}
		merged = append(merged, e)
	}
	for _, de := range d {
		if de.present {
			merged = append(merged, de.indexEntry)
		}
	}
	return merged
}

// equal returns the ids of nodes whose whole key is key.
func (x *nodeIndex) equal(key string) *roaring.Bitmap {
	bm := roaring.New()
	if x.hash != nil {
		for _, id := range x.hash[key] {
			bm.Add(uint32(id))
		}
	} else {
		i := sort.Search(len(x.run), func(i int) bool { return x.run[i].key >= key })
		for ; i < len(x.run) && x.run[i].key == key; i++ {
			bm.Add(uint32(x.run[i].id))
		}
	}
	i := sort.Search(len(x.delta), func(i int) bool { return x.delta[i].key >= key })
	for ; i < len(x.delta) && x.delta[i].key == key; i++ {
		applyDelta(bm, x.delta[i])
	}
	return bm
}

// scan returns the ids of nodes whose key k has lo <= k < hi (hi == ""
// is unbounded). Only a BTREE index is ordered; callers check the type.
func (x *nodeIndex) scan(lo, hi string) *roaring.Bitmap {
	bm := roaring.New()
	in := func(k string) bool { return hi == "" || k < hi }
	i := sort.Search(len(x.run), func(i int) bool { return x.run[i].key >= lo })
	for ; i < len(x.run) && in(x.run[i].key); i++ {
		bm.Add(uint32(x.run[i].id))
	}
	i = sort.Search(len(x.delta), func(i int) bool { return x.delta[i].key >= lo })
	j := i
	for ; j < len(x.delta) && in(x.delta[j].key); j++ {
	}
	// Absent entries first: a node that moved from key a to key b within
	// the range has (a, absent) and (b, present), in either key order.
	for _, d := range x.delta[i:j] {
		if !d.present {
			bm.Remove(uint32(d.id))
		}
	}
	for _, d := range x.delta[i:j] {
		if d.present {
			bm.Add(uint32(d.id))
		}
	}
	return bm
}

// applyDelta applies one delta entry of a single key: the delta has one
// entry per (key, id), so within one key the order does not matter.
func applyDelta(bm *roaring.Bitmap, d deltaEntry) {
	if d.present {
		bm.Add(uint32(d.id))
	} else {
		bm.Remove(uint32(d.id))
	}
}
