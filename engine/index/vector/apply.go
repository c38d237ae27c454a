package vectorindex

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// RetainChanges is how long the ids a commit changed stay in a VECTOR
// index's change log. A search at snapshot ts scores exactly the ids
// changed after ts (search_tx.go); a snapshot older than the log's
// horizon cannot know them, and is answered by the exact search instead.
var RetainChanges = 10 * time.Minute

// nodeReader is what an indexed vector is read from: a storage snapshot
// or a transaction (its own writes included).
type nodeReader interface {
	HasLabel(id uint64, l catalog.LabelID) bool
	NodeProp(id uint64, k catalog.KeyID) vector.Value
}

// change is one applied commit's touched nodes.
type change struct {
	ts  uint64
	ids []uint64
	at  time.Time
}

// Managed is one VECTOR index kept by the secondary-index manager: the
// HNSW graph of the nodes' vectors as of the last applied commit, and the
// log of the nodes each recent commit touched.
type Managed struct {
	def *catalog.Index
	cat *catalog.Catalog
	cfg Config
	hi  *Index
	// mu orders searches (shared) against Apply and Close (alone): a
	// search sees the graph and the change log of one applied commit.
	mu      sync.RWMutex
	mem     *index.Memory // nil: no budget (budget.go)
	log     []change
	horizon uint64 // the newest ts pruned from the log
	closed  bool
}

func newManaged(def *catalog.Index, cat *catalog.Catalog, cfg Config) (*Managed, error) {
	hi, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &Managed{def: def, cat: cat, cfg: cfg, hi: hi}, nil
}

// Def is the index's definition.
func (x *Managed) Def() *catalog.Index { return x.def }

// Config is the index's HNSW configuration.
func (x *Managed) Config() Config { return x.cfg }

// Len is the number of indexed vectors.
func (x *Managed) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.hi == nil {
		return 0
	}
	return x.hi.Len()
}

// populateCheck is how many vectors Populate inserts between checks of
// its context.
const populateCheck = 256

// Populate gathers the vectors snap's nodes of the label hold and builds
// the graph from them on all cores (BuildContext); progress counts the
// build's inserts, scaled to the nodes read.
func (x *Managed) Populate(ctx context.Context, snap *storage.Snapshot, prog *index.Progress) error {
	l, okL := x.cat.LookupLabel(x.def.Label)
	k, okK := x.cat.LookupKey(x.def.Keys[0])
	if !okL || !okK {
		return nil
	}
	view := snap.NodeVectorView(k, x.cfg.Dim)
	if view == nil {
		return nil
	}
	labelled := snap.LabelNodes(l)
	total := int64(len(view.IDs))
	prog.Total.Store(total)
	d := x.cfg.Dim
	flat := &Flat[float32]{D: d}
	for i, id := range view.IDs {
		if i%populateCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			// Charged ahead of the next vectors: a build the budget
			// cannot hold stops before it allocates.
			if err := x.settle(len(flat.IDs) + populateCheck); err != nil {
				return err
			}
		}
		if !labelled.Contains(uint32(id)) {
			continue
		}
		if v, ok := x.toIndexed(view.Vals[i*d : (i+1)*d]); ok {
			flat.IDs = append(flat.IDs, id)
			flat.Vecs = append(flat.Vecs, v...)
		}
	}
	// The gathered copy lives until the graph holds its own: charged
	// beside the graph's estimate for the build's length.
	gathered := int64(cap(flat.Vecs))*4 + int64(cap(flat.IDs))*8
	if err := x.mem.Charge(gathered); err != nil {
		return err
	}
	defer x.mem.Release(gathered)
	n := int64(max(1, len(flat.IDs)))
	hi, err := BuildContext(ctx, flat, x.cfg, func(done int) { prog.Done.Store(int64(done) * total / n) })
	if err != nil {
		return err
	}
	prog.Done.Store(total)
	x.mu.Lock()
	if !x.closed {
		x.hi = hi
	}
	x.mu.Unlock()
	return x.settle(hi.Len())
}

// Apply brings the graph to the last of recs: every node a commit
// touched is re-read at the commit's version and put (its vector
// changed), deleted (it lost the label, the vector or its life) or left.
// The ids go to the change log first, under the same lock, so a search
// never sees the graph of a commit without its log entry.
func (x *Managed) Apply(recs []*storage.CommitRecord) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil
	}
	for _, rec := range recs {
		ids := index.Touched(rec.Ops, false)
		if len(ids) == 0 {
			continue
		}
		x.log = append(x.log, change{ts: rec.TS, ids: ids, at: rec.At})
		for _, id := range ids {
			v, ok := x.vectorOf(rec.Version, id)
			if !ok {
				x.hi.Delete(id)
				continue
			}
			v32, ok := x.toIndexed(v)
			if !ok {
				x.hi.Delete(id)
				continue
			}
			if cur, has := x.hi.Vector(id); has && slices.Equal(cur, v32) {
				continue // another property changed
			}
			if err := x.hi.Put(id, v32); err != nil {
				return err
			}
		}
	}
	x.prune(recs[len(recs)-1].At)
	return x.settle(x.hi.Len())
}

// prune drops the log entries older than RetainChanges at now.
func (x *Managed) prune(now time.Time) {
	n := 0
	for n < len(x.log) && now.Sub(x.log[n].at) > RetainChanges {
		x.horizon = max(x.horizon, x.log[n].ts)
		n++
	}
	if n > 0 {
		clear(x.log[:n])
		x.log = x.log[n:]
	}
}

// Close releases the graph once running searches end.
func (x *Managed) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	x.log = nil
	x.hi = nil
	return nil
}

// vectorOf is node id's vector in r: the property's value when the node
// carries the label and the value is a LIST of the index's dimension of
// finite numbers. Anything else is not indexed (docs/search.md).
func (x *Managed) vectorOf(r nodeReader, id uint64) ([]float64, bool) {
	l, okL := x.cat.LookupLabel(x.def.Label)
	k, okK := x.cat.LookupKey(x.def.Keys[0])
	if !okL || !okK || !r.HasLabel(id, l) {
		return nil, false
	}
	list, ok := r.NodeProp(id, k).([]vector.Value)
	if !ok || len(list) != x.cfg.Dim {
		return nil, false
	}
	out := make([]float64, len(list))
	for i, e := range list {
		switch n := e.(type) {
		case float64:
			out[i] = n
		case int64:
			out[i] = float64(n)
		default:
			return nil, false
		}
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil, false
		}
	}
	return out, true
}

// toIndexed converts v to the graph's FLOAT32; ok is false for a vector
// the graph cannot place: a non-finite element (or one beyond FLOAT32's
// range), or a zero vector under cosine (which has no angle).
func (x *Managed) toIndexed(v []float64) ([]float32, bool) {
	out := make([]float32, len(v))
	zero := true
	for i, f := range v {
		out[i] = float32(f)
		if math.IsNaN(float64(out[i])) || math.IsInf(float64(out[i]), 0) {
			return nil, false
		}
		zero = zero && out[i] == 0
	}
	if zero && x.cfg.Metric == Cosine {
		return nil, false
	}
	return out, true
}
