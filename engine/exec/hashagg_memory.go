package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/memory"
)

// What a hash aggregation holds, and how it is charged to the statement
// (max_memory_per_query): once a batch, the difference between what its
// state holds now and what it was charged (settle). The state's arrays
// count by capacity, not by groups: the per-group arrays grow together
// (aggState.grow), each group's collect() list on its own (AggEnv.GrowList),
// and the key columns as they take keys; their growth is checked against
// the limit before it allocates (reserveGroups, rowstore.GrowList). The values
// kept (collected values, keys, DISTINCT's sets) count by their estimated
// size (held). Once every group has left, the charge is given back: what
// the emitted rows still reference is theirs.

// reserveGroups fails the statement before the group state grows past
// its memory limit, when up to rows new groups outgrow the arrays: the
// grown arrays must fit (they are charged by capacity once the batch is
// in, consume).
func (h *hashAggregate) reserveGroups(rows int) error {
	size := int64(max(h.ngroups+rows, 2*h.aggs[0].room, 64))
	return h.c.Mem.Reserve(size * h.groupBytes())
}

// groupBytes is what one group's state takes in the aggregates' arrays.
func (h *hashAggregate) groupBytes() int64 {
	var per int64
	for _, a := range h.aggs {
		per += a.st.GroupBytes()
	}
	return per
}

// holds is the bytes of the groups' state: keys, tables and the
// aggregates' arrays by capacity, and the values kept.
func (h *hashAggregate) holds() int64 {
	held := h.held + h.ints.Bytes() + h.nodes.Bytes()
	if h.mk != nil {
		held += h.mk.comb.Bytes()
		for _, p := range h.mk.parts {
			held += p.ints.Bytes()
		}
	}
	for k := range h.keyCols {
		held += h.keyCols[k].CapBytes()
	}
	for _, a := range h.aggs {
		held += a.held + memory.SliceBytes*int64(cap(a.dvals)) + a.st.Bytes()
	}
	return held
}

// settle charges what the state grew by since the last settle (once a
// batch).
func (h *hashAggregate) settle() error {
	held := h.holds()
	for _, a := range h.aggs {
		h.charged += a.st.Charged()
	}
	err := h.c.Mem.Charge(held - h.charged)
	h.charged = held
	return err
}

// resultBytes is what the column of results holds beside the state: its
// arrays by capacity, less an array it shares with the state (counts,
// integer sums), and what the function's results hold besides (the
// boxed header of each group's list).
func (a *aggState) resultBytes(col *rowstore.Column) int64 {
	n := col.CapBytes()
	if col.V != nil {
		n += a.st.ResultBytes(col.V, col.N)
	}
	return n
}
