package storage

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
)

// IndexEqual returns the nodes whose whole key in index ix is key (built
// with AppendIndexKey over the index's properties, in order). The bitmap
// is the caller's.
func (s *Snapshot) IndexEqual(ix *catalog.Index, key string) *roaring.Bitmap {
	if x := s.index(ix); x != nil {
		return x.equal(key)
	}
	return roaring.New()
}

// IndexRange returns the nodes whose key k in BTREE index ix has
// lo <= k < hi (hi == "": unbounded). The bitmap is the caller's.
func (s *Snapshot) IndexRange(ix *catalog.Index, lo, hi string) *roaring.Bitmap {
	if x := s.index(ix); x != nil && x.def.Type == catalog.BTree {
		return x.scan(lo, hi)
	}
	return roaring.New()
}

// IndexStats returns the number of entries and of distinct keys of index
// ix (distinct keys of its last folded base: an estimate).
func (s *Snapshot) IndexStats(ix *catalog.Index) (entries, distinct int64) {
	x := s.index(ix)
	if x == nil {
		return 0, 0
	}
	return int64(x.nbase + len(x.delta)), x.distinct
}

func (s *Snapshot) index(ix *catalog.Index) *nodeIndex {
	if ix == nil || ix.Slot >= len(s.indexes) {
		return nil
	}
	if x := s.indexes[ix.Slot]; x != nil && x.def.Name == ix.Name {
		return x
	}
	return nil
}

// IndexEqual: see Snapshot.IndexEqual; a Tx sees its own writes.
func (tx *Tx) IndexEqual(ix *catalog.Index, key string) *roaring.Bitmap {
	tx.markIndexRead(ix)
	if w := tx.w; w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.flushIndexesLocked()
	}
	return tx.view().IndexEqual(ix, key)
}

// IndexRange: see Snapshot.IndexRange; a Tx sees its own writes.
func (tx *Tx) IndexRange(ix *catalog.Index, lo, hi string) *roaring.Bitmap {
	tx.markIndexRead(ix)
	if w := tx.w; w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.flushIndexesLocked()
	}
	return tx.view().IndexRange(ix, lo, hi)
}

// checkIndexes verifies that every index holds exactly one entry per node
// with its label and all its properties, under the key of the node's
// current values, and that the schema and the index table agree.
func (s *Snapshot) checkIndexes() error {
	sc := s.Schema()
	live := 0
	for _, x := range s.indexes {
		if x != nil {
			live++
		}
	}
	want := 0
	for _, ix := range sc.Indexes {
		if !ix.Type.Secondary() {
			want++
		}
	}
	if live != want {
		return fmt.Errorf("%d index versions for %d indexes in the schema", live, want)
	}
	for _, ix := range sc.Indexes {
		if ix.Type.Secondary() {
			continue
		}
		x := s.index(ix)
		if x == nil {
			return fmt.Errorf("index %s has no entries at slot %d", ix.Name, ix.Slot)
		}
		var want []indexEntry
		it := s.LabelNodes(x.label).Iterator()
		for it.HasNext() {
			id := uint64(it.Next())
			if key, ok := x.snapshotKey(s, id); ok {
				want = append(want, indexEntry{key, id})
			}
		}
		got := x.entries()
		// want is in id order; compare as sets keyed by id.
		byID := make(map[uint64]string, len(want))
		for _, e := range want {
			byID[e.id] = e.key
		}
		if len(got) != len(want) {
			return fmt.Errorf("index %s has %d entries, the nodes give %d", ix.Name, len(got), len(want))
		}
		for i, e := range got {
			if k, ok := byID[e.id]; !ok || k != e.key {
				return fmt.Errorf("index %s: entry for node %d does not match the node's properties", ix.Name, e.id)
			}
			if i > 0 && !entryLess(got[i-1], e) {
				return fmt.Errorf("index %s: entries out of order at %d", ix.Name, i)
			}
		}
		if len(x.pending) > 0 {
			return fmt.Errorf("index %s: %d unmerged changes in a committed version", ix.Name, len(x.pending))
		}
		for i := 1; i < len(x.delta); i++ {
			if !entryLess(x.delta[i-1].indexEntry, x.delta[i].indexEntry) {
				return fmt.Errorf("index %s: delta out of order at %d", ix.Name, i)
			}
		}
	}
	return nil
}

// markIndexRead records an index read in a SERIALIZABLE transaction's
// read footprint: the index's label and keys.
func (tx *Tx) markIndexRead(ix *catalog.Index) {
	if tx.reads == nil || ix == nil {
		return
	}
	if l, ok := tx.s.cat.LookupLabel(ix.Label); ok {
		tx.reads.mark(readLabel, uint32(l))
	}
	for _, name := range ix.Keys {
		if k, ok := tx.s.cat.LookupKey(name); ok {
			tx.reads.mark(readNodeKey, uint32(k))
		}
	}
}
