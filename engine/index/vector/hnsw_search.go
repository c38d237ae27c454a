package vectorindex

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Search returns the k indexed vectors closest to q, best first, as the
// HNSW graph finds them with a candidate list of ef (0: the index's
// default). The library keeps only k results in its last layer's search
// and ef candidates, so Search asks it for max(k, ef) results and keeps
// the best k: ef is then the breadth of the search as in other HNSW
// implementations.
//
// Filtered search (accept non-nil, e.g. a label or property predicate)
// over-fetches and re-checks: it asks for at least 4·k results, keeps
// the accepted ones, and doubles the request until k are accepted or the
// request covers the whole index. A filter that accepts a fraction p of
// the vectors costs about 1/p times an unfiltered search; a very
// selective filter is better served by the exact search over the
// accepted ids. Tombstoned slots (deletes and updates not yet compacted)
// are skipped the same way.
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
	qn := vector.Norm(q)
	if ix.cfg.Metric == Cosine && qn == 0 {
		return nil, errs.Data("vector search: the query vector has length zero, which has no cosine")
	}
	fetch := max(k, ef)
	if accept != nil {
		fetch = max(fetch, 4*k)
	}
	for {
		top := newTopK(k)
		slots, filtered := ix.searchGraph(q, fetch, ef, func(id uint64, v []float32) {
			if accept != nil && !accept(id) {
				return
			}
			if s, ok := score(ix.cfg.Metric, q, v, qn); ok {
				top.offer(Hit{ID: id, Score: s})
			}
		})
		// The library may return fewer than asked; once the request
		// covers the whole graph, more cannot help.
		if top.Len() >= k || fetch >= slots || !(filtered || accept != nil) {
			return top.sorted(), nil
		}
		fetch *= 2
	}
}

// searchGraph runs the library's search for n results with a candidate
// list of ef, calling fn with the node id and vector of each live one;
// it returns the graph's size and whether dead slots were skipped.
func (ix *Index) searchGraph(q []float32, n, ef int, fn func(id uint64, v []float32)) (slots int, skipped bool) {
	if ef == ix.cfg.EfSearch {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
	} else {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		ix.g.EfSearch = ef
		defer func() { ix.g.EfSearch = ix.cfg.EfSearch }()
	}
	slots = len(ix.ids)
	if len(ix.slot) == 0 {
		return slots, false
	}
	for _, nd := range ix.g.Search(q, min(n, slots)) {
		if ix.dead[nd.Key] {
			skipped = true
			continue
		}
		fn(ix.ids[nd.Key], nd.Value)
	}
	return slots, skipped
}
