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
	b := a.newBatch("node", tx.NodePropType(valueKey), func(id uint64) vector.Value { return tx.NodeProp(id, valueKey) },
		tx.GatherNodeProp, timeKey, valueKey)
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
		b.gather(n)
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
	b := a.newBatch("relationship", tx.RelPropType(valueKey), func(id uint64) vector.Value { return tx.RelProp(id, valueKey) },
		tx.GatherRelProp, timeKey, valueKey)
	var nbrs, rels []uint64
	flush := func() error {
		for len(rels) > 0 {
			n := min(len(rels), batchSize)
			if err := a.stop(); err != nil {
				return err
			}
			ids := b.ids(n)
			copy(ids.IDs, rels[:n])
			b.gather(n)
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
	// The rows in range (sel), their buckets by row (idx), the rows of
	// a mixed column without a FLOAT (rest).
	sel, idx, rest []int32
	// The transaction's node or relationship gather, the keys and the
	// batch's size.
	fn                gatherFunc
	timeKey, valueKey catalog.KeyID
	n                 int
}

func (a *scan) newBatch(kind string, valueType vector.Type, lookup func(uint64) vector.Value, fn gatherFunc, timeKey, valueKey catalog.KeyID) *batch {
	b := &batch{kind: kind, idv: vector.New(vector.Node, batchSize), times: vector.New(vector.Any, batchSize),
		hasValue: a.o.value != "", lookup: lookup, fn: fn, timeKey: timeKey, valueKey: valueKey,
		sel: make([]int32, 0, batchSize), idx: make([]int32, batchSize), rest: make([]int32, 0, batchSize)}
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

// gather reads the time column of the batch's n ids, marking every row
// valid or null, reusing the vector's validity.
func (b *batch) gather(n int) {
	b.n = n
	b.fn(b.timeKey, b.idv, nil, n, b.times)
}

// gatherValues reads the value column of the rows sel into out. The
// validity is made to exist first, so that the rows the gather marks
// valid are told from the ones it marks null whatever earlier batches
// left there.
func (b *batch) gatherValues(out *vector.Vector, sel []int32) {
	if out.Valid == nil {
		out.Valid = vector.NewValidity(batchSize)
	}
	b.fn(b.valueKey, b.idv, sel, b.n, out)
}

type gatherFunc = func(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector)
