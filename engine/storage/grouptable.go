package storage

import "iter"

// groupTable is a column's chunks by group (index = id >> groupShift), in
// two levels so that a write copies only what it touches:
//
//	groupTable
//	  leaves []*groupLeaf   leaves[g >> leafShift] holds groups
//	                        [64·i, 64·i+64): 128k ids a leaf; nil when
//	                        none of them has a chunk
//	  n      int            group slots: every group ≥ n is empty
//	groupLeaf
//	  owner  epoch of the write transaction that may change it in place
//	  ch     [64]*chunk
//
// Versions share leaves. A transaction's first write into a column copies
// the leaf slice (ownedColumn: 8 bytes per 128k ids, 64 bytes at 1M
// ids), and its first write into a leaf copies that leaf (520 bytes).
// The flat table this replaces was copied whole, 8 bytes per 2048 ids,
// on every commit and for every property the commit wrote: creating one
// node in a graph of 8M cost a 32 KiB copy per property.
type groupTable struct {
	leaves []*groupLeaf
	n      int
}

const (
	leafShift = 6
	leafSize  = 1 << leafShift
	leafMask  = leafSize - 1
)

type groupLeaf struct {
	owner uint64
	ch    [leafSize]*chunk
}

// len is the number of group slots: groups at or past it hold nothing.
func (t *groupTable) len() int { return t.n }

// at returns the chunk of group g, nil when it has none.
func (t *groupTable) at(g uint64) *chunk {
	if g >= uint64(t.n) {
		return nil
	}
	if l := t.leaves[g>>leafShift]; l != nil {
		return l.ch[g&leafMask]
	}
	return nil
}

// set makes ch the chunk of group g. The table must belong to owner (its
// leaf slice is not shared); a leaf another owner made is copied first.
func (t *groupTable) set(g int, ch *chunk, owner uint64) {
	li := g >> leafShift
	for len(t.leaves) <= li {
		t.leaves = append(t.leaves, nil)
	}
	l := t.leaves[li]
	switch {
	case l == nil:
		if ch == nil {
			return
		}
		l = &groupLeaf{owner: owner}
		t.leaves[li] = l
	case l.owner != owner:
		c := *l
		c.owner = owner
		l = &c
		t.leaves[li] = l
	}
	l.ch[g&leafMask] = ch
	if g >= t.n {
		t.n = g + 1
	}
}

// clone is a table sharing t's leaves whose own changes copy them.
func (t *groupTable) clone() groupTable {
	return groupTable{leaves: append([]*groupLeaf(nil), t.leaves...), n: t.n}
}

// all yields every group holding a chunk, in group order.
func (t *groupTable) all() iter.Seq2[int, *chunk] {
	return func(yield func(int, *chunk) bool) {
		for li, l := range t.leaves {
			if l == nil {
				continue
			}
			for i, ch := range &l.ch {
				if ch != nil && !yield(li<<leafShift+i, ch) {
					return
				}
			}
		}
	}
}

// owned yields the groups holding a chunk in the leaves owner made: a
// transaction's writes, without a walk over the whole table.
func (t *groupTable) owned(owner uint64) iter.Seq2[int, *chunk] {
	return func(yield func(int, *chunk) bool) {
		for li, l := range t.leaves {
			if l == nil || l.owner != owner {
				continue
			}
			for i, ch := range &l.ch {
				if ch != nil && !yield(li<<leafShift+i, ch) {
					return
				}
			}
		}
	}
}
