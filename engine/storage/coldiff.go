package storage

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// RelColumn pins one version of a relationship property column, so that
// a later version can tell which ids it changed since (ChangedSince)
// without the whole snapshot being kept. It holds the column's group
// table only: the chunks it names are shared with the versions after it
// until written.
type RelColumn struct{ c *column }

// RelColumn is relationship property k's column in this version.
func (s *Snapshot) RelColumn(k catalog.KeyID) RelColumn { return RelColumn{s.relCol(k)} }

// ChangedSince calls fn(lo, hi) for every range of ids [lo, hi) whose
// chunk differs between old and c: a superset of the ids whose value
// changed. Writers copy a chunk (and its leaf) before changing it, so the walk
// compares pointers: O(ids/128k) for the leaves, 64 chunk pointers per
// leaf that differs, nothing per unchanged id.
func (c RelColumn) ChangedSince(old RelColumn, fn func(lo, hi uint64)) {
	if c.c == old.c {
		return
	}
	var x, y *groupTable
	if c.c != nil {
		x = &c.c.groups
	}
	if old.c != nil {
		y = &old.c.groups
	}
	leaves := func(t *groupTable) []*groupLeaf {
		if t == nil {
			return nil
		}
		return t.leaves
	}
	lx, ly := leaves(x), leaves(y)
	for li := range max(len(lx), len(ly)) {
		var a, b *groupLeaf
		if li < len(lx) {
			a = lx[li]
		}
		if li < len(ly) {
			b = ly[li]
		}
		if a == b {
			continue // a shared leaf: none of its chunks changed
		}
		for i := range leafSize {
			var ca, cb *chunk
			if a != nil {
				ca = a.ch[i]
			}
			if b != nil {
				cb = b.ch[i]
			}
			if ca != cb {
				lo := uint64(li<<leafShift+i) << groupShift
				fn(lo, lo+GroupSize)
			}
		}
	}
}

// Value is relationship id's value in this version of the column, nil
// when absent: for telling, within a range ChangedSince reports, the ids
// whose value did change (a commit that writes one id copies the chunk
// of its 2,048).
func (c RelColumn) Value(id uint64) vector.Value { return c.c.get(id) }
