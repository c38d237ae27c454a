package exec

import (
	"math/bits"
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// countExpand computes what plan.CountExpand describes: for each start
// node, the number of chains of its hops, from the CSR of the query's
// snapshot (base plus overlay, so inserted and deleted relationships are
// seen exactly as an Expand sees them). A hop without far-end labels and
// without self-loops to drop is a degree; otherwise its neighbour list is
// decoded and each neighbour tested in a dense bitset of the far end's
// labels. A second hop is a per-node count table of the last hop, summed
// over the first hop's neighbours. It yields one row (the total) or, when
// grouped, one row per start node with a nonzero count (with Zeros, every
// start node).
type countExpand struct {
	c    *Context
	p    *plan.CountExpand
	done bool

	hops [][]hopList
	sets []idset.NodeSet // far-end labels of each hop
	last []int64         // two hops: the last hop's count per node

	// grouped, one hop over bare bases: Next reads degrees from these
	// offsets arrays for start's nodes from pos on
	degrees [][]uint64
	start   idset.NodeSpan

	nodes  []uint64 // grouped: start nodes with a nonzero count (any, with Zeros)
	counts []int64  // and their counts
	total  int64
	pos    int
	out    *vector.Batch
}

// hopList is one hop's adjacency lists, each with its relationship type.
type hopList struct {
	adjList
	typ catalog.TypeID
	out bool // the outgoing list of the type
}

func newCountExpand(c *Context, p *plan.CountExpand) *countExpand {
	types := make([]vector.Type, len(p.Cols))
	for i, col := range p.Cols {
		types[i] = col.Type
	}
	return &countExpand{c: c, p: p, out: c.pool().Batch(types...)}
}

func (e *countExpand) Next() (*vector.Batch, error) {
	if !e.done {
		e.done = true
		if err := e.run(); err != nil {
			return nil, err
		}
		if !e.p.Grouped {
			e.out.Cols[0].I64[0] = e.total
			e.out.Len, e.out.Sel = 1, nil
			return e.out, nil
		}
	}
	if e.degrees != nil {
		return e.nextDegrees()
	}
	if !e.p.Grouped || e.pos >= len(e.nodes) {
		return nil, nil
	}
	n := min(len(e.nodes)-e.pos, vector.Capacity)
	copy(e.out.Cols[0].IDs[:n], e.nodes[e.pos:])
	copy(e.out.Cols[1].I64[:n], e.counts[e.pos:])
	e.pos += n
	e.out.Len, e.out.Sel = n, nil
	return e.out, nil
}

// nextDegrees fills a batch with the next start nodes of nonzero degree
// (any degree, with Zeros) and their degrees.
func (e *countExpand) nextDegrees() (*vector.Batch, error) {
	if err := e.c.CheckCancel(); err != nil {
		return nil, err
	}
	ids, cnts := e.out.Cols[0].IDs, e.out.Cols[1].I64
	n, from := 0, e.pos
	if len(e.degrees) == 1 && e.start.IDs == nil {
		n = e.rangeDegrees(ids, cnts)
	}
	for n < vector.Capacity && e.pos < e.start.N {
		a := e.start.Lo + uint32(e.pos)
		if e.start.IDs != nil {
			a = e.start.IDs[e.pos]
		}
		e.pos++
		if d := degreeSum(e.degrees, int(a)); d > 0 || e.p.Zeros {
			ids[n], cnts[n] = uint64(a), d
			n++
		}
	}
	e.c.Counters.DBHits += int64((e.pos - from) * len(e.degrees))
	if n == 0 {
		return nil, nil
	}
	e.out.Len, e.out.Sel = n, nil
	return e.out, nil
}

// rangeDegrees is nextDegrees' loop for one list over a range of start
// nodes: consecutive offsets, read sequentially.
func (e *countExpand) rangeDegrees(ids []uint64, cnts []int64) int {
	off, zeros := e.degrees[0], e.p.Zeros
	n, pos, end := 0, e.pos, e.start.N
	for n < vector.Capacity && pos < end {
		a := int(e.start.Lo) + pos
		pos++
		var d int64
		if a+1 < len(off) {
			d = int64(off[a+1] - off[a])
		}
		if d > 0 || zeros {
			ids[n], cnts[n] = uint64(a), d
			n++
		}
	}
	e.pos = pos
	return n
}

// run computes the counts.
func (e *countExpand) run() error {
	p := e.p
	if len(p.Hops) == 0 {
		// The scanned nodes themselves: their set's size.
		e.total = int64(scanBitmap(e.c, &plan.NodeScan{Labels: p.Labels}).GetCardinality())
		e.c.Counters.RowsScanned += e.total
		e.c.Counters.DBHits += e.total
		return nil
	}
	if empty, err := e.farSets(); empty || err != nil {
		return err
	}
	startSet := scanBitmap(e.c, &plan.NodeScan{Labels: p.Labels})
	if p.StartPred != nil {
		var err error
		if startSet, err = filteredNodes(e.c, startSet, p.StartPred); err != nil {
			return err
		}
	}
	start := idset.SpanOf(startSet)
	if err := e.c.Mem.Charge(start.Bytes()); err != nil {
		return err
	}
	if !p.Grouped && startSet.GetCardinality() == e.c.Tx.LiveNodes().GetCardinality() {
		// Every live node starts: sum degrees instead of visiting each
		// start node (countexpand_total.go).
		switch {
		case len(e.hops) == 1 && e.sets[0] == nil:
			e.c.Counters.RowsScanned += int64(startSet.GetCardinality())
			e.total = e.totalOneHop()
			return nil
		case len(e.hops) == 2 && e.sets[0] == nil:
			if done, err := e.totalTwoHops(start); done || err != nil {
				e.c.Counters.RowsScanned += int64(start.N)
				return err
			}
		}
	}
	if len(e.hops) == 2 {
		if err := e.tableLastHop(start); err != nil {
			return err
		}
	}
	e.c.Counters.RowsScanned += int64(start.N)
	var degrees [][]uint64 // one hop over bare bases: degrees from offsets
	if e.last == nil && e.sets[0] == nil {
		degrees, _ = cleanOffsets(e.hops[0])
		if p.Grouped && degrees != nil {
			// Per-node degrees cost less to compute batch by batch in
			// Next than to materialise (fresh memory costs page faults).
			e.degrees, e.start = degrees, start
			return nil
		}
	}
	return e.countStarts(start, degrees)
}

// farSets loads each hop's lists and the set of far ends it may reach
// (nil: any), its labels' and its filter's (rule count-filter). Empty
// reports that no chain can be counted, when no zero counts are asked
// for.
func (e *countExpand) farSets() (empty bool, err error) {
	p := e.p
	e.hops = make([][]hopList, len(p.Hops))
	e.sets = make([]idset.NodeSet, len(p.Hops))
	for i, h := range p.Hops {
		e.hops[i] = e.hopLists(h)
		var none bool
		if e.sets[i], none = e.labelSet(h.ToLabels); none {
			if !p.Zeros {
				return true, nil // a far-end label no node has: nothing to count
			}
			e.sets[i] = idset.NodeSet{} // every start node counts 0
		} else if h.Pred != nil {
			pass, err := filteredNodes(e.c, farCandidates(e.c, h.ToLabels), h.Pred)
			if err != nil {
				return false, err
			}
			if pass.IsEmpty() && !p.Zeros {
				return true, nil
			}
			e.sets[i] = idset.NodeSetOf(pass)
		}
		if err := e.c.Mem.Charge(int64(len(e.sets[i])) * 8); err != nil {
			return false, err
		}
	}
	return false, nil
}

// tableLastHop counts, for each middle node the first hop can reach from
// start, the chains its last hop continues to (e.last, by node id).
func (e *countExpand) tableLastHop(start idset.NodeSpan) error {
	bound := e.c.Tx.NodeIDBound()
	mids, ok := e.reachedMids(start, bound)
	if !ok {
		mids = idset.SpanOf(e.c.Tx.LiveNodes())
	}
	if err := e.c.Mem.Charge(int64(bound)*8 + mids.Bytes()); err != nil {
		return err
	}
	e.last = make([]int64, bound)
	return e.parallel(mids, func(w *countWorker, ids []uint32) {
		for _, b := range ids {
			if e.sets[0].Has(uint64(b)) {
				e.last[b] = w.count(e.hops[1], uint64(b), e.sets[1])
			}
		}
	})
}

// countStarts counts the chains from each start node: by degrees (one
// hop over bare bases), by the first hop's lists, or through the tabled
// last hop; summed, or kept per node when grouped.
func (e *countExpand) countStarts(start idset.NodeSpan, degrees [][]uint64) error {
	p := e.p
	err := e.parallel(start, func(w *countWorker, ids []uint32) {
		if p.Grouped {
			w.nodes = make([]uint64, 0, len(ids))
			w.counts = make([]int64, 0, len(ids))
		}
		for _, a32 := range ids {
			a := uint64(a32)
			var cnt int64
			switch {
			case degrees != nil:
				cnt = degreeSum(degrees, int(a32))
				w.hits += int64(len(degrees))
			case e.last == nil:
				cnt = w.count(e.hops[0], a, e.sets[0])
			default:
				cnt = w.chains(a)
			}
			if !p.Grouped {
				w.total += cnt
			} else if cnt > 0 || p.Zeros {
				w.nodes = append(w.nodes, a)
				w.counts = append(w.counts, cnt)
			}
		}
	})
	if err != nil {
		return err
	}
	if p.Grouped {
		return e.c.Mem.Charge(int64(len(e.nodes)) * 16)
	}
	return nil
}

// reachedMids is the set of middle nodes the first hop reaches from start,
// when it leaves start by fewer entries than there are live nodes (a
// filtered start, rule count-filter): the last hop's counts are then
// tabled for those alone instead of for every live node.
func (e *countExpand) reachedMids(start idset.NodeSpan, bound uint64) (idset.NodeSpan, bool) {
	live := int64(e.c.Tx.LiveNodes().GetCardinality())
	if int64(start.N) >= live {
		return idset.NodeSpan{}, false
	}
	var entries int64
	buf := make([]uint32, countChunk)
	for i := range start.Chunks(countChunk) {
		for _, a := range start.Chunk(i, countChunk, buf) {
			for j := range e.hops[0] {
				entries += int64(e.hops[0][j].adj.Degree(uint64(a)))
			}
		}
		if entries >= live {
			return idset.NodeSpan{}, false
		}
	}
	if err := e.c.Mem.Charge(int64(bound/64+1) * 8); err != nil {
		return idset.NodeSpan{}, false
	}
	seen := make([]uint64, bound/64+1)
	w := &countWorker{e: e}
	n := 0
	for i := range start.Chunks(countChunk) {
		for _, a := range start.Chunk(i, countChunk, buf) {
			for j := range e.hops[0] {
				for _, b := range w.neighbors(&e.hops[0][j], uint64(a)) {
					if seen[b>>6]&(1<<(b&63)) == 0 && e.sets[0].Has(b) {
						seen[b>>6] |= 1 << (b & 63)
						n++
					}
				}
			}
		}
	}
	e.c.Counters.DBHits += w.hits
	ids := make([]uint32, 0, n)
	for i, word := range seen {
		for word != 0 {
			ids = append(ids, uint32(i*64+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return idset.NodeSpan{IDs: ids, N: n}, true
}

// countChunk is the number of node ids a worker takes at a time.
const countChunk = 4096

// parallel runs fn over ids in chunks, on up to Parallelism goroutines,
// and gathers the workers' results in id order (so a grouped output comes
// out the same on any number of workers).
func (e *countExpand) parallel(ids idset.NodeSpan, fn func(w *countWorker, ids []uint32)) error {
	ws := make([]*countWorker, ids.Chunks(countChunk))
	err := runChunks(e.c, ids, func(i int, chunk []uint32) error {
		w := &countWorker{e: e}
		fn(w, chunk)
		ws[i] = w
		return nil
	})
	if err != nil {
		return err
	}
	if n := len(e.nodes) + sumLen(ws); n > cap(e.nodes) {
		e.nodes = slices.Grow(e.nodes, n-len(e.nodes))
		e.counts = slices.Grow(e.counts, n-len(e.counts))
	}
	for _, w := range ws {
		e.c.Counters.DBHits += w.hits
		e.total += w.total
		e.nodes = append(e.nodes, w.nodes...)
		e.counts = append(e.counts, w.counts...)
	}
	return nil
}

// sumLen is the number of grouped rows the workers hold.
func sumLen(ws []*countWorker) int {
	n := 0
	for _, w := range ws {
		n += len(w.nodes)
	}
	return n
}

// countWorker counts for one chunk of nodes with scratch of its own.
type countWorker struct {
	e          *countExpand
	nbrs, rels []uint64 // one neighbour list
	total      int64
	hits       int64 // one per list read and per entry decoded
	nodes      []uint64
	counts     []int64
}

// count is the number of entries of node's lists whose neighbour is in to.
func (w *countWorker) count(lists []hopList, node uint64, to idset.NodeSet) int64 {
	var n int64
	for i := range lists {
		l := &lists[i]
		w.hits++
		if to == nil && !l.skipLoops {
			n += int64(l.adj.Degree(node))
			continue
		}
		for _, nbr := range w.neighbors(l, node) {
			if (!l.skipLoops || nbr != node) && to.Has(nbr) {
				n++
			}
		}
	}
	return n
}

// neighbors reads node's live neighbours in l into w.nbrs; the
// relationship ids come along only when the overlay edits the list.
func (w *countWorker) neighbors(l *hopList, node uint64) []uint64 {
	if l.adj.Dirty(node) {
		w.nbrs, w.rels = l.adj.AppendNeighbors(w.nbrs[:0], w.rels[:0], node)
	} else {
		w.nbrs = l.adj.Base().AppendNeighbors(w.nbrs[:0], node)
	}
	w.hits += int64(len(w.nbrs))
	return w.nbrs
}

// chains is the number of two-hop chains from a: the last-hop counts of
// its first-hop neighbours in the middle set, less the chains whose second
// relationship is the first one again when relationship uniqueness
// applies. That happens when the last hop can go back along the first
// relationship from b: always for a self-loop of a (in b's last-hop lists
// exactly once, an undirected hop dropping the incoming copy), otherwise
// when the last hop follows it in the opposite direction; its far end is
// then a itself.
func (w *countWorker) chains(a uint64) int64 {
	e := w.e
	mid, to := e.sets[0], e.sets[1]
	var n int64
	lastDir := e.p.Hops[1].Dir
	for i := range e.hops[0] {
		l := &e.hops[0][i]
		back := e.p.Unique && to.Has(a) && e.inLastHop(l.typ)
		// A relationship read from a's outgoing list is incoming at b.
		backNonLoop := back && (lastDir == plan.Both || (lastDir == plan.In) == l.out)
		w.nbrs, w.rels = l.adj.AppendNeighbors(w.nbrs[:0], w.rels[:0], a)
		w.hits += 1 + int64(len(w.nbrs))
		for _, b := range w.nbrs {
			if b == a && l.skipLoops || !mid.Has(b) {
				continue
			}
			n += e.last[b]
			if b == a && back || b != a && backNonLoop {
				n--
			}
		}
	}
	return n
}

// inLastHop reports whether the last hop follows relationships of type t.
func (e *countExpand) inLastHop(t catalog.TypeID) bool {
	types := e.p.Hops[len(e.p.Hops)-1].Types
	if len(types) == 0 {
		return true
	}
	return slices.ContainsFunc(types, func(name string) bool {
		id, ok := e.c.Catalog.LookupType(name)
		return ok && id == t
	})
}

// hopLists resolves a hop's types and direction to adjacency lists, as
// expand.open does.
func (e *countExpand) hopLists(h plan.CountHop) []hopList {
	tx, cat := e.c.Tx, e.c.Catalog
	var types []catalog.TypeID
	if len(h.Types) == 0 {
		types = cat.Types()
	}
	for _, name := range h.Types {
		if id, ok := cat.LookupType(name); ok {
			types = append(types, id)
		}
	}
	var out []hopList
	for _, t := range types {
		if h.Dir == plan.Out || h.Dir == plan.Both {
			if a := tx.Adjacency(t, storage.Outgoing); a != nil {
				out = append(out, hopList{adjList{adj: a}, t, true})
			}
		}
		if h.Dir == plan.In || h.Dir == plan.Both {
			if a := tx.Adjacency(t, storage.Incoming); a != nil {
				out = append(out, hopList{adjList{adj: a, skipLoops: h.Dir == plan.Both}, t, false})
			}
		}
	}
	return out
}

// labelSet is the set of nodes carrying all of labels: nil when that is
// every live node (no test needed), none when a label does not exist.
func (e *countExpand) labelSet(labels []string) (s idset.NodeSet, none bool) {
	return farLabelSet(e.c, labels)
}

// farLabelSet is labelSet for any operator.
func farLabelSet(c *Context, labels []string) (s idset.NodeSet, none bool) {
	if len(labels) == 0 {
		return nil, false
	}
	for _, name := range labels {
		if _, ok := c.Catalog.LookupLabel(name); !ok {
			return nil, true
		}
	}
	bm := scanBitmap(c, &plan.NodeScan{Labels: labels})
	if bm.GetCardinality() == c.Tx.LiveNodes().GetCardinality() {
		// Relationships join live nodes only, so every neighbour has them.
		return nil, false
	}
	return idset.NodeSetOf(bm), false
}
