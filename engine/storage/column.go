package storage

import (
	"fmt"

	"github.com/quiverdb/quiver/vector"
)

// column is the value store of one property key, for nodes or for
// relationships: a group table with one chunk per group of GroupSize ids
// (nil where no id of the group has the key).
//
//	column
//	  groups  groupTable    chunk of group id >> 11, two-level; len covers
//	                        the highest group holding a value; versions
//	                        share its leaves until a writer copies the one
//	                        it writes (grouptable.go)
//	  counts  [type]int64   values per vector.Type over all chunks: the
//	                        source of NodePropType/RelPropType in O(1)
//	  owner   epoch of the write transaction that may mutate groups in place
type column struct {
	owner  uint64
	groups groupTable
	counts [numTypes]int64
	cache  viewCache // the dense IntView of this version (intview.go)
	// leaf0 backs groups.leaves while the table has one leaf (up to 128k
	// ids): a writer's copy of a small column is then one allocation, as
	// the flat table was.
	leaf0 [1]*groupLeaf
}

// typ is the type a gather of this column fills (see Reader.NodePropType).
func (c *column) typ() vector.Type {
	if c == nil {
		return vector.Null
	}
	return columnType(&c.counts)
}

// get returns the value at id, nil when absent.
func (c *column) get(id uint64) vector.Value {
	if c == nil {
		return nil
	}
	ch := c.groups.at(id >> groupShift)
	if ch == nil {
		return nil
	}
	return ch.get(int(id & groupMask))
}

// has reports whether id holds a value (get without boxing it).
func (c *column) has(id uint64) bool {
	if c == nil {
		return false
	}
	ch := c.groups.at(id >> groupShift)
	return ch != nil && ch.has(int(id&groupMask))
}

// ownedColumn returns a column of *slot that owner may mutate, copying the
// shared one (the group table's leaf slice only; leaves and chunks are
// copied when written).
func ownedColumn(slot **column, owner uint64) *column {
	c := *slot
	if c != nil && c.owner == owner {
		return c
	}
	n := &column{owner: owner}
	if c != nil {
		if len(c.groups.leaves) <= 1 {
			n.groups.n = c.groups.n
			n.groups.leaves = n.leaf0[:copy(n.leaf0[:], c.groups.leaves)]
		} else {
			n.groups = c.groups.clone()
		}
		n.counts = c.counts
		n.cache.carrySlotViews(&c.cache) // slotview_cache.go
	}
	*slot = n
	return n
}

// ownedChunk returns the chunk of group g that owner may mutate, creating
// it with dominant type typ or copying a shared one.
//
// Writing row r past the rows of an open chunk another version holds (a
// create appending to its group) shares that chunk's typed values instead
// of copying them (extendCopy); a later write below them copies them
// then (privatize).
func (c *column) ownedChunk(g, r int, owner uint64, typ vector.Type) *chunk {
	ch := c.groups.at(uint64(g))
	switch {
	case ch == nil:
		ch = newChunk(owner, typ)
	case ch.sealed:
		ch = ch.openCopy(owner)
	case ch.owner != owner:
		ch = ch.extendCopy(owner, r)
	default:
		if r < ch.shared {
			ch.privatize()
		}
		return ch
	}
	c.groups.set(g, ch, owner)
	return ch
}

// set stores v (validated) at id; nil removes the value. c must be owned
// by owner.
func (c *column) set(id uint64, v vector.Value, owner uint64) {
	g, r := int(id>>groupShift), int(id&groupMask)
	if v == nil {
		if c.groups.at(uint64(g)) == nil {
			return
		}
	}
	c.dropView(id)
	ch := c.ownedChunk(g, r, owner, vector.TypeOf(v))
	before := ch.counts
	if v == nil {
		ch.clear(r)
	} else {
		ch.set(r, v)
	}
	for t := range before {
		c.counts[t] += int64(ch.counts[t] - before[t])
	}
	if ch.total() == 0 {
		c.groups.set(g, nil, owner)
	}
}

// sealComplete seals the open chunks of groups [from, to), which are
// complete. Only groups holding an open chunk are copied, so a column the
// transaction did not touch costs a loop over the range.
func sealComplete(slot **column, owner uint64, from, to int) {
	c := *slot
	if c == nil {
		return
	}
	to = min(to, c.groups.len())
	for g := from; g < to; g++ {
		ch := c.groups.at(uint64(g))
		if ch == nil || ch.sealed {
			continue
		}
		c = ownedColumn(slot, owner)
		if ch.owner != owner {
			ch = ch.openCopy(owner)
		}
		c.groups.set(g, ch.seal(), owner)
	}
}

// sealOwned seals every open chunk the transaction owns in a complete
// group (below group limit): its own copies of sealed chunks and chunks it
// filled. Such chunks sit in leaves it copied, so only those are visited.
func sealOwned(c *column, owner uint64, limit int) {
	if c == nil || c.owner != owner {
		return
	}
	for g, ch := range c.groups.owned(owner) {
		if g >= limit {
			break
		}
		if !ch.sealed && ch.owner == owner {
			c.groups.set(g, ch.seal(), owner)
		}
	}
}

// check verifies every chunk and the column counts. bound is the id bound
// of the owning space; live reports whether an id exists.
func (c *column) check(bound uint64, live func(id uint64) bool) error {
	var counts [numTypes]int64
	for g, ch := range c.groups.all() {
		if g >= c.groups.len() {
			return fmt.Errorf("group %d holds a chunk past the table's %d groups", g, c.groups.len())
		}
		if err := checkGroup(ch, g, bound, live); err != nil {
			return err
		}
		for t, n := range ch.counts {
			counts[t] += int64(n)
		}
	}
	if counts != c.counts {
		return fmt.Errorf("column counts %v, chunks hold %v", c.counts, counts)
	}
	if c.typ() == vector.Null {
		return fmt.Errorf("empty column is not nil")
	}
	return nil
}

// checkGroup verifies ch as the chunk of group g of a column (check).
// live nil means that every id below the bound exists.
func checkGroup(ch *chunk, g int, bound uint64, live func(id uint64) bool) error {
	start := uint64(g) << groupShift
	if start >= bound {
		return fmt.Errorf("group %d starts at %d, past the id bound %d", g, start, bound)
	}
	limit := bound - start
	complete := limit >= GroupSize
	if complete {
		limit = GroupSize
	}
	var rowLive func(r int) bool
	if live != nil {
		rowLive = func(r int) bool { return live(start + uint64(r)) }
	}
	if err := ch.check(int(limit), complete, rowLive); err != nil {
		return fmt.Errorf("group %d: %w", g, err)
	}
	return nil
}
