package vectorindex

import (
	"context"
	"math/rand"
	"runtime"
	"sync"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Config is an HNSW index's shape, as CREATE VECTOR INDEX's OPTIONS give
// it.
type Config struct {
	Dim    int
	Metric Metric
	// M is the most neighbours a node keeps per upper layer, 2·M on
	// layer 0 (default 16).
	M int
	// EfConstruction is the candidate list of an insert (default 128).
	EfConstruction int
	// EfSearch is the default candidate list of a search (default 64).
	EfSearch int
	// Seed fixes the level generator (0: seed 1). A serial build of one
	// insert order builds one graph; a parallel one varies with the
	// goroutines' interleaving, not in recall.
	Seed int64
	// Workers is the goroutines a build (Build, a compaction) inserts
	// with (0: GOMAXPROCS). Not saved: Load returns 0.
	Workers int
}

func (c Config) withDefaults() (Config, error) {
	if c.Dim <= 0 {
		return c, errs.DataCode(errs.CodeInvalidParam, "vector index: dimensions must be positive, not %d", c.Dim)
	}
	if c.M == 0 {
		c.M = 16
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = 128
	}
	if c.EfSearch == 0 {
		c.EfSearch = 64
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.M < 2 || c.M > 1024 || c.EfConstruction < 1 || c.EfSearch < 1 || c.Workers < 0 {
		return c, errs.DataCode(errs.CodeInvalidParam, "vector index: m must be 2 to 1024, ef_construction and ef at least 1 (m %d, ef_construction %d, ef %d)", c.M, c.EfConstruction, c.EfSearch)
	}
	return c, nil
}

func (c Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Index is an HNSW index over FLOAT32 vectors keyed by node id (the
// graph in hnsw_graph.go). Vectors are FLOAT32 inside the index whatever
// the stored property holds, kept as given (a cosine index keeps each
// vector's inverse length beside it, so that its distance is an inner
// product and a multiply); scores are recomputed from the indexed vector
// in float64 accumulators.
//
// Deletes are tombstones: a delete marks the node's slot dead, an update
// marks the old slot dead and inserts a new one. Searches walk through
// dead slots (they still connect the graph) but never return them; once
// the dead reach a quarter of the slots the graph is rebuilt from the
// live vectors (a rebuild costs as much as the inserts since the last
// one, so updates stay amortised O(insert)).
//
// Locking: an RWMutex. Searches share it, so any number run at once;
// Put and Delete take it alone, so a search never sees a half-linked
// node. Only a build inserts in parallel, before the index is handed
// out, with a mutex per stripe of slots on the neighbour lists (graph).
type Index struct {
	cfg Config
	mu  sync.RWMutex
	g   *graph
	// ids is each slot's node id; dead marks deleted slots.
	ids  []uint64
	dead []bool
	// slot is each live node id's slot.
	slot  map[uint64]int32
	ndead int
	rng   *rand.Rand
	pool  sync.Pool // *searcher
}

// New returns an empty index.
func New(cfg Config) (*Index, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return newIndex(cfg), nil
}

func newIndex(cfg Config) *Index {
	return &Index{cfg: cfg, g: newGraph(cfg), slot: map[uint64]int32{}, rng: rand.New(rand.NewSource(cfg.Seed))}
}

func (ix *Index) searcher() *searcher {
	if sr, ok := ix.pool.Get().(*searcher); ok {
		return sr
	}
	return &searcher{}
}

// Config is the index's configuration with defaults filled in.
func (ix *Index) Config() Config { return ix.cfg }

// Len is the number of indexed (live) vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.slot)
}

// check validates a vector for the index.
func (ix *Index) check(id uint64, v []float32) error {
	if len(v) != ix.cfg.Dim {
		return errs.Data("vector index: vector of node %d has dimension %d, the index %d", id, len(v), ix.cfg.Dim)
	}
	if ix.cfg.Metric == Cosine && vector.Norm(v) == 0 {
		return errs.Data("vector index: vector of node %d has length zero, which has no cosine", id)
	}
	return nil
}

// Put inserts or replaces id's vector. The index copies v.
func (ix *Index) Put(id uint64, v []float32) error {
	if err := ix.check(id, v); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.deleteLocked(id)
	g := ix.g
	s := int32(g.slots())
	g.vecs = append(g.vecs, v...)
	g.grow([]uint8{uint8(randomLevel(ix.rng, ix.cfg.M))})
	ix.ids = append(ix.ids, id)
	ix.dead = append(ix.dead, false)
	ix.slot[id] = s
	sr := ix.searcher()
	g.insert(sr, s)
	ix.pool.Put(sr)
	ix.compactLocked()
	return nil
}

// Delete removes id's vector; false when it had none.
func (ix *Index) Delete(id uint64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ok := ix.deleteLocked(id)
	ix.compactLocked()
	return ok
}

func (ix *Index) deleteLocked(id uint64) bool {
	s, ok := ix.slot[id]
	if !ok {
		return false
	}
	delete(ix.slot, id)
	ix.dead[s] = true
	ix.ndead++
	return true
}

// compactLocked rebuilds the graph from the live vectors once a quarter
// of the slots are dead.
func (ix *Index) compactLocked() {
	if ix.ndead < 64 || ix.ndead*4 < len(ix.ids) {
		return
	}
	n := len(ix.slot)
	old, oldIDs, oldDead := ix.g, ix.ids, ix.dead
	ix.g, ix.ids, ix.slot, ix.ndead = newGraph(ix.cfg), make([]uint64, 0, n), make(map[uint64]int32, n), 0
	ix.g.vecs = make([]float32, 0, n*ix.cfg.Dim)
	for s, dead := range oldDead {
		if !dead {
			ix.slot[oldIDs[s]] = int32(len(ix.ids))
			ix.ids = append(ix.ids, oldIDs[s])
			ix.g.vecs = append(ix.g.vecs, old.vec(int32(s))...)
		}
	}
	// Not cancellable: a rebuild cannot fail.
	_ = ix.buildGraph(context.Background(), nil)
}

// Vector is id's indexed vector (a copy).
func (ix *Index) Vector(id uint64) ([]float32, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s, ok := ix.slot[id]
	if !ok {
		return nil, false
	}
	return append([]float32(nil), ix.g.vec(s)...), true
}
