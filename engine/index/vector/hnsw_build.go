package vectorindex

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// Build indexes every vector of col (a later vector of an id replaces
// an earlier one), inserting on cfg.Workers goroutines.
func Build(col Column[float32], cfg Config) (*Index, error) {
	return BuildContext(context.Background(), col, cfg, nil)
}

// BuildContext is Build that stops when ctx is done (checked every few
// hundred inserts) and reports the vectors inserted so far to progress
// (nil: none), every few thousand and at the end, from one goroutine at
// a time.
func BuildContext(ctx context.Context, col Column[float32], cfg Config, progress func(done int)) (*Index, error) {
	if col.Dim() != cfg.Dim {
		return nil, errs.Data("vector index: the column has dimension %d, the index %d", col.Dim(), cfg.Dim)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := newIndex(cfg)
	var b Batch[float32]
	for m := range col.Morsels() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("vector index: build cancelled: %w", err)
		}
		b.reset()
		if err := col.Read(m, &b); err != nil {
			return nil, err
		}
		for i, id := range b.IDs {
			if err := ix.gather(id, b.Vecs[i*cfg.Dim:(i+1)*cfg.Dim]); err != nil {
				return nil, err
			}
		}
	}
	if err := ix.buildGraph(ctx, progress); err != nil {
		return nil, err
	}
	return ix, nil
}

// BuildFromView builds an index over a property's vectors as storage
// keeps them for search (the FLOAT64 view of one version of the column),
// each converted to the index's FLOAT32. Values that are not vectors of
// the view's dimension (v.Odd) are not indexed; the caller decides
// whether they are an error.
func BuildFromView(v *storage.VectorView, cfg Config) (*Index, error) {
	if v.Dim != cfg.Dim {
		return nil, errs.Data("vector index: the property's vectors have dimension %d, the index %d", v.Dim, cfg.Dim)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := newIndex(cfg)
	x := make([]float32, v.Dim)
	for i, id := range v.IDs {
		for j, f := range v.Vals[i*v.Dim : (i+1)*v.Dim] {
			x[j] = float32(f)
		}
		if err := ix.gather(id, x); err != nil {
			return nil, err
		}
	}
	if err := ix.buildGraph(context.Background(), nil); err != nil {
		return nil, err
	}
	return ix, nil
}

// gather copies id's vector into the graph's array before a build.
func (ix *Index) gather(id uint64, v []float32) error {
	if err := ix.check(id, v); err != nil {
		return err
	}
	g := ix.g
	s, ok := ix.slot[id]
	if ok {
		copy(g.vec(s), v)
	} else {
		s = int32(len(ix.ids))
		ix.slot[id] = s
		ix.ids = append(ix.ids, id)
		g.vecs = append(g.vecs, v...)
	}
	return nil
}

// buildGraph links every gathered vector (ix.ids, the graph's vectors
// and ix.slot filled, the graph empty). Levels are drawn in slot order
// from the seed; the slots are inserted by the workers in about slot
// order, each taking the next from a shared counter.
func (ix *Index) buildGraph(ctx context.Context, progress func(done int)) error {
	g := ix.g
	n := len(ix.ids)
	ix.dead = make([]bool, n)
	levels := make([]uint8, n)
	for i := range levels {
		levels[i] = uint8(randomLevel(ix.rng, ix.cfg.M))
	}
	g.grow(levels)
	// Few vectors: the goroutines would mostly wait on each other.
	workers := max(1, min(ix.cfg.workers(), n/1024))
	var next, done atomic.Int64
	var stopped atomic.Bool
	var pmu sync.Mutex
	report := func() {
		pmu.Lock()
		progress(int(done.Load()))
		pmu.Unlock()
	}
	work := func() {
		sr := ix.searcher()
		defer ix.pool.Put(sr)
		for {
			s := next.Add(1) - 1
			if s >= int64(n) || stopped.Load() {
				return
			}
			if s%256 == 0 && ctx.Err() != nil {
				stopped.Store(true)
				return
			}
			g.insert(sr, int32(s))
			if d := done.Add(1); d%4096 == 0 && progress != nil {
				report()
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if err := ctx.Err(); err != nil && stopped.Load() {
		return fmt.Errorf("vector index: build cancelled after %d of %d vectors: %w", done.Load(), n, err)
	}
	if progress != nil {
		report()
	}
	return nil
}
