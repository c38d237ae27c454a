package storage

import "github.com/quiverdb/quiver/engine/catalog"

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
// changed. Writers copy a chunk before changing it, so the walk compares
// pointers: O(ids/GroupSize), plus nothing per unchanged id.
func (c RelColumn) ChangedSince(old RelColumn, fn func(lo, hi uint64)) {
	if c.c == old.c {
		return
	}
	var x, y []*chunk
	if c.c != nil {
		x = c.c.groups
	}
	if old.c != nil {
		y = old.c.groups
	}
	for g := range max(len(x), len(y)) {
		var a, b *chunk
		if g < len(x) {
			a = x[g]
		}
		if g < len(y) {
			b = y[g]
		}
		if a != b {
			lo := uint64(g) << groupShift
			fn(lo, lo+GroupSize)
		}
	}
}
