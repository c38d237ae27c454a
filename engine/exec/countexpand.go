package exec

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
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
// grouped, one row per start node with a nonzero count.
type countExpand struct {
	c    *Context
	p    *plan.CountExpand
	done bool

	nodes  []uint64 // grouped: start nodes with a nonzero count
	counts []int64  // and their counts
	total  int64
	pos    int
	out    *vector.Batch

	nbrs, rels []uint64 // scratch for one neighbour list
}

// hopList is one hop's adjacency lists, each with its relationship type.
type hopList struct {
	adjList
	typ catalog.TypeID
	out bool // the outgoing list of the type
}

// nodeSet is a dense bitset of node ids; nil holds every live node.
type nodeSet []uint64

func (s nodeSet) has(id uint64) bool {
	if s == nil {
		return true
	}
	w := id >> 6
	return w < uint64(len(s)) && s[w]&(1<<(id&63)) != 0
}

func newCountExpand(c *Context, p *plan.CountExpand) *countExpand {
	types := make([]vector.Type, len(p.Cols))
	for i, col := range p.Cols {
		types[i] = col.Type
	}
	return &countExpand{c: c, p: p, out: vector.NewBatch(types...)}
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

// run computes the counts.
func (e *countExpand) run() error {
	p := e.p
	start := scanBitmap(e.c, &plan.NodeScan{Labels: p.Labels})
	hops := make([][]hopList, len(p.Hops))
	sets := make([]nodeSet, len(p.Hops))
	for i, h := range p.Hops {
		hops[i] = e.hopLists(h)
		var none bool
		if sets[i], none = e.labelSet(h.ToLabels); none {
			return nil // a far-end label no node has: nothing to count
		}
	}
	var last []int64 // count of the last hop per node, for two hops
	if len(hops) == 2 {
		bound := e.c.Tx.NodeIDBound()
		if err := e.c.Mem.charge(int64(bound) * 8); err != nil {
			return err
		}
		last = make([]int64, bound)
		it := e.c.Tx.LiveNodes().ManyIterator()
		buf := make([]uint32, vector.Capacity)
		for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
			if err := e.c.checkCancel(); err != nil {
				return err
			}
			for _, b := range buf[:n] {
				if sets[0].has(uint64(b)) {
					last[b] = e.count(hops[1], uint64(b), sets[1])
				}
			}
		}
	}
	it := start.ManyIterator()
	buf := make([]uint32, vector.Capacity)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		if err := e.c.checkCancel(); err != nil {
			return err
		}
		e.c.Stats.RowsScanned += int64(n)
		for _, a32 := range buf[:n] {
			a := uint64(a32)
			var cnt int64
			if last == nil {
				cnt = e.count(hops[0], a, sets[0])
			} else {
				cnt = e.chains(hops[0], a, sets[0], last, sets[1])
			}
			if !p.Grouped {
				e.total += cnt
			} else if cnt > 0 {
				e.nodes = append(e.nodes, a)
				e.counts = append(e.counts, cnt)
			}
		}
	}
	if p.Grouped {
		return e.c.Mem.charge(int64(len(e.nodes)) * 16)
	}
	return nil
}

// count is the number of entries of node's lists whose neighbour is in to.
func (e *countExpand) count(lists []hopList, node uint64, to nodeSet) int64 {
	var n int64
	for i := range lists {
		l := &lists[i]
		if to == nil && !l.skipLoops {
			n += int64(l.adj.Degree(node))
			continue
		}
		e.nbrs, e.rels = l.adj.AppendNeighbors(e.nbrs[:0], e.rels[:0], node)
		for _, nbr := range e.nbrs {
			if (!l.skipLoops || nbr != node) && to.has(nbr) {
				n++
			}
		}
	}
	return n
}

// chains is the number of two-hop chains from a: the last-hop counts of
// its first-hop neighbours in mid, less the chains whose second
// relationship is the first one again when relationship uniqueness
// applies. That happens when the last hop can go back along the first
// relationship from b: always for a self-loop of a (in b's last-hop lists
// exactly once, an undirected hop dropping the incoming copy), otherwise
// when the last hop follows it in the opposite direction; its far end is
// then a itself.
func (e *countExpand) chains(first []hopList, a uint64, mid nodeSet, last []int64, to nodeSet) int64 {
	var n int64
	lastDir := e.p.Hops[len(e.p.Hops)-1].Dir
	for i := range first {
		l := &first[i]
		back := e.p.Unique && to.has(a) && e.inLastHop(l.typ)
		// A relationship read from a's outgoing list is incoming at b.
		backNonLoop := back && (lastDir == plan.Both || (lastDir == plan.In) == l.out)
		e.nbrs, e.rels = l.adj.AppendNeighbors(e.nbrs[:0], e.rels[:0], a)
		for _, b := range e.nbrs {
			if b == a && l.skipLoops || !mid.has(b) {
				continue
			}
			n += last[b]
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
func (e *countExpand) labelSet(labels []string) (s nodeSet, none bool) {
	if len(labels) == 0 {
		return nil, false
	}
	for _, name := range labels {
		if _, ok := e.c.Catalog.LookupLabel(name); !ok {
			return nil, true
		}
	}
	bm := scanBitmap(e.c, &plan.NodeScan{Labels: labels})
	if bm.GetCardinality() == e.c.Tx.LiveNodes().GetCardinality() {
		// Relationships join live nodes only, so every neighbour has them.
		return nil, false
	}
	return denseSet(bm), false
}

func denseSet(bm *roaring.Bitmap) nodeSet {
	if bm.IsEmpty() {
		return nodeSet{}
	}
	s := make(nodeSet, bm.Maximum()/64+1)
	it := bm.ManyIterator()
	buf := make([]uint32, vector.Capacity)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, id := range buf[:n] {
			s[id>>6] |= 1 << (id & 63)
		}
	}
	return s
}
