package algo

import (
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// source is what a cached graph was projected from: the parts of its
// version that tell a later version what changed since, held without
// the version itself (the cache keeps versions weakly). Everything it
// names is immutable and shared with the versions after it until a
// commit replaces it, so it costs little beyond the graph.
type source struct {
	ts     uint64
	adj    []*storage.Adjacency // per Projection.Types: out at 2i, in at 2i+1 (nil: absent)
	live   *roaring.Bitmap
	labels []*roaring.Bitmap
	weight storage.RelColumn
}

func sourceOf(snap *storage.Snapshot, p Projection) *source {
	s := &source{ts: snap.TS(), live: snap.LiveNodes(), adj: make([]*storage.Adjacency, 2*len(p.Types))}
	for i, t := range p.Types {
		s.adj[2*i], s.adj[2*i+1] = snap.Adjacency(t, storage.Outgoing), snap.Adjacency(t, storage.Incoming)
	}
	if p.FilterLabels {
		for _, l := range p.Labels {
			s.labels = append(s.labels, snap.LabelNodes(l))
		}
	}
	if p.Weighted && !p.WeightMissing {
		s.weight = snap.RelColumn(p.Weight)
	}
	return s
}

// lists are the adjacencies Project builds the Out and In lists from, as
// it picks them.
func (s *source) lists(p Projection) (out, in []*storage.Adjacency) {
	for i := range p.Types {
		o, n := s.adj[2*i], s.adj[2*i+1]
		if o == nil || n == nil {
			continue
		}
		out, in = append(out, o), append(in, n)
	}
	return directLists(out, in, p.Dir)
}

// directLists turns the types' outgoing and incoming lists into the lists a
// projection of direction dir builds its Out and In lists from.
func directLists(out, in []*storage.Adjacency, dir Direction) ([]*storage.Adjacency, []*storage.Adjacency) {
	switch dir {
	case Reverse:
		out, in = in, out
	case Undirected:
		out = append(out[:len(out):len(out)], in...)
		in = out
	}
	return out, in
}

func (s *source) vertexSet(p Projection) *roaring.Bitmap {
	if !p.FilterLabels {
		return s.live
	}
	sel := roaring.New()
	for _, l := range s.labels {
		sel.Or(l)
	}
	return roaring.And(s.live, sel)
}

// patch derives the projection p of tx's version (snapshot snap) from
// g0, the same projection of an older version (src0), reading only what
// changed since: the nodes whose lists the overlay changed, whose
// relationships' weights changed, or (with a label filter) whose
// neighbours entered or left the projection. Every other list, with its
// relationship ids and weights, is copied as it is. It returns nil (and
// no error) when it cannot patch, and the caller projects afresh:
//   - a type's base differs (a checkpoint folded the overlay into a new
//     base), or a type gained or lost its adjacency;
//   - without the hub order, a created node's id lies below an old
//     vertex's (the node id order would need every vertex renumbered).
//
// The vertex numbering is g0's: removed vertices leave it (the ones
// after them move down), created ones are appended in node id order. In
// node id order that is exactly a fresh projection's numbering; in the
// hub order the old degree order is kept, which only the speed of the
// kernels depends on (docs/algorithms.md, "Projection cache").
func patch(r *Run, tx *storage.Tx, snap *storage.Snapshot, p Projection, g0 *Graph, src0 *source, own bool) (g *Graph, src *source, inPlace bool, err error) {
	src1 := sourceOf(snap, p)
	for i := range src0.adj {
		a, b := src0.adj[i], src1.adj[i]
		if (a == nil) != (b == nil) || a != nil && a.Base() != b.Base() {
			return nil, nil, false, nil
		}
	}
	out1, in1 := src1.lists(p)
	// The vertex sets' differences: bitmap operations over containers.
	var removed, added *roaring.Bitmap
	if p.FilterLabels || src0.live != src1.live {
		set0, set1 := src0.vertexSet(p), src1.vertexSet(p)
		removed, added = roaring.AndNot(set0, set1), roaring.AndNot(set1, set0)
		if !p.HubOrder && !added.IsEmpty() && g0.N > 0 && uint64(added.Minimum()) < g0.NodeID(uint32(g0.N-1)) {
			return nil, nil, false, nil
		}
	} else {
		removed, added = roaring.New(), roaring.New()
	}
	same := removed.IsEmpty() && added.IsEmpty()
	g = &Graph{Symmetric: g0.Symmetric, Sorted: g0.Sorted, filtered: g0.filtered}
	var back []uint32
	if same {
		// The vertices and their numbers are g0's: its arrays are
		// shared (nothing changes them, a patch in place included), and
		// charged as on a cache hit.
		g.N, g.Nodes, g.dense = g0.N, g0.Nodes, g0.dense
		if err := r.charge(int64(len(g.Nodes))*u64Bytes + int64(len(g.dense))*u32Bytes); err != nil {
			return nil, nil, false, err
		}
	} else if back, err = renumber(r, tx, g0, g, removed, added, p); err != nil {
		return nil, nil, false, err
	}
	outDirty, inDirty, ok := dirtyNodes(snap, p, g.Symmetric, src0, src1, removed, added)
	if !ok {
		return nil, nil, false, nil
	}
	order := asFilled
	switch {
	case p.HubOrder:
		order = sortedSlots
	case p.Sorted:
		order = mergedRuns
	}
	keep := g0.N - int(removed.GetCardinality())
	pc := patcher{r: r, g0: g0, g: g, back: back, keep: keep, order: order}
	if own && same {
		if err := pc.inPlace(p, tx, out1, in1, outDirty, inDirty); err != nil {
			return nil, nil, false, err
		}
		return g, src1, !pc.copied, nil
	}
	if err := pc.copyLists(p, tx, out1, in1, outDirty, inDirty); err != nil {
		return nil, nil, false, err
	}
	return g, src1, false, nil
}

// copyLists patches by copying: the lists of the vertices not in the
// dirty ones are copied from g0's arrays into new ones, the dirty ones
// reread from out1 (and in1).
func (pc *patcher) copyLists(p Projection, tx *storage.Tx, out1, in1 []*storage.Adjacency, outDirty, inDirty []uint64) error {
	var err error
	switch {
	case pc.g0.Out.Off != nil:
		var wr *weightReader
		if p.Weighted {
			wr = newWeightReader(tx, p)
		}
		pc.dirty = pc.vertices(outDirty)
		if pc.g.Out, pc.g.OutRel, pc.g.OutW, err = pc.csr(out1, pc.g0.Out, pc.g0.OutRel, pc.g0.OutW, wr); err != nil {
			return err
		}
	case pc.g0.OutDeg != nil:
		pc.dirty = pc.vertices(outDirty)
		if pc.g.OutDeg, err = pc.degrees(out1, pc.g0.OutDeg); err != nil {
			return err
		}
	}
	switch {
	case pc.g.Symmetric && pc.g.Out.Off != nil:
		pc.g.In = pc.g.Out
	case pc.g0.In.Off != nil:
		pc.dirty = pc.vertices(inDirty)
		if pc.g.In, _, _, err = pc.csr(in1, pc.g0.In, nil, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// dirtyNodes lists the node ids whose Out lists (and In lists) changed
// between src0 and src1: the lists the overlays wrote, the ends of
// relationships whose weight changed, and with a label filter the
// neighbours of vertices that entered or left. False when a list's
// changes cannot be told (the patch then rebuilds).
func dirtyNodes(snap *storage.Snapshot, p Projection, symmetric bool, src0, src1 *source, removed, added *roaring.Bitmap) (outDirty, inDirty []uint64, ok bool) {
	out0, in0 := src0.lists(p)
	out1, in1 := src1.lists(p)
	if outDirty, ok = changedNodes(out1, out0); !ok {
		return nil, nil, false
	}
	if p.In && !symmetric {
		if inDirty, ok = changedNodes(in1, in0); !ok {
			return nil, nil, false
		}
	}
	if p.Weighted && !p.WeightMissing {
		// A commit copies the chunk of 2,048 relationships it writes
		// one weight in: only the ids whose weight differs are read
		// (the others' ends would be reread for nothing, hubs among
		// them: a call of SSSP after a one-relationship commit at
		// scale 22 reread the lists of every relationship sharing the
		// new one's chunk).
		src1.weight.ChangedSince(src0.weight, func(lo, hi uint64) {
			for id := lo; id < hi; id++ {
				if sameWeight(src0.weight.Value(id), src1.weight.Value(id)) {
					continue
				}
				t, s, d, ok := snap.Rel(id)
				if !ok || !slices.Contains(p.Types, t) {
					continue
				}
				if p.Dir != Reverse {
					outDirty = append(outDirty, s)
				}
				if p.Dir != Natural {
					outDirty = append(outDirty, d)
				}
			}
		})
	}
	if !p.FilterLabels {
		return outDirty, inDirty, true
	}
	// A vertex entering or leaving changes the lists naming it.
	var buf, rels []uint64
	for _, x := range [2]*roaring.Bitmap{removed, added} {
		it := x.Iterator()
		for it.HasNext() {
			node := uint64(it.Next())
			for _, adjs := range [][]*storage.Adjacency{in0, in1} {
				for _, a := range adjs {
					buf, rels = a.AppendNeighbors(buf[:0], rels[:0], node)
					outDirty = append(outDirty, buf...)
				}
			}
			for _, adjs := range [][]*storage.Adjacency{out0, out1} {
				for _, a := range adjs {
					buf, rels = a.AppendNeighbors(buf[:0], rels[:0], node)
					inDirty = append(inDirty, buf...)
				}
			}
		}
	}
	return outDirty, inDirty, true
}

// sameWeight reports whether a and b, one relationship's weight values
// in two versions, give its slot the same weight: both absent, or both
// valid weights (weightReader.read) of the same float64. Anything else
// counts as a change, so that the list is reread (and an invalid weight
// reported as a fresh projection reports it).
func sameWeight(a, b vector.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	x, okx := asWeight(a)
	y, oky := asWeight(b)
	return okx && oky && math.Float64bits(x) == math.Float64bits(y)
}

// asWeight is v as a weight, ok false unless it is a non-negative number
// (an INTEGER as a float, as weightReader reads it).
func asWeight(v vector.Value) (float64, bool) {
	var w float64
	switch x := v.(type) {
	case float64:
		w = x
	case int64:
		w = float64(x)
	default:
		return 0, false
	}
	return w, w >= 0 // false for NaN
}

// renumber sets g's vertices from g0's: the kept ones in g0's order, then
// added's. It returns back, the old vertex of each kept new one (nil:
// the same number).
func renumber(r *Run, tx *storage.Tx, g0, g *Graph, removed, added *roaring.Bitmap, p Projection) ([]uint32, error) {
	nr, na := int(removed.GetCardinality()), int(added.GetCardinality())
	bound := tx.NodeIDBound()
	keep := g0.N - nr
	g.N = keep + na
	if g0.Nodes == nil && nr == 0 && !p.FilterLabels && uint64(g.N) == bound {
		return nil, nil // still every id below the bound: the identity
	}
	var err error
	if g.Nodes, err = makeSlice[uint64](r, g.N, u64Bytes); err != nil {
		return nil, err
	}
	if g.dense, err = makeSlice[uint32](r, int(bound), u32Bytes); err != nil {
		return nil, err
	}
	if err := fill(r, g.dense, noVertex); err != nil {
		return nil, err
	}
	var back []uint32
	if nr > 0 {
		if back, err = makeSlice[uint32](r, keep, u32Bytes); err != nil {
			return nil, err
		}
		gone := make(map[uint32]bool, nr)
		it := removed.Iterator()
		for it.HasNext() {
			if v, ok := g0.Vertex(uint64(it.Next())); ok {
				gone[v] = true
			}
		}
		w := 0
		for v := range uint32(g0.N) {
			if !gone[v] {
				back[w] = v
				w++
			}
		}
	}
	err = r.Blocks(keep, func(lo, hi int) error {
		for w := lo; w < hi; w++ {
			v := uint32(w)
			if back != nil {
				v = back[w]
			}
			id := g0.NodeID(v)
			g.Nodes[w], g.dense[id] = id, uint32(w)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w := keep
	it := added.Iterator()
	for it.HasNext() {
		id := it.Next()
		g.Nodes[w], g.dense[id] = uint64(id), uint32(w)
		w++
	}
	return back, nil
}

// changedNodes lists the nodes whose lists differ between each pair of
// adjacencies; false when one pair cannot tell (Adjacency.Changed).
func changedNodes(now, old []*storage.Adjacency) ([]uint64, bool) {
	var nodes []uint64
	for i, a := range now {
		if !a.Changed(old[i], func(n uint64) { nodes = append(nodes, n) }) {
			return nil, false
		}
	}
	return nodes, true
}

// patcher copies one direction's lists from g0 to g, rereading the dirty
// vertices'.
type patcher struct {
	r     *Run
	g0, g *Graph
	back  []uint32 // old vertex of kept new vertex w; nil: w itself
	keep  int      // new vertices below keep are g0's
	order listOrder
	dirty []uint32 // new vertices to reread, ascending: the touched ones, then the added ones
	// copied: a patch in place copied a direction whose room was used
	// up (csrInPlace).
	copied bool
	// wdelta: what the lists a patch in place reread changed the sum of
	// the weights by (csrInPlace).
	wdelta float64
}

// vertices turns dirty node ids into g's vertices, ascending and
// without repeats, the added vertices included.
func (pc *patcher) vertices(nodes []uint64) []uint32 {
	var vs []uint32
	for _, n := range nodes {
		if v, ok := pc.g.Vertex(n); ok && int(v) < pc.keep {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	for v := pc.keep; v < pc.g.N; v++ {
		vs = append(vs, uint32(v))
	}
	return vs
}

func (pc *patcher) old(w int) uint32 {
	if pc.back != nil {
		return pc.back[w]
	}
	return uint32(w)
}

// remap is the new number of old vertex v: an identity when nothing was
// removed.
func (pc *patcher) remap(v uint32) uint32 {
	if pc.back == nil {
		return v
	}
	w, _ := pc.g.Vertex(pc.g0.NodeID(v))
	return w
}

// count is vertex w's degree over adjs, as degrees counts it.
func (pc *patcher) count(l *lister, adjs []*storage.Adjacency, w uint32) (uint32, error) {
	g, node, d := pc.g, pc.g.NodeID(w), 0
	for _, a := range adjs {
		if !g.filtered {
			d += a.Degree(node)
			continue
		}
		if a.Degree(node) == 0 {
			continue
		}
		if err := l.list(pc.r, a, node, false); err != nil {
			return 0, err
		}
		for _, x := range l.nbrs {
			if _, ok := g.Vertex(x); ok {
				d++
			}
		}
	}
	if d > math.MaxUint32 {
		return 0, errs.New(errs.CodeOutOfMemory, errs.CatResource, "algo: a vertex has more than 2^32 edges")
	}
	return uint32(d), nil
}

// degrees patches an out-degree array.
func (pc *patcher) degrees(adjs []*storage.Adjacency, old []uint32) ([]uint32, error) {
	deg, err := makeSlice[uint32](pc.r, pc.g.N+1, u32Bytes)
	if err != nil {
		return nil, err
	}
	err = pc.r.Blocks(pc.keep, func(lo, hi int) error {
		for w := lo; w < hi; w++ {
			deg[w] = old[pc.old(w)]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var l lister
	for _, w := range pc.dirty {
		if deg[w], err = pc.count(&l, adjs, w); err != nil {
			return nil, err
		}
	}
	return deg[:pc.g.N], nil
}

// csr patches one direction's lists, with their relationship ids and
// weights when old has them: degrees, offsets, then the lists, clean
// ones copied range by range, dirty ones reread as buildCSR reads them.
func (pc *patcher) csr(adjs []*storage.Adjacency, old CSR, oldRel []uint64, oldW []float64, wr *weightReader) (CSR, []uint64, []float64, error) {
	r, g := pc.r, pc.g
	off, err := makeSlice[uint32](r, g.N+1, u32Bytes)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	err = r.Blocks(pc.keep, func(lo, hi int) error {
		for w := lo; w < hi; w++ {
			off[w] = uint32(old.Degree(pc.old(w)))
		}
		return nil
	})
	if err != nil {
		return CSR{}, nil, nil, err
	}
	var l lister
	for _, w := range pc.dirty {
		if off[w], err = pc.count(&l, adjs, w); err != nil {
			return CSR{}, nil, nil, err
		}
	}
	sum, err := degreesToOffsets(r, off, g.N)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	nbr, relIDs, wts, err := makeSlots(r, sum, oldRel != nil, oldW != nil)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	cuts, err := ranges(r, off, g.N)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	listers := make([]lister, r.workers())
	err = r.overRanges(cuts, func(wk, _, lo, hi int) error {
		l := &listers[wk]
		d, _ := slices.BinarySearch(pc.dirty, uint32(lo))
		for w := lo; w < hi; {
			// The clean run [w, end) is copied.
			end := hi
			if d < len(pc.dirty) {
				end = min(hi, int(pc.dirty[d]))
			}
			if end > w {
				pc.copyRun(w, end, off, old, nbr, oldRel, relIDs, oldW, wts)
				w = end
				continue
			}
			if err := pc.reread(l, adjs, uint32(w), off[w], off[w+1], nbr, relIDs, wts, wr); err != nil {
				return err
			}
			w++
			d++
		}
		return nil
	})
	if err != nil {
		return CSR{}, nil, nil, err
	}
	return CSR{Off: off, Nbr: nbr}, relIDs, wts, nil
}

// copyRun copies the lists of the clean vertices [lo, hi) from old.
func (pc *patcher) copyRun(lo, hi int, off []uint32, old CSR, nbr []uint32, oldRel, relIDs []uint64, oldW, wts []float64) {
	if pc.back == nil && old.End == nil {
		// The run is consecutive in old too: one copy per array.
		s, e := old.Off[lo], old.Off[hi]
		copy(nbr[off[lo]:], old.Nbr[s:e])
		if relIDs != nil {
			copy(relIDs[off[lo]:], oldRel[s:e])
		}
		if wts != nil {
			copy(wts[off[lo]:], oldW[s:e])
		}
		return
	}
	ends := old.Ends()
	for w := lo; w < hi; w++ {
		v := pc.old(w)
		s, e := old.Off[v], ends[v]
		at := off[w]
		if pc.back == nil {
			copy(nbr[at:], old.Nbr[s:e])
		} else {
			for i, x := range old.Nbr[s:e] {
				nbr[at+uint32(i)] = pc.remap(x)
			}
		}
		if relIDs != nil {
			copy(relIDs[at:], oldRel[s:e])
		}
		if wts != nil {
			copy(wts[at:], oldW[s:e])
		}
	}
}

// reread fills vertex w's list from adjs as buildCSR does, into the
// slots [s, e) (as many as count found).
func (pc *patcher) reread(l *lister, adjs []*storage.Adjacency, w uint32, s, e uint32, nbr []uint32, relIDs []uint64, wts []float64, wr *weightReader) error {
	r, g := pc.r, pc.g
	node := g.NodeID(w)
	at := s
	l.runs = l.runs[:0]
	l.pend = l.pend[:0]
	readRels := relIDs != nil || wr != nil
	for _, a := range adjs {
		if a.Degree(node) == 0 {
			continue
		}
		l.runs = append(l.runs, at)
		if err := l.list(r, a, node, readRels); err != nil {
			return err
		}
		for i, x := range l.nbrs {
			v, ok := g.Vertex(x)
			if !ok {
				continue
			}
			nbr[at] = v
			if relIDs != nil {
				relIDs[at] = l.rels[i]
			}
			if wr != nil {
				l.pend = append(l.pend, l.rels[i])
			}
			at++
		}
	}
	if at != e {
		panic("BUG: algo: patched degree changed between passes")
	}
	if wr != nil {
		if err := wr.read(&l.wsc, l.pend, wts[s:e]); err != nil {
			return err
		}
	}
	switch {
	case pc.order == mergedRuns && len(l.runs) > 1:
		return l.mergeRuns(r, nbr[s:e], s)
	case pc.order == sortedSlots:
		var relSlots []uint64
		var wtSlots []float64
		if relIDs != nil {
			relSlots = relIDs[s:e]
		}
		if wts != nil {
			wtSlots = wts[s:e]
		}
		return l.sortSlots(r, nbr[s:e], g.N, relSlots, wtSlots)
	}
	return nil
}
