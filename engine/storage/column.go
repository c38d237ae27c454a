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
//	  groups  []*chunk      index = id >> 11; len covers the highest group
//	                        holding a value; a Snapshot shares it until a
//	                        writer copies it (O(ids/2048) pointers)
//	  counts  [type]int64   values per vector.Type over all chunks: the
//	                        source of NodePropType/RelPropType in O(1)
//	  owner   epoch of the write transaction that may mutate groups in place
type column struct {
	owner  uint64
	groups []*chunk
	counts [numTypes]int64
	cache  viewCache // the dense IntView of this version (intview.go)
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
	g := id >> groupShift
	if g >= uint64(len(c.groups)) || c.groups[g] == nil {
		return nil
	}
	return c.groups[g].get(int(id & groupMask))
}

// ownedColumn returns a column of *slot that owner may mutate, copying the
// shared one (group table only; chunks are copied when written).
func ownedColumn(slot **column, owner uint64) *column {
	c := *slot
	if c != nil && c.owner == owner {
		return c
	}
	n := &column{owner: owner}
	if c != nil {
		n.groups = append([]*chunk(nil), c.groups...)
		n.counts = c.counts
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
	for len(c.groups) <= g {
		c.groups = append(c.groups, nil)
	}
	ch := c.groups[g]
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
	c.groups[g] = ch
	return ch
}

// set stores v (validated) at id; nil removes the value. c must be owned
// by owner.
func (c *column) set(id uint64, v vector.Value, owner uint64) {
	g, r := int(id>>groupShift), int(id&groupMask)
	if v == nil {
		if g >= len(c.groups) || c.groups[g] == nil {
			return
		}
	}
	c.dropView()
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
		c.groups[g] = nil
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
	if to > len(c.groups) {
		to = len(c.groups)
	}
	for g := from; g < to; g++ {
		ch := c.groups[g]
		if ch == nil || ch.sealed {
			continue
		}
		c = ownedColumn(slot, owner)
		if ch.owner != owner {
			ch = ch.openCopy(owner)
		}
		c.groups[g] = ch.seal()
	}
}

// sealOwned seals every open chunk the transaction owns in a complete
// group (below group limit): its own copies of sealed chunks and chunks it
// filled.
func sealOwned(c *column, owner uint64, limit int) {
	if c == nil || c.owner != owner {
		return
	}
	for g := 0; g < limit && g < len(c.groups); g++ {
		if ch := c.groups[g]; ch != nil && !ch.sealed && ch.owner == owner {
			c.groups[g] = ch.seal()
		}
	}
}

// check verifies every chunk and the column counts. bound is the id bound
// of the owning space; live reports whether an id exists.
func (c *column) check(bound uint64, live func(id uint64) bool) error {
	var counts [numTypes]int64
	for g, ch := range c.groups {
		if ch == nil {
			continue
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
