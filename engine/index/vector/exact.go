package vectorindex

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Column is the candidate vectors of one exact search, read in morsels
// that workers take in any order. Read is called concurrently, for
// different morsels.
type Column[T vector.Float] interface {
	// Dim is the dimension every vector of the column has.
	Dim() int
	// Morsels is the number of morsels.
	Morsels() int
	// Read appends morsel m's vectors to b, which the caller emptied.
	// A candidate without a vector is left out; one of another
	// dimension is an error.
	Read(m int, b *Batch[T]) error
}

// Batch is a morsel's vectors, dense: vector i is Vecs[i*dim:(i+1)*dim].
type Batch[T vector.Float] struct {
	IDs  []uint64
	Vecs []T
	// view marks slices that belong to the column (Flat.Read), which
	// reset drops instead of truncating, so no append writes into them.
	view bool
}

// Add appends one vector.
func (b *Batch[T]) Add(id uint64, v []T) {
	b.IDs = append(b.IDs, id)
	b.Vecs = append(b.Vecs, v...)
}

func (b *Batch[T]) reset() {
	if b.view {
		*b = Batch[T]{}
		return
	}
	b.IDs = b.IDs[:0]
	b.Vecs = b.Vecs[:0]
}

// Options tune one search.
type Options struct {
	// Workers is the number of goroutines (at least 1).
	Workers int
	// Mem is charged for the workers' buffers and heaps (nil: none).
	Mem *memory.Tracker
	// Accept, when set, keeps only the candidates it accepts (a label
	// or property predicate); called concurrently.
	Accept func(id uint64) bool
	// MorselRows is the expected rows per morsel, for the charge of a
	// worker's buffer (0: DefaultMorselRows).
	MorselRows int
}

// DefaultMorselRows is the size of an in-memory column's morsel: 4096
// vectors of 128 FLOAT32 are 2 MiB, a worker's share of a core's cache
// hierarchy, large enough that taking a morsel costs nothing.
const DefaultMorselRows = 4096

// Exact returns the k candidates of col closest to q, best first
// (higher score, then lower id). Workers take morsels from a shared
// counter, each keeping its own heap; the heaps are merged at the end.
// Cancellation is checked before every morsel.
func Exact[T vector.Float](ctx context.Context, col Column[T], q []T, k int, m Metric, opt Options) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	if len(q) != col.Dim() {
		return nil, errs.Data("vector search: query vector has dimension %d, the searched vectors %d", len(q), col.Dim())
	}
	workers := max(1, min(opt.Workers, col.Morsels()))
	rows := opt.MorselRows
	if rows <= 0 {
		rows = DefaultMorselRows
	}
	var zero T
	perWorker := int64(rows)*(int64(len(q))*int64(unsafe.Sizeof(zero))+8) + int64(min(k, rows*col.Morsels()))*int64(unsafe.Sizeof(Hit{}))
	charged := perWorker * int64(workers)
	if opt.Mem != nil {
		if err := opt.Mem.Charge(charged); err != nil {
			opt.Mem.Release(charged)
			return nil, err
		}
		defer opt.Mem.Release(charged)
	}
	qn := vector.Norm(q)
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		heaps = make([]*topK, workers)
		fails = make([]error, workers)
	)
	for w := range workers {
		heaps[w] = newTopK(k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fails[w] = scanMorsels(ctx, col, q, qn, m, opt.Accept, &next, heaps[w])
		}()
	}
	wg.Wait()
	for _, err := range fails {
		if err != nil {
			return nil, err
		}
	}
	for _, h := range heaps[1:] {
		heaps[0].merge(h)
	}
	return heaps[0].sorted(), nil
}

// scanMorsels is one worker's loop: take a morsel, read it, score every
// vector into the worker's heap.
func scanMorsels[T vector.Float](ctx context.Context, col Column[T], q []T, qn float64, m Metric, accept func(uint64) bool, next *atomic.Int64, top *topK) error {
	var b Batch[T]
	dim := len(q)
	for {
		mi := int(next.Add(1) - 1)
		if mi >= col.Morsels() {
			return nil
		}
		if err := errs.Stopped(ctx); err != nil {
			return err
		}
		b.reset()
		if err := col.Read(mi, &b); err != nil {
			return err
		}
		if len(b.Vecs) != len(b.IDs)*dim {
			return errs.Internal("vector search: morsel %d holds %d values for %d vectors of dimension %d", mi, len(b.Vecs), len(b.IDs), dim)
		}
		for i, id := range b.IDs {
			if accept != nil && !accept(id) {
				continue
			}
			if s, ok := score(m, q, b.Vecs[i*dim:(i+1)*dim:(i+1)*dim], qn); ok {
				top.offer(Hit{ID: id, Score: s})
			}
		}
	}
}

// Flat is an in-memory column: vectors of one dimension stored end to
// end, with their ids, cut into morsels of DefaultMorselRows.
type Flat[T vector.Float] struct {
	D    int
	IDs  []uint64
	Vecs []T
	// Rows is the morsel size (0: DefaultMorselRows); tests shrink it.
	Rows int
}

// Dim: see Column.
func (f *Flat[T]) Dim() int { return f.D }

func (f *Flat[T]) rows() int {
	if f.Rows > 0 {
		return f.Rows
	}
	return DefaultMorselRows
}

// Morsels: see Column.
func (f *Flat[T]) Morsels() int { return (len(f.IDs) + f.rows() - 1) / f.rows() }

// Read: see Column. It appends views, not copies, when b is empty.
func (f *Flat[T]) Read(m int, b *Batch[T]) error {
	lo := m * f.rows()
	hi := min(lo+f.rows(), len(f.IDs))
	if len(b.IDs) == 0 {
		b.IDs, b.Vecs, b.view = f.IDs[lo:hi:hi], f.Vecs[lo*f.D:hi*f.D:hi*f.D], true
		return nil
	}
	b.IDs = append(b.IDs, f.IDs[lo:hi]...)
	b.Vecs = append(b.Vecs, f.Vecs[lo*f.D:hi*f.D]...)
	return nil
}

// Vector is vector i of the column.
func (f *Flat[T]) Vector(i int) []T { return f.Vecs[i*f.D : (i+1)*f.D : (i+1)*f.D] }
