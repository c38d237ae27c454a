package algo

import (
	"math"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// vertexRows streams one row per vertex of a projection: the node and
// its value from ints (an INTEGER output) or floats (a FLOAT output),
// in vertex (node id) order. With omit, vertices whose value is the
// unreached mark (the largest INTEGER, +Inf) are left out. Fill is a
// typed loop over the result arrays; nothing is boxed.
type vertexRows struct {
	run    *Run
	g      *Graph
	ints   []int64
	floats []float64
	omit   bool
	next   int
}

func (s *vertexRows) Fill(cols []*vector.Vector, at, n int) (int, error) {
	nodes, vals := cols[0], cols[1]
	k := 0
	for ; k < n && s.next < s.g.N; s.next++ {
		v := s.next
		if s.omit && (s.ints != nil && s.ints[v] == math.MaxInt64 || s.floats != nil && math.IsInf(s.floats[v], 1)) {
			continue
		}
		if nodes != nil {
			nodes.IDs[at+k] = s.g.NodeID(uint32(v))
		}
		if vals != nil {
			if s.ints != nil {
				vals.I64[at+k] = s.ints[v]
			} else {
				vals.F64[at+k] = s.floats[v]
			}
		}
		k++
	}
	return k, nil
}

func (s *vertexRows) Close() { s.run.Release() }

// cdlpSeed is CDLP's initial labels: node ids, or each vertex's INTEGER
// value of the seed property (22000 when one has none).
func cdlpSeed(a *algoCall, c *procs.Context, g *Graph, key string, seeded bool) ([]int64, error) {
	seed, err := MakeCharged[int64](a.run, g.N, 8)
	if err != nil {
		return nil, err
	}
	if !seeded {
		return seed, a.run.Blocks(len(seed), func(lo, hi int) error {
			for v := lo; v < hi; v++ {
				seed[v] = int64(g.NodeID(uint32(v)))
			}
			return nil
		})
	}
	k, found := c.Catalog.LookupKey(key)
	if !found && g.N > 0 {
		return nil, errs.Data("%s: node %d has no INTEGER property %s (seedProperty)", a.cfg.proc, g.NodeID(0), key)
	}
	return seed, gatherSeeds(a, g, k, key, seed)
}

// gatherSeeds reads key k of every vertex into seed, a vector of ids at a
// time.
func gatherSeeds(a *algoCall, g *Graph, k catalog.KeyID, key string, seed []int64) error {
	ids := vector.New(vector.Node, vector.Capacity)
	out := vector.New(vector.Int64, vector.Capacity)
	for lo := 0; lo < g.N; lo += vector.Capacity {
		if err := a.run.Stop(); err != nil {
			return err
		}
		n := min(vector.Capacity, g.N-lo)
		for i := range n {
			ids.IDs[i] = g.NodeID(uint32(lo + i))
		}
		out.ResetNulls()
		a.tx.GatherNodeProp(k, ids, nil, n, out)
		for i := range n {
			if out.IsNull(i) {
				return errs.Data("%s: node %d has no INTEGER property %s (seedProperty)", a.cfg.proc, ids.IDs[i], key)
			}
			seed[lo+i] = out.I64[i]
		}
	}
	return nil
}
