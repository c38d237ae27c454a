package vectorindex

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// HitBytes is what an index search charges the query per candidate it
// may hold: the hit, the graph search's candidate entry and the vector
// re-read from the snapshot's boxed list.
const HitBytes = 256

// indexSearch answers a search of the VECTOR index def at tx's snapshot:
// through the index when it is ONLINE and keeps the snapshot, exactly
// otherwise (correct, slower: docs/search.md). The filter is applied
// inside the graph search (over-fetch and re-check) and on every node
// scored exactly.
func indexSearch(c *procs.Context, m *index.Manager, fn string, tx *storage.Tx, def *catalog.Index, q []float64, k int, o searchOptions) ([][]vector.Value, error) {
	cfg, err := configOf(def)
	if err != nil {
		return nil, err
	}
	if len(q) != cfg.Dim {
		return nil, errs.Data("%s(): the query vector has dimension %d, index %s holds vectors of %d", fn, len(q), def.Name, cfg.Dim)
	}
	if o.similarity && o.metric != cfg.Metric {
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s(): index %s scores by %s similarity, not %s: leave similarity out", fn, def.Name, cfg.Metric, o.metric)
	}
	if cfg.Metric == Cosine && vector.Norm(q) == 0 {
		return nil, errs.Data("%s(): the query vector has length zero, which has no cosine", fn)
	}
	e, err := m.Lookup(def)
	if err != nil {
		return nil, err
	}
	accept, err := filterFunc(c, tx, o.filter)
	if err != nil {
		return nil, err
	}
	lid, okL := c.Catalog.LookupLabel(def.Label)
	key, okK := c.Catalog.LookupKey(def.Keys[0])
	if !okL || !okK {
		return nil, nil
	}
	exact := func() ([][]vector.Value, error) {
		hits, err := exactSearch(c, fn, tx, lid, key, q, k, cfg.Metric, accept, false)
		return hitRows(hits), err
	}
	ts := tx.BaseTS()
	if st, _ := e.State(); st != index.StateOnline {
		return exact()
	}
	if err := e.Await(c.Ctx, ts); err != nil {
		if err := errs.Stopped(c.Ctx); err != nil {
			return nil, err
		}
		// Failed meanwhile, or built after this snapshot: the index
		// cannot answer it, the exact search can.
		return exact()
	}
	x, ok := e.Index().(*Managed)
	if !ok {
		return nil, errs.Internal("index %s is not a VECTOR index", def.Name)
	}
	own := index.Touched(tx.Ops(), false)
	changed := len(own) + x.ExactCandidates(ts)
	if changed > max(4*k, x.Len()/4) {
		// So many nodes changed since the snapshot (a bulk load, a long
		// transaction's own writes) that scoring them one by one costs
		// more than the exact search's typed scan.
		return exact()
	}
	held := int64(4*max(k, o.ef, cfg.EfSearch)+changed) * HitBytes
	if c.Mem != nil {
		if err := c.Mem.Charge(held); err != nil {
			c.Mem.Release(held)
			return nil, err
		}
		defer c.Mem.Release(held)
	}
	hits, answered, err := x.Search(c.Ctx, tx, Query{Vector: q, K: k, Ef: o.ef, TS: ts, Own: own, Accept: accept})
	if err != nil {
		return nil, err
	}
	if !answered {
		return exact()
	}
	return hitRows(hits), nil
}
