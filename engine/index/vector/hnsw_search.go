package vectorindex

import (
	"slices"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Search returns the k indexed vectors closest to q, best first, as the
// HNSW graph finds them with a candidate list of ef (0: the index's
// default; at least k).
//
// Filtered search (accept non-nil, e.g. a label or property predicate)
// filters inside the walk of layer 0: rejected nodes (and tombstones)
// lead on to their neighbours but do not enter the ef kept, so the walk
// goes on until ef accepted nodes are found or the graph is exhausted.
// A filter that accepts a fraction p of the vectors costs about 1/p
// times an unfiltered search; a very selective filter is better served
// by the exact search over the accepted ids. accept is called with the
// index's read lock held.
func (ix *Index) Search(q []float32, k, ef int, accept func(id uint64) bool) ([]Hit, error) {
	if len(q) != ix.cfg.Dim {
		return nil, errs.Data("vector search: query vector has dimension %d, the index %d", len(q), ix.cfg.Dim)
	}
	if k <= 0 {
		return nil, nil
	}
	if ef <= 0 {
		ef = ix.cfg.EfSearch
	}
	ef = max(ef, k)
	qn := vector.Norm(q)
	if ix.cfg.Metric == Cosine && qn == 0 {
		return nil, errs.Data("vector search: the query vector has length zero, which has no cosine")
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	g := ix.g
	if len(ix.slot) == 0 || g.entry < 0 {
		return nil, nil
	}
	sr := ix.searcher()
	defer ix.pool.Put(sr)
	gq := probe{q, float32(1 / qn)}
	keep := func(s int32) bool {
		return !ix.dead[s] && (accept == nil || accept(ix.ids[s]))
	}
	if ix.ndead == 0 && accept == nil {
		keep = nil
	}
	cur := cand{g.dist(gq, g.entry), g.entry}
	for l := g.top; l > 0; l-- {
		cur = g.greedy(sr, gq, cur, l, false)
	}
	g.searchLayer(sr, gq, cur, ef, 0, false, keep)
	// Scores from the caller's query in float64; the graph's FLOAT32
	// distances only chose the candidates.
	hits := sr.hits[:0]
	for _, c := range sr.res {
		if s, ok := score(ix.cfg.Metric, q, g.vec(c.s), qn); ok {
			hits = append(hits, Hit{ID: ix.ids[c.s], Score: s})
		}
	}
	sr.hits = hits
	slices.SortFunc(hits, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return slices.Clone(hits[:min(k, len(hits))]), nil
}
