package algo

import (
	"fmt"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Graph is a dense projection of one snapshot:
//
//	vertices 0..N-1, in node id order (or by degree: Projection.HubOrder)
//	  Nodes []uint64   vertex -> node id (nil: vertex v is node v)
//	Out    CSR         edges v -> Out.Nbr[Out.Off[v]:Out.Ends()[v]]
//	In     CSR         edges v <- In.Nbr[...] (the same arrays as Out
//	                   when Symmetric)
//	OutRel []uint64    relationship id of each Out slot (when asked)
//	OutW   []float64   weight of each Out slot (when asked)
//	OutDeg []uint32    out-degree per vertex (when asked without Out)
//
// Offsets are uint32: a projection holds fewer than 2^32 edges per
// direction (Project refuses more). Only the parts an algorithm asks for
// are built; the others stay empty.
type Graph struct {
	N         int
	Nodes     []uint64
	Out, In   CSR
	OutRel    []uint64
	OutW      []float64
	OutDeg    []uint32
	Symmetric bool // In is Out (an undirected projection)
	// Sorted reports that every list is sorted by vertex (ascending,
	// duplicates kept).
	Sorted bool

	dense []uint32 // node id -> vertex, noVertex when absent; nil: identity
	// inBounded records that checkInBounded found every entry of In.Nbr
	// below N: kernels that index per-vertex arrays by neighbour without
	// a bounds check (PageRank's pull) rely on it. A projection is
	// shared by the queries that find it in the cache, hence atomic.
	inBounded atomic.Bool
	// wsum is the sum of OutW once weightSum added it (nil before).
	wsum atomic.Pointer[float64]
	// filtered: a label filter chose the vertices, so a relationship may
	// lead out of the projection (without one, every neighbour of a live
	// node is a live node: a vertex).
	filtered bool
	// hidden are the relationships row-level security hides
	// (Projection.HiddenRels): never edges; nil when none is.
	hidden *roaring64.Bitmap
	// users counts the calls reading this graph from the cache (and the
	// patches copying it): a patch may change a cached graph in place
	// only while it has none (Cache.older), since nobody can find it
	// once the cache dropped it.
	users atomic.Int64
}

// CSR is one direction's adjacency over dense vertex ids. A projection
// builds it packed: v's list is Nbr[Off[v]:Off[v+1]]. A patch in place
// (patcher.inPlace) may then move a list that grew to the free room at the
// end of Nbr, or shorten one where it is, and records where every list
// ends in End: v's list is then Nbr[Off[v]:End[v]], and the slots
// between lists are no list's (they hold stale vertices). Kernels read a list's end
// from Ends, which is Off[1:] for a packed CSR, so the cached case reads
// the same array it always did.
type CSR struct {
	Off []uint32 // len N+1 when built; Off[N] is the packed end
	Nbr []uint32
	// End is where each list ends (len N) once a patch in place moved
	// or shortened one; nil while packed.
	End []uint32
	// edges is the number of list entries when End is set (a packed
	// CSR holds Off[N]).
	edges int
	// cuts, when End is set, are the vertex ranges of about equal edge
	// counts the kernels split their work by (ranges), cut over the
	// packed offsets before the first patch in place and kept since: a
	// patch changes few lists, and the balance they give barely moves.
	cuts []int
}

// Ends is where each vertex's list ends: End, or Off[1:] while packed.
func (c *CSR) Ends() []uint32 {
	if c.End != nil {
		return c.End
	}
	return c.Off[1:]
}

// Edges is the number of list entries (the sum of the degrees).
func (c *CSR) Edges() int {
	if c.End != nil {
		return c.edges
	}
	if len(c.Off) == 0 {
		return 0
	}
	return int(c.Off[len(c.Off)-1])
}

// Degree is v's list length.
func (c *CSR) Degree(v uint32) int { return int(c.Ends()[v] - c.Off[v]) }

// List is v's neighbour list.
func (c *CSR) List(v uint32) []uint32 { return c.Nbr[c.Off[v]:c.Ends()[v]] }

const noVertex = ^uint32(0)

// edge reports whether the i-th entry of a decoded list, to node x by
// relationship rels[i] (rels read when g.hidden is set), is an edge of
// the projection: x is a vertex and the relationship is not hidden.
func (g *Graph) edge(x uint64, rels []uint64, i int) bool {
	if g.dense != nil && (x >= uint64(len(g.dense)) || g.dense[x] == noVertex) {
		return false
	}
	return g.hidden == nil || !g.hidden.Contains(rels[i])
}

// NodeID is vertex v's node id.
func (g *Graph) NodeID(v uint32) uint64 {
	if g.Nodes == nil {
		return uint64(v)
	}
	return g.Nodes[v]
}

// Vertex is node id's vertex, false when the node is not in the
// projection.
func (g *Graph) Vertex(node uint64) (uint32, bool) {
	if g.dense == nil {
		return uint32(node), node < uint64(g.N)
	}
	if node >= uint64(len(g.dense)) || g.dense[node] == noVertex {
		return 0, false
	}
	return g.dense[node], true
}

// checkInBounded makes sure every In neighbour is a vertex below N, once
// per graph (a pass over In.Nbr, then remembered), so that a kernel may
// index per-vertex arrays of N entries by neighbour without a bounds
// check. Projections build only such lists; the check keeps memory safe
// whatever built the graph.
func (g *Graph) checkInBounded(r *Run) error {
	if g.inBounded.Load() {
		return nil
	}
	c, n := &g.In, g.N
	if len(c.Off) != n+1 || int(c.Off[n]) > len(c.Nbr) || c.End != nil && len(c.End) != n {
		return fmt.Errorf("algo: an adjacency of %d offsets and %d entries does not fit %d vertices", len(c.Off), len(c.Nbr), n)
	}
	if c.End != nil {
		// Lists anywhere in Nbr: each must lie within it.
		for v, e := range c.End {
			if c.Off[v] > e || int(e) > len(c.Nbr) {
				return fmt.Errorf("algo: vertex %d's list [%d, %d) does not fit %d entries", v, c.Off[v], e, len(c.Nbr))
			}
		}
	}
	// Every used slot is checked, between lists too (patches write only
	// vertices there).
	var bad atomic.Bool
	err := r.Blocks(len(c.Nbr), func(lo, hi int) error {
		for _, u := range c.Nbr[lo:hi] {
			if int(u) >= n {
				bad.Store(true)
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if bad.Load() {
		return fmt.Errorf("algo: a neighbour is not one of the %d vertices", n)
	}
	g.inBounded.Store(true)
	return nil
}
