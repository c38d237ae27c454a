package algo

import (
	"math"
	"sync/atomic"
)

// wccRounds is the number of neighbours per vertex Afforest links before
// sampling the largest component (GAP's default).
const wccRounds = 2

// wccSamples is the number of vertices sampled to guess the largest
// component.
const wccSamples = 1024

// WCC returns, per vertex, the smallest vertex of its weakly connected
// component. Afforest (Sutton et al., as in GAP): link each vertex to its
// first wccRounds out-neighbours, compress, sample the most frequent
// component, then link the remaining edges of the vertices outside it
// only: in a small-world graph most vertices are already in the giant
// component and their edges are skipped. An edge u→v with u in the giant
// component and v outside is found from v's In list, so a directed
// projection needs g.In; a symmetric one has it. Link always hangs the
// larger root under the smaller, so each tree's root is its smallest
// vertex, whatever the schedule.
func WCC(r *Run, g *Graph) ([]uint32, error) {
	comp, err := makeSlice[uint32](r, g.N, u32Bytes)
	if err != nil {
		return nil, err
	}
	err = r.Blocks(len(comp), func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			comp[v] = uint32(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cuts, err := g.Out.ranges(r, g.N)
	if err != nil {
		return nil, err
	}
	off, end := g.Out.Off, g.Out.Ends()
	for round := 0; round < wccRounds; round++ {
		if err := r.round("wcc", round); err != nil {
			return nil, err
		}
		err := r.overRanges(cuts, func(_, _, lo, hi int) error {
			for v := lo; v < hi; v++ {
				if s := off[v] + uint32(round); s < end[v] {
					link(comp, uint32(v), g.Out.Nbr[s])
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if err := compress(r, comp); err != nil {
			return nil, err
		}
	}
	giant := sampleFrequent(comp)
	if err := r.round("wcc", wccRounds); err != nil {
		return nil, err
	}
	err = r.overRanges(cuts, func(_, _, lo, hi int) error {
		for v := lo; v < hi; v++ {
			if atomic.LoadUint32(&comp[v]) == giant {
				continue
			}
			for _, u := range g.Out.Nbr[min(off[v]+wccRounds, end[v]):end[v]] {
				link(comp, uint32(v), u)
			}
			if !g.Symmetric {
				for _, u := range g.In.List(uint32(v)) {
					link(comp, uint32(v), u)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return comp, compress(r, comp)
}

// link joins the trees of u and v, hanging the larger root under the
// smaller with a compare-and-swap (GAP's Link).
func link(comp []uint32, u, v uint32) {
	p1 := atomic.LoadUint32(&comp[u])
	p2 := atomic.LoadUint32(&comp[v])
	for p1 != p2 {
		high, low := max(p1, p2), min(p1, p2)
		pHigh := atomic.LoadUint32(&comp[high])
		if pHigh == low {
			return
		}
		if pHigh == high && atomic.CompareAndSwapUint32(&comp[high], high, low) {
			return
		}
		p1 = atomic.LoadUint32(&comp[atomic.LoadUint32(&comp[high])])
		p2 = atomic.LoadUint32(&comp[low])
	}
}

// compress points every vertex at its root.
func compress(r *Run, comp []uint32) error {
	return r.parallelFor(len(comp), morselNodes*8, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			for {
				p := atomic.LoadUint32(&comp[v])
				pp := atomic.LoadUint32(&comp[p])
				if p == pp {
					break
				}
				atomic.StoreUint32(&comp[v], pp)
			}
		}
		return nil
	})
}

// sampleFrequent guesses the largest component from a fixed pseudo-random
// sample of vertices (deterministic: the result never depends on it, only
// the work skipped does).
func sampleFrequent(comp []uint32) uint32 {
	if len(comp) == 0 {
		return noVertex
	}
	counts := map[uint32]int{}
	x := uint64(0x9E3779B97F4A7C15)
	best, bestN := comp[0], 0
	for range wccSamples {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		c := atomic.LoadUint32(&comp[x%uint64(len(comp))])
		counts[c]++
		if n := counts[c]; n > bestN || n == bestN && c < best {
			best, bestN = c, n
		}
	}
	return best
}

// ComponentNodeIDs is, per vertex, the smallest node id in its component
// (comp from WCC). WCC's root is the component's smallest vertex, which
// is its smallest node only when the vertices are in node id order; under
// Projection.HubOrder it is the component's highest-degree vertex.
func ComponentNodeIDs(r *Run, g *Graph, comp []uint32) ([]int64, error) {
	ids, err := makeSlice[int64](r, len(comp), u64Bytes)
	if err != nil {
		return nil, err
	}
	if err := fill(r, ids, math.MaxInt64); err != nil {
		return nil, err
	}
	// Each root's entry gathers the minimum of its vertices' node ids, in
	// one sequential pass (most vertices share the giant component's
	// root, so a parallel one would contend on one entry).
	err = r.Blocks(len(comp), func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			root := comp[v]
			if id := int64(g.NodeID(uint32(v))); id < ids[root] {
				ids[root] = id
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Then every other vertex copies its root's: roots are never written,
	// so the workers read them while others write.
	return ids, r.parallelFor(len(comp), morselNodes*8, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			if root := comp[v]; root != uint32(v) {
				ids[v] = ids[root]
			}
		}
		return nil
	})
}
