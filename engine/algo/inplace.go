package algo

import (
	"math"

	"github.com/quiverdb/quiver/engine/storage"
)

// inPlace patches g0 into g where its arrays lie, when the cache handed
// g0 over (no call reads it, and no call can find it any more:
// Cache.older) and the commits since changed no vertex. A copying patch
// writes every slot of every array anew (BFS's two lists at 1M vertices
// and 16M relationships: 0.27 s after a one-relationship commit against
// 0.12 s cached); this one writes only the dirty vertices' lists, so its
// time follows what changed:
//   - a list no longer than it was is reread where it is, and a shorter
//     one leaves unused slots after it;
//   - a longer one is reread into the room past the last list (makeSlots
//     leaves slotRoom), unless it is the last list, which grows where it
//     is; its old slots are left unused;
//   - the first patch that changes a list's length records where each
//     list ends (CSR.End, one copy of the offsets), and the kernels read
//     the lists' ends from it from then on; lists reread at their own
//     length (only weights changed) leave a packed CSR packed;
//   - when the room is used up, that direction is copied as a copying
//     patch does, packed again and with room anew.
//
// Nodes, dense and the out-degrees are g0's (the last patched where they
// are).
func (pc *patcher) inPlace(p Projection, tx *storage.Tx, out, in []*storage.Adjacency, outDirty, inDirty []uint64) error {
	r, g0, g := pc.r, pc.g0, pc.g
	// The statement is charged the graph it reads, as on a hit (patch
	// charged Nodes and dense).
	if err := r.charge(g0.Bytes() - int64(len(g0.Nodes))*u64Bytes - int64(len(g0.dense))*u32Bytes); err != nil {
		return err
	}
	g.inBounded.Store(g0.inBounded.Load()) // every slot still holds a vertex below N
	var err error
	switch {
	case g0.Out.Off != nil:
		var wr *weightReader
		if p.Weighted {
			wr = newWeightReader(tx, p)
		}
		pc.dirty = pc.vertices(outDirty)
		if g.Out, g.OutRel, g.OutW, err = pc.csrInPlace(out, g0.Out, g0.OutRel, g0.OutW, wr); err != nil {
			return err
		}
		if s := g0.wsum.Load(); s != nil && !pc.copied {
			// The weights' sum, adjusted by the lists reread, instead
			// of a pass over every slot on the next SSSP call (it only
			// sets the default bucket width: rounding apart from a
			// fresh sum changes no distance).
			sum := *s + pc.wdelta
			g.wsum.Store(&sum)
		}
	case g0.OutDeg != nil:
		pc.dirty = pc.vertices(outDirty)
		g.OutDeg = g0.OutDeg
		var l lister
		for _, w := range pc.dirty {
			if g.OutDeg[w], err = pc.count(&l, out, w); err != nil {
				return err
			}
		}
	}
	switch {
	case g.Symmetric && g.Out.Off != nil:
		g.In = g.Out
	case g0.In.Off != nil:
		pc.dirty = pc.vertices(inDirty)
		if g.In, _, _, err = pc.csrInPlace(in, g0.In, nil, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// csrInPlace patches one direction's lists (with their relationship ids
// and weights when rels, wts are set) where they lie (inPlace), or
// copies them (csr) when the room past the lists is used up.
func (pc *patcher) csrInPlace(adjs []*storage.Adjacency, c CSR, rels []uint64, wts []float64, wr *weightReader) (CSR, []uint64, []float64, error) {
	r := pc.r
	var l lister
	deg, err := makeSlice[uint32](r, len(pc.dirty), u32Bytes)
	if err != nil {
		return CSR{}, nil, nil, err
	}
	defer r.release(int64(len(deg)) * u32Bytes)
	grow := 0 // slots the lists that grow take past the last list
	resized := false
	for i, w := range pc.dirty {
		if deg[i], err = pc.count(&l, adjs, w); err != nil {
			return CSR{}, nil, nil, err
		}
		if int(deg[i]) > c.Degree(w) {
			grow += int(deg[i])
		}
		resized = resized || int(deg[i]) != c.Degree(w)
	}
	room := min(cap(c.Nbr), math.MaxUint32)
	if rels != nil {
		room = min(room, cap(rels))
	}
	if wts != nil {
		room = min(room, cap(wts))
	}
	if len(c.Nbr)+grow > room {
		held := c.bytes() + int64(cap(rels))*u64Bytes + int64(cap(wts))*u64Bytes
		pc.copied = true
		nc, nr, nw, err := pc.csr(adjs, c, rels, wts, wr)
		if err == nil {
			r.release(held) // the old arrays, charged as the graph's, are dropped
		}
		return nc, nr, nw, err
	}
	if c.End == nil && resized {
		// Lists rewritten at their own length (weights changed, say)
		// keep the CSR packed: the kernels go on reading Off alone.
		if c.cuts, err = ranges(r, c.Off, pc.g.N); err != nil {
			return CSR{}, nil, nil, err
		}
		if c.End, err = makeSlice[uint32](r, pc.g.N, u32Bytes); err != nil {
			return CSR{}, nil, nil, err
		}
		err = r.parallelFor(pc.g.N, stopBlock, func(_, lo, hi int) error {
			copy(c.End[lo:hi], c.Off[lo+1:hi+1])
			return nil
		})
		if err != nil {
			return CSR{}, nil, nil, err
		}
		c.edges = int(c.Off[pc.g.N])
	}
	for i, w := range pc.dirty {
		if err := r.stop(); err != nil {
			return CSR{}, nil, nil, err
		}
		d, was := deg[i], uint32(c.Degree(w))
		s := c.Off[w]
		if wts != nil {
			// Unused slots weigh 0, so that a sum over all of OutW is
			// the lists' (SSSP's weightSum).
			e := c.Ends()[w]
			pc.wdelta -= sum4(wts[s:e])
			clear(wts[s:e])
		}
		if d > was {
			if int(c.Ends()[w]) != len(c.Nbr) {
				s = uint32(len(c.Nbr)) // moves past the last list
			}
			n := int(s + d)
			c.Nbr = c.Nbr[:n]
			if rels != nil {
				rels = rels[:n]
			}
			if wts != nil {
				wts = wts[:n]
			}
		}
		if c.End != nil {
			c.Off[w], c.End[w] = s, s+d
			c.edges += int(d) - int(was)
		}
		if err := pc.reread(&l, adjs, w, s, s+d, c.Nbr, rels, wts, wr); err != nil {
			return CSR{}, nil, nil, err
		}
		if wts != nil {
			pc.wdelta += sum4(wts[s : s+d])
		}
	}
	return c, rels, wts, nil
}
