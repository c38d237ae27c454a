package exec

import "github.com/quiverdb/quiver/vector"

// Grouping by one node (MATCH (a)-->(b) WITH a, count(b) …, the most
// common key of a graph aggregate) goes through an inttable.Table of node ids of
// its own: node ids are dense from 0, so nearly every key is one load in
// the direct-mapped array, where the byte encoding and a Go map cost a
// hashed probe per row and an allocation per group (W01 of the wider
// suite at M, 10M rows into 990K groups: 1.98 s in the map). Node ids
// and integers live in separate tables, so node 5 and the integer 5 stay
// two groups, and a node reaches the node table whether its vector is
// typed Node or Any, so no group is split between the tables.

// assignNodes is assignGroups for one Node key (assignDense).
func (h *hashAggregate) assignNodes(b *vector.Batch, keyVecs []*vector.Vector) {
	assignDense(h, b, keyVecs, keyVecs[0].IDs, &h.nodes)
}

// lookupNode returns the group of node x (row r of the key vector kv),
// creating it.
func (h *hashAggregate) lookupNode(kv *vector.Vector, r int, x int64) int32 {
	cell := h.nodes.Ref(x)
	if *cell != 0 {
		return *cell - 1
	}
	g := h.newGroup()
	*cell = g + 1 // the state and key arrays are charged by capacity
	h.keyCols[0].Push(kv, r)
	return g
}
