package timeseries

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The scans: element ids a batch at a time, their time and value
// properties gathered through the storage's column gathers (which read
// the transaction's own writes), folded by add. The stop is checked per
// batch.

// nodes folds the nodes of set.
func (a *scan) nodes(tx *storage.Tx, set *roaring.Bitmap, timeKey, valueKey catalog.KeyID) error {
	g := a.gatherers(tx.NodePropType(valueKey))
	it := set.ManyIterator()
	buf := make([]uint32, batchSize)
	for {
		n := it.NextMany(buf)
		if n == 0 {
			return nil
		}
		if err := a.stop(); err != nil {
			return err
		}
		ids := g.ids(n)
		for i, id := range buf[:n] {
			ids.IDs[i] = uint64(id)
		}
		tx.GatherNodeProp(timeKey, ids, nil, n, g.times)
		if g.values != nil {
			tx.GatherNodeProp(valueKey, ids, nil, n, g.values)
		}
		if err := a.add(g.times, g.values, ids.IDs[:n], "node"); err != nil {
			return err
		}
	}
}

// rels folds the relationships of type t, found through its outgoing
// adjacency (every relationship once, at its source).
func (a *scan) rels(tx *storage.Tx, t catalog.TypeID, timeKey, valueKey catalog.KeyID) error {
	adj := tx.Adjacency(t, storage.Outgoing)
	if adj == nil {
		return nil
	}
	g := a.gatherers(tx.RelPropType(valueKey))
	var nbrs, rels []uint64
	flush := func() error {
		for len(rels) > 0 {
			n := min(len(rels), batchSize)
			if err := a.stop(); err != nil {
				return err
			}
			ids := g.ids(n)
			copy(ids.IDs, rels[:n])
			tx.GatherRelProp(timeKey, ids, nil, n, g.times)
			if g.values != nil {
				tx.GatherRelProp(valueKey, ids, nil, n, g.values)
			}
			if err := a.add(g.times, g.values, ids.IDs[:n], "relationship"); err != nil {
				return err
			}
			rels = rels[n:]
		}
		rels = rels[:0]
		return nil
	}
	for node := range uint64(adj.NumNodes()) {
		// The two lists grow together: AppendNeighbors patches a node's
		// changed list in place at the same offset in both.
		nbrs, rels = adj.AppendNeighbors(nbrs, rels, node)
		if len(rels) >= batchSize {
			keep := rels
			if err := flush(); err != nil {
				return err
			}
			nbrs, rels = nbrs[:0], keep[:0]
		}
	}
	return flush()
}

// batch holds one call's gather vectors, reused batch after batch.
type batch struct {
	idv    *vector.Vector
	times  *vector.Vector
	values *vector.Vector // nil: no value property (count only)
}

func (a *scan) gatherers(valueType vector.Type) *batch {
	b := &batch{idv: vector.New(vector.Node, batchSize), times: vector.New(vector.Any, batchSize)}
	if a.o.value != "" {
		b.values = valueVector(valueType, batchSize)
	}
	return b
}

// ids is the id vector for n rows, its validity cleared, and the output
// vectors' too (a gather sets the null rows).
func (b *batch) ids(n int) *vector.Vector {
	if n > len(b.idv.IDs) {
		b.idv = vector.New(vector.Node, n)
		b.times = vector.New(vector.Any, n)
		if b.values != nil {
			b.values = valueVector(b.values.Type, n)
		}
	}
	b.times.Valid = nil
	if b.values != nil {
		b.values.Valid = nil
	}
	return b.idv
}
