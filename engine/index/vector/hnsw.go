package vectorindex

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"sync"

	"github.com/coder/hnsw"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Config is an HNSW index's shape, as CREATE VECTOR INDEX's OPTIONS give
// it.
type Config struct {
	Dim    int
	Metric Metric
	// M is the most neighbours a node keeps per layer (default 16).
	M int
	// EfConstruction is the candidate list of an insert (default 128).
	EfConstruction int
	// EfSearch is the default candidate list of a search (default 64).
	EfSearch int
	// Seed fixes the level generator, so that one insert order builds
	// one graph (0: seed 1).
	Seed int64
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
	if c.M < 2 || c.EfConstruction < 1 || c.EfSearch < 1 {
		return c, errs.DataCode(errs.CodeInvalidParam, "vector index: m must be at least 2, ef_construction and ef at least 1 (m %d, ef_construction %d, ef %d)", c.M, c.EfConstruction, c.EfSearch)
	}
	return c, nil
}

// The library compares by distance (lower is closer) on FLOAT32 and must
// know a distance function by name to save and load a graph. Its own
// cosine and euclidean distances order candidates as our scores do; dot
// is registered here as the negated inner product.
const dotDistanceName = "quiver-dot"

func dotDistance(a, b []float32) float32 { return -float32(vector.Dot(a, b)) }

func init() { hnsw.RegisterDistanceFunc(dotDistanceName, dotDistance) }

func (m Metric) distance() hnsw.DistanceFunc {
	switch m {
	case Cosine:
		return hnsw.CosineDistance
	case Euclidean:
		return hnsw.EuclideanDistance
	}
	return dotDistance
}

// Index is an HNSW index over FLOAT32 vectors keyed by node id, on
// github.com/coder/hnsw. Vectors are FLOAT32 inside the index whatever
// the stored property holds: half the memory of FLOAT64 and what the
// library's SIMD distance (vek32) takes; scores are recomputed from the
// indexed vector in float64 accumulators.
//
// Deletes are tombstones. The library's own Delete (v0.6.1) can leave a
// layer empty or an upper-layer node missing below, and its next search
// then dereferences nil (TestHNSWDeleteUpdate found it), and its Add of
// an existing key fails its own size check. So the graph is keyed by
// slot (an insert counter), never deletes: a delete marks the slot dead,
// an update marks the old slot dead and inserts a new one, searches skip
// dead slots (over-fetching as a filter does), and once the dead reach a
// quarter of the slots the graph is rebuilt from the live vectors.
//
// Searches run concurrently with each other; inserts and deletes take
// the index alone. The library reads its candidate-list size from the
// graph, so an insert or a search with another ef than the default
// takes the index alone too.
type Index struct {
	cfg Config
	// mu guards everything below: readers search at the default ef;
	// writers insert, delete, and search at another ef.
	mu sync.RWMutex
	g  *hnsw.Graph[uint64]
	// ids is each slot's node id; dead marks deleted slots.
	ids  []uint64
	dead []bool
	// slot is each live node id's slot.
	slot  map[uint64]uint64
	ndead int
}

// New returns an empty index.
func New(cfg Config) (*Index, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ix := &Index{cfg: cfg, slot: map[uint64]uint64{}}
	ix.g = ix.newGraph()
	return ix, nil
}

func (ix *Index) newGraph() *hnsw.Graph[uint64] {
	g := hnsw.NewGraph[uint64]()
	g.M = ix.cfg.M
	g.Distance = ix.cfg.Metric.distance()
	g.EfSearch = ix.cfg.EfSearch
	g.Rng = rand.New(rand.NewSource(ix.cfg.Seed))
	return g
}

// Config is the index's configuration with defaults filled in.
func (ix *Index) Config() Config { return ix.cfg }

// Len is the number of indexed (live) vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.slot)
}

// Put inserts or replaces id's vector. The index keeps v: the caller
// does not change it afterwards.
func (ix *Index) Put(id uint64, v []float32) error {
	if len(v) != ix.cfg.Dim {
		return errs.Data("vector index: vector of node %d has dimension %d, the index %d", id, len(v), ix.cfg.Dim)
	}
	if ix.cfg.Metric == Cosine && vector.Norm(v) == 0 {
		return errs.Data("vector index: vector of node %d has length zero, which has no cosine", id)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.deleteLocked(id)
	ix.addLocked(id, v)
	ix.compactLocked()
	return nil
}

// addLocked inserts v for id in a new slot.
func (ix *Index) addLocked(id uint64, v []float32) {
	s := uint64(len(ix.ids))
	ix.ids = append(ix.ids, id)
	ix.dead = append(ix.dead, false)
	ix.slot[id] = s
	ix.g.EfSearch = ix.cfg.EfConstruction
	ix.g.Add(hnsw.MakeNode(s, v))
	ix.g.EfSearch = ix.cfg.EfSearch
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
// of the slots are dead (a rebuild costs as much as the inserts since
// the last one, so updates stay amortised O(insert)).
func (ix *Index) compactLocked() {
	if ix.ndead < 64 || ix.ndead*4 < len(ix.ids) {
		return
	}
	old, ids, dead := ix.g, ix.ids, ix.dead
	ix.g, ix.ids, ix.dead, ix.ndead = ix.newGraph(), nil, nil, 0
	ix.slot = make(map[uint64]uint64, len(ids))
	for s, id := range ids {
		if dead[s] {
			continue
		}
		v, _ := old.Lookup(uint64(s))
		ix.addLocked(id, v)
	}
}

// Vector is id's indexed vector.
func (ix *Index) Vector(id uint64) ([]float32, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s, ok := ix.slot[id]
	if !ok {
		return nil, false
	}
	return ix.g.Lookup(s)
}

// Build inserts every vector of col (a morsel at a time, in order).
func Build(col Column[float32], cfg Config) (*Index, error) {
	if col.Dim() != cfg.Dim {
		return nil, errs.Data("vector index: the column has dimension %d, the index %d", col.Dim(), cfg.Dim)
	}
	ix, err := New(cfg)
	if err != nil {
		return nil, err
	}
	var b Batch[float32]
	for m := range col.Morsels() {
		b.reset()
		if err := col.Read(m, &b); err != nil {
			return nil, err
		}
		for i, id := range b.IDs {
			// Copied: the index keeps its vectors, the batch is reused.
			v := append([]float32(nil), b.Vecs[i*cfg.Dim:(i+1)*cfg.Dim]...)
			if err := ix.Put(id, v); err != nil {
				return nil, err
			}
		}
	}
	return ix, nil
}

// header opens a saved index; the slots and the library's own encoding
// of the graph (keyed by slot) follow it:
//
//	magic "QVHNSW\x00\x01" | version | dim | metric | m | ef_construction | ef | seed | slots   (int64 LE each)
//	node id of each slot (uint64 LE × slots) | dead flag of each slot (byte × slots)
//	graph (hnsw.Graph.Export)
type header struct {
	Magic, Version, Dim, Metric, M, EfConstruction, EfSearch, Seed, Slots int64
}

// maxSlots bounds what Load allocates from a header: 2^34 slots of 9
// bytes, far beyond a machine's memory, but not beyond an int64's.
const maxSlots = 1 << 34

const headerMagic = 0x0100_57534e48_5651 // "QVHNSW\x00\x01" read as little-endian

// Save writes the index (configuration and graph) to w.
func (ix *Index) Save(w io.Writer) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	h := header{Magic: headerMagic, Version: 1, Dim: int64(ix.cfg.Dim), Metric: int64(ix.cfg.Metric),
		M: int64(ix.cfg.M), EfConstruction: int64(ix.cfg.EfConstruction), EfSearch: int64(ix.cfg.EfSearch), Seed: ix.cfg.Seed, Slots: int64(len(ix.ids))}
	for _, x := range []any{&h, ix.ids, ix.dead} {
		if err := binary.Write(w, binary.LittleEndian, x); err != nil {
			return fmt.Errorf("vector index: cannot write the header: %w", err)
		}
	}
	if err := ix.g.Export(w); err != nil {
		return fmt.Errorf("vector index: cannot write the graph: %w", err)
	}
	return nil
}

// Load reads an index Save wrote.
func Load(r io.Reader) (*Index, error) {
	var h header
	if err := binary.Read(r, binary.LittleEndian, &h); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the header: %w", err)
	}
	if h.Magic != headerMagic || h.Version != 1 || h.Metric < 0 || h.Metric >= int64(len(metricNames)) || h.Slots < 0 || h.Slots > maxSlots {
		return nil, fmt.Errorf("vector index: not an index file, or an unknown version %d, metric %d or %d slots", h.Version, h.Metric, h.Slots)
	}
	cfg := Config{Dim: int(h.Dim), Metric: Metric(h.Metric), M: int(h.M), EfConstruction: int(h.EfConstruction), EfSearch: int(h.EfSearch), Seed: h.Seed}
	ix, err := New(cfg)
	if err != nil {
		return nil, err
	}
	ix.ids, ix.dead = make([]uint64, h.Slots), make([]bool, h.Slots)
	for _, x := range []any{ix.ids, ix.dead} {
		if err := binary.Read(r, binary.LittleEndian, x); err != nil {
			return nil, fmt.Errorf("vector index: cannot read the slots: %w", err)
		}
	}
	for s, id := range ix.ids {
		if ix.dead[s] {
			ix.ndead++
		} else {
			ix.slot[id] = uint64(s)
		}
	}
	if err := ix.g.Import(r); err != nil {
		return nil, fmt.Errorf("vector index: cannot read the graph: %w", err)
	}
	if ix.g.Len() != len(ix.ids) {
		return nil, fmt.Errorf("vector index: the graph holds %d vectors for %d slots", ix.g.Len(), len(ix.ids))
	}
	// Import takes the saved parameters; the configuration wins.
	ix.g.M, ix.g.EfSearch, ix.g.Distance = cfg.M, cfg.EfSearch, cfg.Metric.distance()
	ix.g.Rng = rand.New(rand.NewSource(cfg.Seed))
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
	ix, err := New(cfg)
	if err != nil {
		return nil, err
	}
	for i, id := range v.IDs {
		x := make([]float32, v.Dim)
		for j, f := range v.Vals[i*v.Dim : (i+1)*v.Dim] {
			x[j] = float32(f)
		}
		if err := ix.Put(id, x); err != nil {
			return nil, err
		}
	}
	return ix, nil
}
