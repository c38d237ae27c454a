package csr

import "fmt"

// Compact returns a version whose base folds in this version's overlay and
// whose overlay is empty, over node ids 0..numNodes-1. It reads only this
// immutable version, so it may run in the background while writers keep
// applying to the old lineage; the storage layer then re-applies the
// batches committed after TS() to the compacted version.
//
// A clean node's blocks are copied verbatim (a node's encoding does not
// depend on its position); a dirty node's live list is re-encoded. O(n + m).
// A live edge with an endpoint >= numNodes is a BUG panic.
func (a *Adjacency) Compact(numNodes int) *Adjacency {
	if numNodes < 0 || numNodes > maxNodes {
		panic(fmt.Sprintf("BUG: csr: Compact to %d nodes", numNodes))
	}
	base := a.base
	b := newBuilder(numNodes, a.numEdges)
	// Blocks copy verbatim when all base ids fit and the gap width agrees.
	verbatim := base.numNodes <= numNodes && base.bb == baseBytes(numNodes)
	var nbrs, rels []uint64
	for v := range uint64(numNodes) {
		if verbatim && a.deltaOf(v) == nil {
			if v < uint64(base.numNodes) {
				rels = base.AppendRels(rels[:0], v)
				b.addEncoded(base.data[base.start(v):base.start(v+1)], rels)
			} else {
				b.addEncoded(nil, nil)
			}
			continue
		}
		nbrs, rels = a.AppendNeighbors(nbrs[:0], rels[:0], v)
		if len(nbrs) > 0 && nbrs[len(nbrs)-1] >= uint64(numNodes) {
			panic(fmt.Sprintf("BUG: csr: Compact to %d nodes drops live edge %d->%d", numNodes, v, nbrs[len(nbrs)-1]))
		}
		b.addList(nbrs, rels)
	}
	for v := uint64(numNodes); v < a.idBound; v++ {
		if a.Degree(v) != 0 {
			panic(fmt.Sprintf("BUG: csr: Compact to %d nodes drops live edges of node %d", numNodes, v))
		}
	}
	c := NewAdjacency(b.finish())
	c.ts = a.ts
	return c
}
