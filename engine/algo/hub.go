package algo

import "github.com/quiverdb/quiver/engine/storage"

// hubOrder renumbers g's vertices (already chosen by vertices) by
// decreasing degree over adjs, ties in node id order; a degree of N or
// more counts as N, so the sort's buckets stay within the vertex count.
//
// Why: an algorithm that reads a per-vertex array at the position of each
// neighbour (PageRank's contributions, BFS's frontier bitmap and parents,
// SSSP's distances, WCC's components) makes one random read per edge. On
// a power-law graph a few vertices are most of the neighbours (Graph500
// scale 22: the top 6% of vertices by degree are 85% of the list
// entries), and numbered first their entries share a few megabytes that
// stay in the cache, where in node id order they are spread over the
// whole array and most reads miss. The renumbering is a counting sort:
// O(N) beside the projection's O(M).
//
// It returns the degrees in the new numbering (as degrees does: length N,
// room for N+1, charged), so that the build does not count them again; nil
// when it left the numbering as it was.
func hubOrder(r *Run, g *Graph, adjs []*storage.Adjacency) ([]uint32, error) {
	n := g.N
	if n < 2 {
		return nil, nil
	}
	deg, err := degrees(r, g, adjs)
	if err != nil {
		return nil, err
	}
	defer r.release(int64(n+1) * u32Bytes)
	key := func(v int) uint32 { return min(deg[v], uint32(n)) }
	var top uint32
	err = r.Blocks(n, func(lo, hi int) error {
		t := top
		for v := lo; v < hi; v++ {
			t = max(t, key(v))
		}
		top = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	// at[k]: the first new number of the vertices whose key is k, the
	// keys above k coming first.
	at, err := makeSlice[uint32](r, int(top)+1, u32Bytes)
	if err != nil {
		return nil, err
	}
	defer r.release(int64(top+1) * u32Bytes)
	err = r.Blocks(n, func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			at[key(v)]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var sum uint32
	for k := int(top); k >= 0; k-- {
		sum, at[k] = sum+at[k], sum
	}
	// Stable: vertices of one key keep their node id order.
	order, err := makeSlice[uint32](r, n, u32Bytes)
	if err != nil {
		return nil, err
	}
	defer r.release(int64(n) * u32Bytes)
	err = r.Blocks(n, func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			k := key(v)
			order[at[k]] = uint32(v)
			at[k]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	nodes, err := makeSlice[uint64](r, n, u64Bytes)
	if err != nil {
		return nil, err
	}
	newDeg, err := makeSlice[uint32](r, n+1, u32Bytes)
	if err != nil {
		return nil, err
	}
	dense := g.dense
	if dense == nil {
		// Identity numbering: every id below N is a vertex.
		if dense, err = makeSlice[uint32](r, n, u32Bytes); err != nil {
			return nil, err
		}
	}
	err = r.Blocks(n, func(lo, hi int) error {
		for k := lo; k < hi; k++ {
			v := order[k]
			id := g.NodeID(v)
			nodes[k] = id
			dense[id] = uint32(k)
			newDeg[k] = deg[v]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if g.Nodes != nil {
		r.release(int64(len(g.Nodes)) * u64Bytes) // replaced by nodes
	}
	g.Nodes, g.dense = nodes, dense
	return newDeg[:n], nil
}
