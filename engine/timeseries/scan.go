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
	b := a.newBatch("node", tx.NodePropType(valueKey), func(id uint64) vector.Value { return tx.NodeProp(id, valueKey) })
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
		ids := b.ids(n)
		for i, id := range buf[:n] {
			ids.IDs[i] = uint64(id)
		}
		b.gather(tx.GatherNodeProp, timeKey, valueKey, n)
		if err := a.add(b, n); err != nil {
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
	b := a.newBatch("relationship", tx.RelPropType(valueKey), func(id uint64) vector.Value { return tx.RelProp(id, valueKey) })
	var nbrs, rels []uint64
	flush := func() error {
		for len(rels) > 0 {
			n := min(len(rels), batchSize)
			if err := a.stop(); err != nil {
				return err
			}
			ids := b.ids(n)
			copy(ids.IDs, rels[:n])
			b.gather(tx.GatherRelProp, timeKey, valueKey, n)
			if err := a.add(b, n); err != nil {
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

// batch holds one call's gather vectors, reused batch after batch. The
// value column is gathered typed: into ints when every value is an
// INTEGER, floats when every value is a FLOAT, and both when the column
// holds several types (mixed), a row null in both then being looked up
// (lookup) to tell a missing value from one that is not a number.
type batch struct {
	kind     string // node or relationship, for messages
	idv      *vector.Vector
	times    *vector.Vector
	hasValue bool // a value property was named (else count only)
	ints     *vector.Vector
	floats   *vector.Vector
	mixed    bool
	lookup   func(id uint64) vector.Value
}

func (a *scan) newBatch(kind string, valueType vector.Type, lookup func(uint64) vector.Value) *batch {
	b := &batch{kind: kind, idv: vector.New(vector.Node, batchSize), times: vector.New(vector.Any, batchSize),
		hasValue: a.o.value != "", lookup: lookup}
	if b.hasValue {
		switch valueType {
		case vector.Int64:
			b.ints = vector.New(vector.Int64, batchSize)
		case vector.Float64:
			b.floats = vector.New(vector.Float64, batchSize)
		case vector.Null: // no element has a value: every row is null
		default:
			b.ints, b.floats, b.mixed = vector.New(vector.Int64, batchSize), vector.New(vector.Float64, batchSize), true
		}
	}
	return b
}

// ids is the id vector for n rows (n ≤ batchSize).
func (b *batch) ids(n int) *vector.Vector {
	b.idv.IDs = b.idv.IDs[:cap(b.idv.IDs)]
	_ = b.idv.IDs[n-1]
	return b.idv
}

// gather reads the time and value columns of the batch's n ids through
// fn (the transaction's node or relationship gather), which marks every
// row valid or null, reusing the vectors' validity.
func (b *batch) gather(fn func(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector), timeKey, valueKey catalog.KeyID, n int) {
	fn(timeKey, b.idv, nil, n, b.times)
	if b.ints != nil {
		fn(valueKey, b.idv, nil, n, b.ints)
	}
	if b.floats != nil {
		fn(valueKey, b.idv, nil, n, b.floats)
	}
}
