package algo

import (
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
)

// Direction is how a relationship a→b becomes edges of the projection.
type Direction uint8

const (
	Natural    Direction = iota // a→b
	Reverse                     // b→a
	Undirected                  // a→b and b→a
)

// Projection says which part of a snapshot an algorithm sees and which
// arrays it needs.
type Projection struct {
	// Labels, when FilterLabels, keeps the nodes with any of them.
	Labels       []catalog.LabelID
	FilterLabels bool
	// Types are the relationship types whose relationships are edges.
	Types []catalog.TypeID
	Dir   Direction

	// Out, In: build the neighbour arrays of that direction. OutDegree:
	// build only the out-degrees (when Out is not built). OutRels: keep
	// each Out slot's relationship id. Weight (when Weighted): read each
	// Out slot's weight from that relationship property.
	Out, In, OutDegree, OutRels bool
	// Sorted: sort every neighbour list (Graph.Sorted). Only LCC needs
	// it: the other algorithms take lists in any order, and a list
	// gathered from several adjacencies (two for an undirected view) is
	// then left as the runs it was filled with. Not with OutRels or
	// Weighted (unless HubOrder).
	Sorted bool
	// HubOrder numbers the vertices by decreasing degree in the Out
	// direction (ties in node id order) instead of in node id order, so
	// that the vertices most lists name sit together at the front of
	// every per-vertex array (hubOrder), and sorts every list in that
	// numbering, relationship ids and weights included (sortedSlots).
	HubOrder bool
	// Restricted: row-level security restricts the principal
	// (docs/row-security.md). The vertices are then only the
	// VisibleNodes (nil: every live node is visible), and the edges
	// only the relationships outside HiddenRels between two vertices.
	// Such a projection is the principal's alone: never cached.
	Restricted    bool
	VisibleNodes  *roaring.Bitmap
	HiddenRels    *roaring64.Bitmap
	Weighted      bool
	Weight        catalog.KeyID
	WeightName    string // for error messages
	WeightMissing bool   // no relationship has the key
}

// The phases a projection tells Run.Progress, each over the vertices in
// morsels: the degree pass (for each direction built, and for the hub
// order) and the pass filling the neighbour lists (one a direction).
const (
	PhaseDegrees = "counting degrees"
	PhaseLists   = "filling neighbour lists"
)

// Bytes per element of the projection's arrays, for the accountant.
const (
	u32Bytes = 4
	u64Bytes = 8
)

// Project builds the projection p of tx's snapshot (the transaction's own
// writes included).
func Project(r *Run, tx *storage.Tx, p Projection) (*Graph, error) {
	g := &Graph{}
	if err := vertices(r, tx, p, g); err != nil {
		return nil, err
	}
	var out, in []*storage.Adjacency
	for _, t := range p.Types {
		o, i := tx.Adjacency(t, storage.Outgoing), tx.Adjacency(t, storage.Incoming)
		if o == nil || i == nil {
			continue
		}
		out, in = append(out, o), append(in, i)
	}
	out, in = directLists(out, in, p.Dir)
	g.Symmetric = p.Dir == Undirected
	if p.Sorted && !p.HubOrder && (p.OutRels || p.Weighted) {
		panic("BUG: algo: merged lists with relationship ids or weights")
	}
	// outDeg: the degrees over out in g's numbering, when the hub order
	// counted them (nil: the Out build counts them).
	var outDeg []uint32
	var err error
	if p.HubOrder {
		if outDeg, err = hubOrder(r, g, out); err != nil {
			return nil, err
		}
	}
	// The hub order sorts every list (sortedSlots); in node id order a
	// list from one adjacency is one sorted run.
	order := asFilled
	switch {
	case p.HubOrder:
		order = sortedSlots
	case p.Sorted:
		order = mergedRuns
	}
	g.Sorted = order != asFilled || len(out) <= 1
	switch {
	case p.Out || p.OutRels || p.Weighted:
		var wr *weightReader
		if p.Weighted {
			wr = newWeightReader(tx, p)
			if err := wr.bindSlots(r, tx, out); err != nil {
				return nil, err
			}
		}
		if g.Out, g.OutRel, g.OutW, err = buildCSR(r, g, out, outDeg, p.OutRels, wr, order); err != nil {
			return nil, err
		}
	case p.OutDegree && outDeg != nil:
		g.OutDeg = outDeg
	case p.OutDegree:
		if g.OutDeg, err = degrees(r, g, out); err != nil {
			return nil, err
		}
	case outDeg != nil:
		r.release(int64(cap(outDeg)) * u32Bytes) // counted for the order only
	}
	switch {
	case g.Symmetric && g.Out.Off != nil:
		g.In = g.Out
	case p.In:
		if g.In, _, _, err = buildCSR(r, g, in, nil, false, nil, order); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// vertices sets g's vertex set: the live nodes, or those with one of the
// filter's labels, renumbered in node id order.
func vertices(r *Run, tx *storage.Tx, p Projection, g *Graph) error {
	live := tx.LiveNodes()
	bound := tx.NodeIDBound()
	g.hidden = p.HiddenRels
	if !p.FilterLabels && p.VisibleNodes == nil && live.GetCardinality() == bound {
		g.N = int(bound)
		g.filtered = g.hidden != nil
		return nil
	}
	set := live
	if p.FilterLabels {
		// The two bitmaps are temporaries: a copy of the live set and
		// the union of the labels' sets, no larger than the sum of
		// theirs.
		tmp := int64(live.GetSizeInBytes())
		for _, l := range p.Labels {
			tmp += int64(tx.LabelNodes(l).GetSizeInBytes())
		}
		if err := r.charge(tmp); err != nil {
			return err
		}
		defer r.release(tmp)
		sel := roaring.New()
		for _, l := range p.Labels {
			sel.Or(tx.LabelNodes(l))
		}
		set = roaring.And(live, sel)
	}
	if p.VisibleNodes != nil {
		// One more temporary, no larger than the live set.
		tmp := int64(live.GetSizeInBytes())
		if err := r.charge(tmp); err != nil {
			return err
		}
		defer r.release(tmp)
		set = roaring.And(set, p.VisibleNodes)
	}
	g.filtered = p.FilterLabels || p.VisibleNodes != nil || g.hidden != nil
	n := int(set.GetCardinality())
	var err error
	if g.Nodes, err = makeSlice[uint64](r, n, u64Bytes); err != nil {
		return err
	}
	if g.dense, err = makeSlice[uint32](r, int(bound), u32Bytes); err != nil {
		return err
	}
	if err := fill(r, g.dense, noVertex); err != nil {
		return err
	}
	// The set holds exactly n ids: the iterator yields one per vertex.
	it := set.Iterator()
	err = r.Blocks(n, func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			id := it.Next()
			g.Nodes[v] = uint64(id)
			g.dense[id] = uint32(v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	g.N = n
	return nil
}

// lister decodes one node's neighbours from an adjacency: a clean node's
// straight from the base, a dirty one's through the overlay. Its buffers
// grow to the largest list a worker decodes, charged before they grow (a
// dirty node's list may hold its base list and its insertions at once).
type lister struct {
	nbrs, rels []uint64
	// runs are the starts of the sorted runs one vertex's list was
	// filled with (one per adjacency), merge the scratch mergeRuns uses.
	runs  []uint32
	merge []uint32
	// keys, perm and tmp32: sortSlots' scratch.
	keys, perm []uint64
	tmp32      []uint32
	// pend and wsc: the relationship ids whose weights buildCSR reads
	// next, and the gather vectors it reads them with.
	pend []uint64
	wsc  weightScratch
}

// mergeRuns sorts list, whose runs (l.runs, offsets from base) are each
// sorted, by merging each run into the merged prefix before it: O(runs ×
// len) against a sort's O(len log len), and the runs are few (two for
// an undirected view of one type). BenchmarkProject/undirected (1M
// vertices, 16M relationships, two workers, a loaded shared machine):
// 0.56–0.76 s with a sort per list, 0.30–0.34 s merging.
func (l *lister) mergeRuns(r *Run, list []uint32, base uint32) error {
	var err error
	if l.merge, err = growSlice(r, l.merge[:0], len(list), u32Bytes); err != nil {
		return err
	}
	tmp := l.merge[:len(list)]
	for k := 1; k < len(l.runs); k++ {
		mid := int(l.runs[k] - base)
		end := len(list)
		if k+1 < len(l.runs) {
			end = int(l.runs[k+1] - base)
		}
		a, b := list[:mid], list[mid:end]
		if len(a) == 0 || len(b) == 0 || a[len(a)-1] <= b[0] {
			continue
		}
		out := tmp[:end]
		i, j, o := 0, 0, 0
		for i < len(a) && j < len(b) {
			if b[j] < a[i] {
				out[o] = b[j]
				j++
			} else {
				out[o] = a[i]
				i++
			}
			o++
		}
		o += copy(out[o:], a[i:])
		copy(out[o:], b[j:])
		copy(list[:end], out)
	}
	return nil
}

// decodeSlack is the room past a list the base's decoder writes into
// (csr's decodeSlack): reserved with the list, so that it never grows the
// buffer itself.
const decodeSlack = 4

func (l *lister) list(r *Run, a *storage.Adjacency, node uint64, rels bool) error {
	var err error
	if !a.Dirty(node) {
		b := a.Base()
		d := b.Degree(node)
		if l.nbrs, err = growSlice(r, l.nbrs[:0], d+decodeSlack, u64Bytes); err != nil {
			return err
		}
		l.nbrs = b.AppendNeighbors(l.nbrs, node)
		if rels {
			if l.rels, err = growSlice(r, l.rels[:0], d, u64Bytes); err != nil {
				return err
			}
			l.rels = b.AppendRels(l.rels, node)
		}
		return nil
	}
	d := a.Degree(node) + a.Base().Degree(node)
	if l.nbrs, err = growSlice(r, l.nbrs[:0], d+decodeSlack, u64Bytes); err != nil {
		return err
	}
	if l.rels, err = growSlice(r, l.rels[:0], d, u64Bytes); err != nil {
		return err
	}
	l.nbrs, l.rels = a.AppendNeighbors(l.nbrs, l.rels, node)
	return nil
}

// overNodes runs fn over g's vertices in node id order, in morsels of
// node ids the workers take in turn: fn gets the worker, a vertex and
// its node. A projection reads the stored adjacency node by node; in
// node id order the reads go through the stored lists from first to
// last (hub order numbers the vertices by degree, which would read them
// at random: BenchmarkProject/undirected-hub, 1M vertices and 16M
// relationships on a loaded machine, 5.9 s filling vertex by vertex
// against 0.8 s for the same lists in node id order without the hub
// order). Progress is counted in vertices.
func (r *Run) overNodes(g *Graph, fn func(w int, v uint32, node uint64) error) error {
	bound := g.N
	if g.dense != nil {
		bound = len(g.dense)
	}
	return r.parallelFor(bound, morselNodes, func(w, lo, hi int) error {
		done := 0
		defer func() { r.Progress.Add(0, int64(done)) }()
		for node := lo; node < hi; node++ {
			v := uint32(node)
			if g.dense != nil {
				if v = g.dense[node]; v == noVertex {
					continue
				}
			}
			done++
			if err := fn(w, v, uint64(node)); err != nil {
				return err
			}
		}
		return nil
	})
}

// degrees counts each vertex's edges in adjs (to vertices of g).
func degrees(r *Run, g *Graph, adjs []*storage.Adjacency) ([]uint32, error) {
	deg, err := makeSlice[uint32](r, g.N+1, u32Bytes)
	if err != nil {
		return nil, err
	}
	r.Progress.Begin(progress.Phase{Name: PhaseDegrees, Unit: "vertices", TotalItems: int64(g.N)})
	listers := make([]lister, r.workers())
	err = r.overNodes(g, func(w int, v uint32, node uint64) error {
		l := &listers[w]
		d := 0
		for _, a := range adjs {
			if !g.filtered {
				// Every endpoint of a live relationship is a live
				// node: without a label filter all neighbours are
				// vertices, renumbered or not, and the degree needs
				// no decoding. BenchmarkProject/undirected-hole (one
				// deleted node; 3 interleaved runs of 5): 0.25, 0.43,
				// 0.32 s decoding every list to count it, 0.16, 0.19,
				// 0.19 s without.
				d += a.Degree(node)
				continue
			}
			if a.Degree(node) == 0 {
				continue
			}
			if err := l.list(r, a, node, g.hidden != nil); err != nil {
				return err
			}
			for i, x := range l.nbrs {
				if g.edge(x, l.rels, i) {
					d++
				}
			}
		}
		if d > math.MaxUint32 {
			return errs.New(errs.CodeOutOfMemory, errs.CatResource, "algo: a vertex has more than 2^32 edges")
		}
		deg[v] = uint32(d)
		return nil
	})
	return deg[:g.N], err
}

// renumberList writes the vertices of nodes, every one a vertex, to dst
// (as long as nodes): one random read of dense per neighbour, the largest
// cost of a first call after the sort (dense is 16 MB at Graph500 scale
// 22), in a loop that keeps as many of those reads in flight as it can.
func renumberList(dst []uint32, nodes []uint64, dense []uint32) {
	dst = dst[:len(nodes)]
	if dense == nil {
		for i, x := range nodes {
			dst[i] = uint32(x)
		}
		return
	}
	for i, x := range nodes {
		dst[i] = dense[x]
	}
}

// degreesToOffsets turns the n degrees of off into offsets in place, and
// sets off[n] to their sum, which it returns.
func degreesToOffsets(r *Run, off []uint32, n int) (uint64, error) {
	var sum uint64
	err := r.Blocks(n, func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			d := uint64(off[v])
			off[v] = uint32(sum)
			sum += d
			if sum > math.MaxUint32 {
				return errs.New(errs.CodeOutOfMemory, errs.CatResource,
					"algo: the projection has more than 2^32 edges in one direction")
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	off[n] = uint32(sum)
	return sum, nil
}

// makeSlots allocates, charged to the run, the n slots of a CSR's
// neighbours, and with rels their relationship ids, with weights their
// weights, each with room for slotRoom(n) more past its length: where a
// patch in place moves the lists that grow (patcher.inPlace).
func makeSlots(r *Run, n uint64, rels, weights bool) (nbr []uint32, relIDs []uint64, wts []float64, err error) {
	c := int(n) + slotRoom(int(n))
	if nbr, err = makeRoom[uint32](r, int(n), c, u32Bytes); err != nil {
		return nil, nil, nil, err
	}
	if rels {
		if relIDs, err = makeRoom[uint64](r, int(n), c, u64Bytes); err != nil {
			return nil, nil, nil, err
		}
	}
	if weights {
		if wts, err = makeRoom[float64](r, int(n), c, u64Bytes); err != nil {
			return nil, nil, nil, err
		}
	}
	return nbr, relIDs, wts, nil
}

// slotRoom is the room makeSlots leaves past n slots: a 32nd of them and
// at least 1024, for the lists commits change before the room runs out
// and a patch copies the whole CSR again (3% more memory).
func slotRoom(n int) int { return n/32 + 1024 }

// makeRoom charges and allocates a slice of length n and capacity c of
// size-byte elements.
func makeRoom[T any](r *Run, n, c int, size int64) ([]T, error) {
	if err := r.charge(int64(c) * size); err != nil {
		return nil, err
	}
	return make([]T, n, c), nil
}

// buildCSR builds the adjacency of adjs over g's vertices: a degree pass
// (skipped when deg, from degrees over the same adjs, is given; buildCSR
// takes it over), offsets, then a fill pass, both parallel over vertex
// morsels. With
// rels it also returns each slot's relationship id, with wr each slot's
// weight. order says how each list is left (listOrder).
func buildCSR(r *Run, g *Graph, adjs []*storage.Adjacency, deg []uint32, rels bool, wr *weightReader, order listOrder) (CSR, []uint64, []float64, error) {
	var err error
	if deg == nil {
		if deg, err = degrees(r, g, adjs); err != nil {
			return CSR{}, nil, nil, err
		}
	}
	off := deg[:g.N+1] // offsets overwrite the degrees in place
	sum, err := degreesToOffsets(r, off, g.N)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	nbr, relIDs, wts, err := makeSlots(r, sum, rels, wr != nil)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	f := &csrFill{g: g, adjs: adjs, off: off, nbr: nbr, relIDs: relIDs, wts: wts, rels: rels, wr: wr, order: order,
		readRels: rels || wr != nil, mergeLists: len(adjs) > 1 && order == mergedRuns}
	r.Progress.Begin(progress.Phase{Name: PhaseLists, Unit: "vertices", TotalItems: int64(g.N)})
	listers := make([]lister, r.workers())
	err = r.overNodes(g, func(w int, v uint32, node uint64) error {
		return f.vertex(r, &listers[w], v, node)
	})
	if err != nil {
		return CSR{}, nil, nil, err
	}
	return CSR{Off: off, Nbr: nbr}, relIDs, wts, nil
}

// csrFill is buildCSR's second pass: each vertex's list written at its
// offset, renumbered, with its relationship ids and weights, then put in
// the projection's order.
type csrFill struct {
	g              *Graph
	adjs           []*storage.Adjacency
	off            []uint32
	nbr            []uint32
	relIDs         []uint64
	wts            []float64
	rels, readRels bool
	mergeLists     bool
	wr             *weightReader
	order          listOrder
}

// vertex fills vertex v's (node's) list from every adjacency, with l's
// scratch.
func (f *csrFill) vertex(r *Run, l *lister, v uint32, node uint64) error {
	at := f.off[v]
	// pend holds the relationship ids of slots [pendAt, at) whose
	// weights are not read yet.
	pendAt := at
	l.pend = l.pend[:0]
	l.runs = l.runs[:0]
	for _, a := range f.adjs {
		if a.Degree(node) == 0 {
			continue
		}
		l.runs = append(l.runs, at)
		var err error
		if at, pendAt, err = f.adjacency(r, l, a, node, at, pendAt); err != nil {
			return err
		}
	}
	if at != f.off[v+1] {
		panic("BUG: algo: projection degree changed between passes")
	}
	s := f.off[v]
	if f.wr != nil && len(l.pend) > 0 {
		if err := f.wr.read(&l.wsc, l.pend, f.wts[pendAt:at]); err != nil {
			return err
		}
	}
	switch {
	case f.mergeLists && len(l.runs) > 1:
		return l.mergeRuns(r, f.nbr[s:at], s)
	case f.order == sortedSlots:
		// Sorted once its weights are read, which goes faster in the
		// adjacency's order.
		var relSlots []uint64
		var wtSlots []float64
		if f.rels {
			relSlots = f.relIDs[s:at]
		}
		if f.wr != nil {
			wtSlots = f.wts[s:at]
		}
		return l.sortSlots(r, f.nbr[s:at], f.g.N, relSlots, wtSlots)
	}
	return nil
}

// adjacency appends node's list in a from slot at, and returns the next
// slot and the first slot whose weights are still pending.
func (f *csrFill) adjacency(r *Run, l *lister, a *storage.Adjacency, node uint64, at, pendAt uint32) (uint32, uint32, error) {
	g, wr := f.g, f.wr
	// direct: the list's weights are copied from the slot view after it
	// is filled, in its order (every neighbour is kept without a label
	// filter).
	sv := wr.slotView(a)
	direct := sv.ok() && !g.filtered && !a.Dirty(node)
	if direct && len(l.pend) > 0 {
		if err := wr.read(&l.wsc, l.pend, f.wts[pendAt:at]); err != nil {
			return 0, 0, err
		}
		l.pend = l.pend[:0]
	}
	if err := l.list(r, a, node, f.rels || f.readRels && !direct || g.hidden != nil); err != nil {
		return 0, 0, err
	}
	if direct || !g.filtered && wr == nil {
		// Every neighbour is a vertex (no label filter): the list is
		// renumbered in a loop of nothing else.
		from := at
		at += uint32(len(l.nbrs))
		renumberList(f.nbr[from:at], l.nbrs, g.dense)
		if f.rels {
			copy(f.relIDs[from:at], l.rels)
		}
		if !direct {
			return at, pendAt, nil
		}
		if !sv.span(f.wts[from:at], a.Base().Offsets()[node]) {
			// A missing or invalid weight: read names it.
			l.rels = a.Base().AppendRels(l.rels[:0], node)
			if err := wr.read(&l.wsc, l.rels, f.wts[from:at]); err != nil {
				return 0, 0, err
			}
		}
		return at, at, nil
	}
	if wr != nil {
		var err error
		if l.pend, err = growSlice(r, l.pend, len(l.nbrs), u64Bytes); err != nil {
			return 0, 0, err
		}
	}
	for i, x := range l.nbrs {
		if !g.edge(x, l.rels, i) {
			continue
		}
		w := uint32(x)
		if g.dense != nil {
			w = g.dense[x]
		}
		f.nbr[at] = w
		if f.rels {
			f.relIDs[at] = l.rels[i]
		}
		if wr != nil {
			l.pend = append(l.pend, l.rels[i])
		}
		at++
	}
	return at, pendAt, nil
}
