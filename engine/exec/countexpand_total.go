package exec

import (
	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
)

// Ungrouped counts whose start set is every live node need not visit each
// start node's lists: summed over all start nodes, a hop's entries are the
// adjacency's edge count, and a two-hop chain count is the sum over middle
// nodes of (first-hop entries arriving there) × (last-hop entries leaving
// there), both read from CSR offsets. Self-loops are the only entries that
// need individual attention (an undirected hop sees a loop once, and
// relationship uniqueness drops a chain that walks a loop twice), and each
// CSR knows its loops (storage.Adjacency's loops). So Q3-like counts cost O(types) and
// Q5-like counts O(nodes) instead of O(edges) decodes and random reads.

// totalOneHop is the one-hop count when every live node starts and the far
// end has no label test: each list's live edges, less the loops an
// undirected hop's incoming list skips.
func (e *countExpand) totalOneHop() int64 {
	var n int64
	for i := range e.hops[0] {
		l := &e.hops[0][i]
		n += int64(l.adj.NumEdges())
		if l.skipLoops {
			n -= int64(len(l.adj.AppendLoops(nil)))
		}
	}
	return n
}

// reverseLists are the adjacency lists that read hop 0's entries from their
// far end (the incoming list of an outgoing one and vice versa); ok is
// false when one is missing.
func (e *countExpand) reverseLists() ([]*storage.Adjacency, bool) {
	revs := make([]*storage.Adjacency, len(e.hops[0]))
	for i, l := range e.hops[0] {
		dir := storage.Outgoing
		if l.out {
			dir = storage.Incoming
		}
		revs[i] = e.c.Tx.Adjacency(l.typ, dir)
		if revs[i] == nil {
			return nil, false
		}
	}
	return revs, true
}

// totalTwoHops is the two-hop chain count when every live node starts and
// the middle node has no label test:
//
//	Σ_b in(b) · last(b)  −  loop and uniqueness corrections
//
// where in(b) is the number of hop-0 entries arriving at b (the reverse
// lists' degrees) and last(b) the hop-1 entries leaving b into the far
// end's labels. chains (countexpand.go) is the per-start-node form of the
// same sum; the corrections below are its per-entry ones summed over all
// entries: an undirected hop's incoming list skips its loops (so each loop
// at v takes last(v) back), and under relationship uniqueness an entry
// whose relationship the last hop can walk back is one chain too many —
// for a loop when its node is in the far end's labels, for every other
// entry when the last hop runs against the first.
func (e *countExpand) totalTwoHops(ids idset.NodeSpan) (bool, error) {
	revs, ok := e.reverseLists()
	if !ok {
		return false, nil
	}
	to := e.sets[1]
	ins, outs, clean := e.cleanDegrees(revs)
	err := e.parallel(ids, func(w *countWorker, ids []uint32) {
		if clean {
			w.total += sumDegreeProducts(ins, outs, ids)
			return
		}
		for _, b32 := range ids {
			b := uint64(b32)
			var in int64
			for _, r := range revs {
				in += int64(r.Degree(b))
			}
			if in != 0 {
				w.total += in * w.count(e.hops[1], b, to)
			}
		}
	})
	if err != nil {
		return true, err
	}
	w := &countWorker{e: e}
	lastDir := e.p.Hops[1].Dir
	for i := range e.hops[0] {
		l := &e.hops[0][i]
		loops := l.adj.AppendLoops(nil)
		if l.skipLoops {
			for _, v := range loops {
				e.total -= w.count(e.hops[1], v, to)
			}
		}
		if !e.p.Unique || !e.inLastHop(l.typ) {
			continue
		}
		loopsInTo := int64(0)
		for _, v := range loops {
			if to.Has(v) {
				loopsInTo++
			}
		}
		if !l.skipLoops {
			e.total -= loopsInTo
		}
		if lastDir == plan.Both || (lastDir == plan.In) == l.out {
			e.total -= e.entriesFrom(l, ids, to) - loopsInTo
		}
	}
	e.c.Counters.DBHits += w.hits
	return true, nil
}

// entriesFrom is the number of l's entries leaving nodes of ids that are in
// set (nil: all of them).
func (e *countExpand) entriesFrom(l *hopList, ids idset.NodeSpan, set idset.NodeSet) int64 {
	if set == nil {
		return int64(l.adj.NumEdges())
	}
	var n int64
	buf := make([]uint32, countChunk)
	for i := range ids.Chunks(countChunk) {
		for _, a := range ids.Chunk(i, countChunk, buf) {
			if set.Has(uint64(a)) {
				n += int64(l.adj.Degree(uint64(a)))
			}
		}
	}
	return n
}

// cleanDegrees returns the offsets arrays of the reverse lists (ins) and of
// the last hop's lists (outs) when every one of them is a bare base (no
// overlay, so a degree is an offsets difference) and the last hop counts
// plain degrees (no far-end labels, no loops to skip): the state right
// after a bulk load or a compaction.
func (e *countExpand) cleanDegrees(revs []*storage.Adjacency) (ins, outs [][]uint64, ok bool) {
	if e.sets[1] != nil {
		return nil, nil, false
	}
	for _, r := range revs {
		if r.OverlaySize() != 0 {
			return nil, nil, false
		}
		ins = append(ins, r.Base().Offsets())
	}
	outs, ok = cleanOffsets(e.hops[1])
	return ins, outs, ok
}

// cleanOffsets returns the offsets arrays of lists when each is a bare
// base and counts plain degrees (no loops to skip).
func cleanOffsets(lists []hopList) ([][]uint64, bool) {
	var offs [][]uint64
	for _, l := range lists {
		if l.skipLoops || l.adj.OverlaySize() != 0 {
			return nil, false
		}
		offs = append(offs, l.adj.Base().Offsets())
	}
	return offs, true
}

// degreeSum is node b's degree summed over offsets arrays (an id past an
// array's end has degree 0 there).
func degreeSum(offs [][]uint64, b int) int64 {
	var d int64
	for _, off := range offs {
		if b+1 < len(off) {
			d += int64(off[b+1] - off[b])
		}
	}
	return d
}

// sumDegreeProducts is Σ in(b)·out(b) over ids.
func sumDegreeProducts(ins, outs [][]uint64, ids []uint32) int64 {
	var total int64
	for _, b32 := range ids {
		if in := degreeSum(ins, int(b32)); in != 0 {
			total += in * degreeSum(outs, int(b32))
		}
	}
	return total
}
