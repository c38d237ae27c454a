package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Helpers shared by the multi-hop traversals (variable-length expansion
// and shortest paths): which adjacency lists to read, and the per-row
// checks on each relationship of a chain.

// openAdjs lists the CSRs to read for relationship types (every type when
// empty) in a direction. Incoming lists of an undirected pattern skip
// self-loops, which the outgoing list already gave.
func openAdjs(c *Context, names []string, dir plan.Direction) []adjList {
	var types []catalog.TypeID
	if len(names) == 0 {
		types = c.Catalog.Types()
	}
	for _, name := range names {
		if id, ok := c.Catalog.LookupType(name); ok {
			types = append(types, id)
		}
	}
	var adjs []adjList
	for _, t := range types {
		if dir == plan.Out || dir == plan.Both {
			if a := c.Tx.Adjacency(t, storage.Outgoing); a != nil {
				adjs = append(adjs, adjList{adj: a})
			}
		}
		if dir == plan.In || dir == plan.Both {
			if a := c.Tx.Adjacency(t, storage.Incoming); a != nil {
				adjs = append(adjs, adjList{adj: a, skipLoops: dir == plan.Both})
			}
		}
	}
	return adjs
}

// appendAdj appends node's neighbours and relationships over every list.
func appendAdj(adjs []adjList, nbrs, rels []uint64, node uint64) ([]uint64, []uint64) {
	for _, a := range adjs {
		start := len(nbrs)
		nbrs, rels = a.adj.AppendNeighbors(nbrs, rels, node)
		if a.skipLoops {
			nbrs, rels = dropLoops(nbrs, rels, start, node)
		}
	}
	return nbrs, rels
}

// resolveLabels resolves the labels a far end must carry. missing is true
// when one does not exist, so that nothing can match.
func resolveLabels(c *Context, names []string) (ids []catalog.LabelID, missing bool) {
	return expr.LookupAll(nil, names, c.Catalog.LookupLabel)
}

// hasLabels reports whether node carries every label of ids.
func nodeHasLabels(tx *storage.Tx, node uint64, ids []catalog.LabelID) bool {
	for _, l := range ids {
		if !tx.HasLabel(node, l) {
			return false
		}
	}
	return true
}

// relProps checks the inline property map of a multi-hop pattern on each
// relationship: the values are evaluated once per input batch, then looked
// up per row.
type relProps struct {
	keys    []catalog.KeyID
	missing bool // a key does not exist: no relationship matches
	evs     []expr.Evaluator
	vecs    []*vector.Vector
	vals    []vector.Value // the current row's values
	nullVal bool           // a value of the current row is null: nothing equals it
	found   []bool
}

func newRelProps(c *Context, keys []string, vals []plan.Expr) (*relProps, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	rp := &relProps{vecs: make([]*vector.Vector, len(keys)), vals: make([]vector.Value, len(keys)), found: make([]bool, len(keys))}
	for i, k := range keys {
		id, ok := c.Catalog.LookupKey(k)
		if !ok {
			rp.missing = true
		}
		rp.keys = append(rp.keys, id)
		ev, err := compile(c, vals[i])
		if err != nil {
			return nil, err
		}
		rp.evs = append(rp.evs, ev)
	}
	return rp, nil
}

// batch evaluates the values over a new input batch.
func (rp *relProps) batch(b *vector.Batch) error {
	for i, ev := range rp.evs {
		v, err := ev.Eval(b)
		if err != nil {
			return err
		}
		rp.vecs[i] = v
	}
	return nil
}

// row selects the values of physical row r of the current batch.
func (rp *relProps) row(r int) {
	rp.nullVal = false
	for i, v := range rp.vecs {
		rp.vals[i] = v.Get(r)
		if rp.vals[i] == nil {
			rp.nullVal = true
		}
	}
}

// match reports whether relationship rel has every wanted value.
func (rp *relProps) match(tx *storage.Tx, rel uint64) bool {
	if rp.missing || rp.nullVal {
		return false
	}
	clear(rp.found)
	tx.RelProps(rel, func(k catalog.KeyID, v vector.Value) {
		for i, key := range rp.keys {
			if key == k {
				eq, null := functions.EqualValues(v, rp.vals[i])
				rp.found[i] = eq && !null
			}
		}
	})
	for _, f := range rp.found {
		if !f {
			return false
		}
	}
	return true
}

// pathOf copies a chain into a vector.Path.
func copyPath(nodes, rels []uint64) vector.Path {
	return vector.Path{Nodes: append([]uint64(nil), nodes...), Rels: append([]uint64(nil), rels...)}
}
