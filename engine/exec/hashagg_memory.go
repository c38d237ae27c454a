package exec

import "github.com/quiverdb/quiver/engine/memory"

// What a hash aggregation holds, and how it is charged to the statement
// (max_memory_per_query): once a batch, the difference between what its
// state holds now and what it was charged (settle). The state's arrays
// count by capacity, not by groups: the per-group arrays grow together
// (aggState.grow), each group's collect() list on its own (growList),
// and the key columns as they take keys; their growth is checked against
// the limit before it allocates (reserveGroups, growList). The values
// kept (collected values, keys, DISTINCT's sets) count by their estimated
// size (held). Once every group has left, the charge is given back: what
// the emitted rows still reference is theirs.

// reserveGroups fails the statement before the group state grows past
// its memory limit, when up to rows new groups outgrow the arrays: the
// grown arrays must fit (they are charged by capacity once the batch is
// in, consume).
func (h *hashAggregate) reserveGroups(rows int) error {
	size := int64(max(h.ngroups+rows, 2*len(h.aggs[0].count), 64))
	return h.c.Mem.Reserve(size * h.groupBytes())
}

// groupBytes is what one group's state takes in the aggregates' arrays.
func (h *hashAggregate) groupBytes() int64 {
	var per int64
	for _, a := range h.aggs {
		per += a.groupBytes()
	}
	return per
}

// holds is the bytes of the groups' state: keys, tables and the
// aggregates' arrays by capacity, and the values kept.
func (h *hashAggregate) holds() int64 {
	held := h.held + h.ints.bytes() + h.nodes.bytes()
	for k := range h.keyCols {
		held += h.keyCols[k].capBytes()
	}
	for _, a := range h.aggs {
		held += a.held + a.stateBytes()
	}
	return held
}

// settle charges what the state grew by since the last settle (once a
// batch).
func (h *hashAggregate) settle() error {
	held := h.holds()
	for _, a := range h.aggs {
		h.charged += a.charged
		a.charged = 0
	}
	err := h.c.Mem.Charge(held - h.charged)
	h.charged = held
	return err
}

// growList makes room in group g's list (collect, percentiles) for need
// values, charging the growth (held.go).
func (a *aggState) growList(g int32, need int) error {
	l, grown, charged, err := growList(a.mem, a.lists[g], need, memory.IfaceBytes)
	a.lists[g] = l
	a.listCap += int64(grown)
	a.charged += charged
	return err
}

// groupBytes is what the state of one group takes in the arrays grow
// keeps (those allocated so far).
func (a *aggState) groupBytes() int64 {
	return 8*int64(btoi(a.count != nil)+btoi(a.isum != nil)+btoi(a.fsum != nil)+btoi(a.mean != nil)+btoi(a.m2 != nil)+btoi(a.pct != nil)) +
		int64(btoi(a.float != nil)+btoi(a.dur != nil)) + durationBytes*int64(btoi(a.dsum != nil)) +
		memory.IfaceBytes*int64(btoi(a.best != nil)) + memory.SliceBytes*int64(btoi(a.lists != nil))
}

// stateBytes is what the per-group arrays take by capacity (their
// values' own bytes are in held).
func (a *aggState) stateBytes() int64 {
	return 8*int64(cap(a.count)+cap(a.isum)+cap(a.fsum)+cap(a.mean)+cap(a.m2)+cap(a.pct)) +
		int64(cap(a.float)+cap(a.dur)) + durationBytes*int64(cap(a.dsum)) +
		memory.IfaceBytes*(int64(cap(a.best))+a.listCap) + memory.SliceBytes*int64(cap(a.lists)+cap(a.dvals))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resultBytes is what the column of results holds beside the state: its
// arrays by capacity, less an array it shares with the state (counts,
// integer sums), and the boxed header of each group's list.
func (a *aggState) resultBytes(col *column) int64 {
	n := col.capBytes()
	if v := col.v; v != nil && cap(v.I64) > 0 && (sameArray(v.I64, a.count) || sameArray(v.I64, a.isum)) {
		n -= 8 * int64(cap(v.I64))
	}
	if a.lists != nil {
		n += memory.SliceBytes * int64(col.n)
	}
	return n
}

// sameArray reports whether x and y start at the same element.
func sameArray(x, y []int64) bool {
	return cap(x) > 0 && cap(y) > 0 && &x[:1][0] == &y[:1][0]
}

// durationBytes is the width of a sum of durations (temporal.Duration).
const durationBytes = 32
