package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Grouped by a property of the start node as well (`RETURN a.city,
// k.since, count(*)`), rel-scan-agg reads the pattern's own lists: a
// start node's slots are a contiguous range of its list's base, so the
// relationships' values are still read in slot order, counted in the
// start node's row of a matrix of (start-node key, relationship key)
// counters. The start node's key is coded once per node: a STRING
// property by its dictionary code, an INTEGER one by its value's code
// in the integer view. An undirected pattern reads the outgoing and the
// incoming lists, and takes the incoming lists' loops back off.

// nodeKeys is the start node's key, coded per node id.
type nodeKeys struct {
	codes []int32        // per node id: its key's code, -1 when null
	vals  []vector.Value // per code: the key's value
}

// maxRelScanCells bounds the counters of one worker's matrix.
const maxRelScanCells = 1 << 22

// newNodeKeys codes property key of every node the lists reach; nil
// (PROFILE says why) when a value has no code or the matrix would be
// too large.
func newNodeKeys(c *Context, a *plan.Aggregate, key string, adjs []adjList, views []*storage.IntView) *nodeKeys {
	fail := func(why string) *nodeKeys {
		c.fellBack(a, plan.RuleRelScanAgg, why)
		return nil
	}
	k, ok := c.Catalog.LookupKey(key)
	if !ok {
		return fail("property " + key + " has no values")
	}
	if len(views) == 0 {
		return fail("no relationship of the types")
	}
	if views[0].Codes() == 0 {
		return fail("the relationship's values are wider than 16 bits")
	}
	bound := 0
	for _, l := range adjs {
		bound = max(bound, l.adj.Base().NumNodes())
	}
	if err := c.Mem.Charge(int64(bound) * 4); err != nil {
		return fail(err.Error())
	}
	nk := &nodeKeys{codes: make([]int32, bound)}
	if v := c.Tx.NodeIntView(k, bound); v != nil {
		nk.codeInts(v)
	} else if !nk.codeStrings(c, k) {
		return fail("property " + key + " of the start node has neither an integer view nor a code for every value")
	}
	if (len(nk.vals)+1)*(views[0].Codes()+1) > maxRelScanCells {
		return fail("too many groups for a matrix of counters")
	}
	return nk
}

// codeInts codes an INTEGER key by value, in order of first sight:
// through a table by the view's code when it is at most 16 bits wide, a
// map otherwise.
func (nk *nodeKeys) codeInts(v *storage.IntView) {
	var table []int32
	if n := v.Codes(); n > 0 {
		table = make([]int32, n)
		for i := range table {
			table[i] = -1
		}
	}
	seen := map[int64]int32{}
	for id := range nk.codes {
		x, ok := v.Get(uint64(id))
		if !ok {
			nk.codes[id] = -1
			continue
		}
		if table != nil {
			c := &table[x-v.Base()]
			if *c < 0 {
				*c = int32(len(nk.vals))
				nk.vals = append(nk.vals, x)
			}
			nk.codes[id] = *c
			continue
		}
		code, ok := seen[x]
		if !ok {
			code = int32(len(nk.vals))
			seen[x] = code
			nk.vals = append(nk.vals, x)
		}
		nk.codes[id] = code
	}
}

// codeStrings codes a STRING key through its chunks' dictionary codes,
// each dictionary's translated once into codes of the whole key, the
// values of chunks without codes read one by one; false when the column
// is not STRING.
func (nk *nodeKeys) codeStrings(c *Context, k catalog.KeyID) bool {
	ids := vector.New(vector.Node, vector.Capacity)
	trans := map[*storage.StringDict][]int32{}
	global := map[string]int32{}
	for from := 0; from < len(nk.codes); from += vector.Capacity {
		n := min(vector.Capacity, len(nk.codes)-from)
		for i := range n {
			ids.IDs[i] = uint64(from + i)
		}
		codes := nk.codes[from : from+n]
		d, ok := c.Tx.GatherNodePropCodes(k, ids, nil, n, codes)
		if !ok {
			return false
		}
		var t []int32
		if d != nil {
			if t, ok = trans[d]; !ok {
				t = make([]int32, len(d.Strs))
				for i, s := range d.Strs {
					g, ok := global[s]
					if !ok {
						g = int32(len(nk.vals))
						global[s] = g
						nk.vals = append(nk.vals, s)
					}
					t[i] = g
				}
				trans[d] = t
			}
		}
		for i, code := range codes {
			if code >= 0 {
				codes[i] = t[code]
				continue
			}
			// Null, or in a chunk not sealed yet (the last one): read.
			switch v := c.Tx.NodeProp(uint64(from+i), k).(type) {
			case nil:
			case string:
				g, ok := global[v]
				if !ok {
					g = int32(len(nk.vals))
					global[v] = g
					nk.vals = append(nk.vals, v)
				}
				codes[i] = g
			default:
				return false
			}
		}
	}
	return true
}

// relScanNodeChunk is the start nodes a worker counts between
// cancellation checks.
const relScanNodeChunk = 1 << 13

// runByNode counts every start node's slots into its key's row.
func (r *relScanAgg) runByNode() error {
	nk := r.node
	codes := r.views[0].Codes()
	width := codes + 1 // the relationship's codes, then its null
	rows := len(nk.vals) + 1
	type job struct {
		base     int
		from, to int
	}
	var jobs []job
	slots := int64(0)
	for i, b := range r.bases {
		n := b.NumNodes()
		for u := 0; u < n; u += relScanNodeChunk {
			jobs = append(jobs, job{i, u, min(u+relScanNodeChunk, n)})
		}
		slots += int64(b.NumEdges())
	}
	workers := max(1, min(r.c.Parallelism, len(jobs)))
	if err := r.c.Mem.Charge(int64(workers) * int64(rows*width) * 8); err != nil {
		return err
	}
	mats := make([][]int64, workers)
	for w := range mats {
		mats[w] = make([]int64, rows*width)
	}
	err := runJobs(r.c, len(jobs), workers, func(w, i int) error {
		m, j := mats[w], jobs[i]
		off, v := r.bases[j.base].Offsets(), r.views[j.base]
		for u := j.from; u < j.to; u++ {
			lo, hi := off[u], off[u+1]
			if lo == hi {
				continue
			}
			row := m[nk.row(u)*width:][:width]
			row[codes] += v.Tally(lo, hi, row[:codes], nil)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.c.Counters.RowsScanned += slots
	r.c.Counters.DBHits += slots
	sum := mats[0]
	for _, m := range mats[1:] {
		for i, n := range m {
			sum[i] += n
		}
	}
	r.dropInLoops(sum, width)
	base := r.views[0].Base()
	for g := range rows {
		var key vector.Value
		if g < len(nk.vals) {
			key = nk.vals[g]
		}
		for x, n := range sum[g*width : (g+1)*width] {
			if n > 0 {
				r.groups = append(r.groups, relGroup{node: key, rel: base + int64(x), relNull: x == codes, n: n})
			}
		}
	}
	return r.c.Mem.Charge(int64(len(r.groups)) * 48)
}

// row is node u's row of the matrix: its key's code, or the null row.
func (nk *nodeKeys) row(u int) int {
	if u < len(nk.codes) && nk.codes[u] >= 0 {
		return int(nk.codes[u])
	}
	return len(nk.vals)
}

// dropInLoops takes off the loops of the incoming lists an undirected
// pattern read: the outgoing lists counted them already.
func (r *relScanAgg) dropInLoops(m []int64, width int) {
	var nbrs []uint64
	codes := width - 1
	for i, b := range r.bases {
		if !r.skipLoops[i] {
			continue
		}
		loops, off, v := b.Loops(), b.Offsets(), r.views[i]
		for j, node := range loops {
			if j > 0 && loops[j-1] == node {
				continue // a node's parallel loops are found together
			}
			nbrs = b.AppendNeighbors(nbrs[:0], node)
			row := m[r.node.row(int(node))*width:][:width]
			for s, nb := range nbrs {
				if nb != node {
					continue
				}
				if x, ok := v.Get(off[node] + uint64(s)); ok {
					row[x-v.Base()]--
				} else {
					row[codes]--
				}
			}
		}
	}
}
