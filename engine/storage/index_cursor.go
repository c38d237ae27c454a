package storage

import (
	"sort"

	"github.com/quiverdb/quiver/engine/catalog"
)

// IndexCursor reads the node ids of a BTREE key range in key order (ties
// by id), ascending or descending, a batch at a time, so a query that
// stops early (ORDER BY … LIMIT) reads only what it returns. It holds a
// sub-slice of the version's immutable base run and a copy of the delta
// entries of the range: later writes of the same transaction, which edit
// the delta in place or fold it into a new base, do not reach it.
type IndexCursor struct {
	run   []indexEntry
	delta []deltaEntry
	desc  bool
}

// IndexCursor opens a cursor over keys lo <= k < hi (hi == "":
// unbounded) of BTREE index ix; nil when ix is not a BTREE index of
// this version.
func (s *Snapshot) IndexCursor(ix *catalog.Index, lo, hi string, desc bool) *IndexCursor {
	x := s.index(ix)
	if x == nil || x.def.Type != catalog.BTree {
		return nil
	}
	bound := func(n int, key func(int) string) (int, int) {
		i := sort.Search(n, func(i int) bool { return key(i) >= lo })
		j := n
		if hi != "" {
			j = sort.Search(n, func(i int) bool { return key(i) >= hi })
		}
		return i, max(i, j)
	}
	ri, rj := bound(len(x.run), func(i int) string { return x.run[i].key })
	di, dj := bound(len(x.delta), func(i int) string { return x.delta[i].key })
	return &IndexCursor{run: x.run[ri:rj], delta: append([]deltaEntry(nil), x.delta[di:dj]...), desc: desc}
}

// IndexCursor: see Snapshot.IndexCursor; a Tx sees its own writes up to
// the moment the cursor opens.
func (tx *Tx) IndexCursor(ix *catalog.Index, lo, hi string, desc bool) *IndexCursor {
	tx.markIndexRead(ix)
	if w := tx.w; w != nil {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.flushIndexesLocked()
	}
	return tx.view().IndexCursor(ix, lo, hi, desc)
}

// Next fills dst with the next ids and returns how many; 0 at the end.
func (c *IndexCursor) Next(dst []uint64) int {
	n := 0
	for n < len(dst) {
		id, ok := c.pop()
		if !ok {
			break
		}
		dst[n] = id
		n++
	}
	return n
}

// pop merges the run and the delta: a delta entry overrides the run's
// entry of the same (key, id) and adds the ones the run lacks.
func (c *IndexCursor) pop() (uint64, bool) {
	for len(c.run) > 0 || len(c.delta) > 0 {
		var r indexEntry
		var d deltaEntry
		hasR, hasD := len(c.run) > 0, len(c.delta) > 0
		if hasR {
			r = c.run[0]
			if c.desc {
				r = c.run[len(c.run)-1]
			}
		}
		if hasD {
			d = c.delta[0]
			if c.desc {
				d = c.delta[len(c.delta)-1]
			}
		}
		runFirst := hasR && (!hasD || (!c.desc && entryLess(r, d.indexEntry)) || (c.desc && entryLess(d.indexEntry, r)))
		switch {
		case runFirst:
			c.dropRun()
			return r.id, true
		case hasR && r == d.indexEntry:
			c.dropRun()
			c.dropDelta()
			if d.present {
				return r.id, true
			}
		default:
			c.dropDelta()
			if d.present {
				return d.id, true
			}
		}
	}
	return 0, false
}

func (c *IndexCursor) dropRun() {
	if c.desc {
		c.run = c.run[:len(c.run)-1]
	} else {
		c.run = c.run[1:]
	}
}

func (c *IndexCursor) dropDelta() {
	if c.desc {
		c.delta = c.delta[:len(c.delta)-1]
	} else {
		c.delta = c.delta[1:]
	}
}
