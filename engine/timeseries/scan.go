package timeseries

import (
	"errors"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The scan: element ids a batch at a time, their time and value
// properties gathered through the storage's column gathers (which read
// the transaction's own writes), folded by add. One producer lists the
// ids (a label's node set, or a type's adjacency); with several workers
// each gathers and folds the batches it takes into buckets of its own,
// merged at the end. The stop is checked per batch.

// source is the elements a call reads: the nodes of a label or the
// relationships of a type.
type source struct {
	nodes *roaring.Bitmap
	rels  *storage.Adjacency
	size  int64
}

func findSource(tx *storage.Tx, c *procs.Context, o *options) source {
	if o.label != "" {
		if l, ok := c.Catalog.LookupLabel(o.label); ok {
			set := tx.LabelNodes(l)
			return source{nodes: set, size: int64(set.GetCardinality())}
		}
		return source{}
	}
	if t, ok := c.Catalog.LookupType(o.typ); ok {
		if adj := tx.Adjacency(t, storage.Outgoing); adj != nil {
			return source{rels: adj, size: int64(adj.NumEdges())}
		}
	}
	return source{}
}

// produce emits src's ids a batch at a time (at most batchSize each; the
// slice is the producer's, valid until emit returns).
func (src source) produce(emit func(ids []uint64) error) error {
	ids := make([]uint64, 0, batchSize)
	if src.nodes != nil {
		it := src.nodes.ManyIterator()
		buf := make([]uint32, batchSize)
		for {
			n := it.NextMany(buf)
			if n == 0 {
				return nil
			}
			ids = ids[:n]
			for i, id := range buf[:n] {
				ids[i] = uint64(id)
			}
			if err := emit(ids); err != nil {
				return err
			}
		}
	}
	// Every relationship once, at its source. The two lists grow
	// together: AppendNeighbors patches a node's changed list in place at
	// the same offset in both.
	var nbrs []uint64
	flush := func() error {
		for len(ids) > 0 {
			n := min(len(ids), batchSize)
			if err := emit(ids[:n]); err != nil {
				return err
			}
			ids = ids[n:]
		}
		return nil
	}
	for node := range uint64(src.rels.NumNodes()) {
		nbrs, ids = src.rels.AppendNeighbors(nbrs, ids, node)
		if len(ids) >= batchSize {
			keep := ids
			if err := flush(); err != nil {
				return err
			}
			nbrs, ids = nbrs[:0], keep[:0]
		}
	}
	return flush()
}

// errQuit stops the producer once a worker failed.
var errQuit = errors.New("a worker failed")

// fold folds src into a.states on a.workers goroutines.
func (a *scan) fold(tx *storage.Tx, src source, timeKey, valueKey catalog.KeyID) error {
	kind, valueType, gather := "node", tx.NodePropType(valueKey), tx.GatherNodeProp
	lookup := func(id uint64) vector.Value { return tx.NodeProp(id, valueKey) }
	if src.rels != nil {
		kind, valueType, gather = "relationship", tx.RelPropType(valueKey), tx.GatherRelProp
		lookup = func(id uint64) vector.Value { return tx.RelProp(id, valueKey) }
	}
	newBatch := func() *batch { return a.newBatch(kind, valueType, lookup) }
	if a.workers <= 1 {
		b := newBatch()
		return src.produce(func(ids []uint64) error {
			if err := a.stop(); err != nil {
				return err
			}
			n := copy(b.idv.IDs, ids)
			b.gather(gather, timeKey, valueKey, n)
			return a.add(a.states, b, n)
		})
	}
	parts := make([][]state, a.workers)
	parts[0] = a.states
	for w := 1; w < a.workers; w++ {
		parts[w] = make([]state, len(a.states))
	}
	jobs := make(chan []uint64, a.workers)
	free := make(chan []uint64, 2*a.workers) // id buffers handed back
	quit := make(chan struct{})
	var once sync.Once
	var failed error
	fail := func(err error) { once.Do(func() { failed = err; close(quit) }) }
	var wg sync.WaitGroup
	for w := range a.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := newBatch()
			for ids := range jobs {
				n := copy(b.idv.IDs, ids)
				select {
				case free <- ids:
				default:
				}
				select {
				case <-quit:
					continue // drain: the producer is stopping
				default:
				}
				b.gather(gather, timeKey, valueKey, n)
				if err := a.add(parts[w], b, n); err != nil {
					fail(err)
				}
			}
		}()
	}
	err := src.produce(func(ids []uint64) error {
		if err := a.stop(); err != nil {
			return err
		}
		var buf []uint64
		select {
		case buf = <-free:
		default:
			buf = make([]uint64, 0, batchSize)
		}
		buf = append(buf[:0], ids...)
		select {
		case jobs <- buf:
			return nil
		case <-quit:
			return errQuit
		}
	})
	close(jobs)
	wg.Wait()
	if failed != nil {
		return failed
	}
	if err != nil {
		return err
	}
	for _, p := range parts[1:] {
		for i := range p {
			if err := a.states[i].merge(&p[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge adds o's aggregates to s's.
func (s *state) merge(o *state) error {
	if o.rows == 0 {
		return nil
	}
	s.rows += o.rows
	s.count += o.count
	if o.nInt > 0 {
		if s.nInt == 0 || o.minI < s.minI {
			s.minI = o.minI
		}
		if s.nInt == 0 || o.maxI > s.maxI {
			s.maxI = o.maxI
		}
	}
	if o.nFlt > 0 {
		if s.nFlt == 0 || functions.CmpTotalFloat(o.minF, s.minF) < 0 {
			s.minF = o.minF
		}
		if s.nFlt == 0 || functions.CmpTotalFloat(o.maxF, s.maxF) > 0 {
			s.maxF = o.maxF
		}
	}
	s.nInt += o.nInt
	s.nFlt += o.nFlt
	if s.float || o.float {
		s.fsum = s.floatSum() + o.floatSum()
		s.float = true
		return nil
	}
	sum := s.isum + o.isum
	if (o.isum > 0 && sum < s.isum) || (o.isum < 0 && sum > s.isum) {
		return errs.DataCode(errs.CodeOverflow, "quiver.ts.aggregate: a bucket's integer sum leaves the INTEGER range")
	}
	s.isum = sum
	return nil
}

// floatSum is the sum as a FLOAT.
func (s *state) floatSum() float64 {
	if s.float {
		return s.fsum
	}
	return float64(s.isum)
}

// batch holds one worker's gather vectors, reused batch after batch. The
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
