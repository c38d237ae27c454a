package vectorindex

import (
	"context"
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Query is one search of a VECTOR index at a reader's snapshot.
type Query struct {
	// Vector is the query vector, of the index's dimension.
	Vector []float64
	// K is the number of hits wanted (positive); Ef the search's
	// candidate list (0: the index's default).
	K, Ef int
	// TS is the committed snapshot the reader reads (a transaction's
	// BaseTS): the caller waited until the index applied it
	// (index.Entry.Await).
	TS uint64
	// Own lists the nodes the reader's transaction wrote itself.
	Own []uint64
	// Accept, when set, keeps only the nodes it accepts (the filter):
	// checked inside the graph search (over-fetch and re-check) and on
	// every exactly scored node.
	Accept func(id uint64) bool
}

// Search answers q at r's snapshot: the k nodes of r whose vectors are
// closest to q.Vector, best first, every score computed from the vector
// r holds (so equal to vector.similarity.* on it). ok is false when the
// index cannot answer at that snapshot (older than its change log) or
// the graph search found fewer than k nodes while the graph holds more:
// the caller then searches exactly.
//
// The graph holds the vectors of the index's last applied commit, which
// may be after q.TS. The nodes touched after q.TS (the change log) and by
// the transaction itself (q.Own) are left out of the graph search and
// scored exactly from r; every other node has the same vector, label and
// life at q.TS as in the graph, so the graph's hits among them, re-read
// from r, are right. Nothing newer leaks in and nothing older is missed,
// within HNSW's recall.
func (x *Managed) Search(ctx context.Context, r nodeReader, q Query) (hits []Hit, ok bool, err error) {
	if len(q.Vector) != x.cfg.Dim {
		return nil, false, errs.Data("vector search: query vector has dimension %d, index %s %d", len(q.Vector), x.def.Name, x.cfg.Dim)
	}
	qn := vector.Norm(q.Vector)
	if x.cfg.Metric == Cosine && qn == 0 {
		return nil, false, errs.Data("vector search: the query vector has length zero, which has no cosine")
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil, false, errs.New(errs.CodeNoObject, errs.CatNoObject, "index %s was dropped", x.def.Name)
	}
	if q.TS < x.horizon {
		return nil, false, nil
	}
	exact := map[uint64]bool{}
	for _, c := range x.since(q.TS) {
		for _, id := range c.ids {
			exact[id] = true
		}
	}
	for _, id := range q.Own {
		exact[id] = true
	}
	top := newTopK(q.K)
	offer := func(id uint64) {
		if v, ok := x.vectorOf(r, id); ok {
			if s, ok := score(x.cfg.Metric, q.Vector, v, qn); ok {
				top.offer(Hit{ID: id, Score: s})
			}
		}
	}
	q32 := make([]float32, len(q.Vector))
	for i, f := range q.Vector {
		q32[i] = float32(f)
	}
	found, err := x.hi.Search(q32, q.K, q.Ef, func(id uint64) bool {
		return !exact[id] && (q.Accept == nil || q.Accept(id))
	})
	if err != nil {
		return nil, false, err
	}
	if len(found) < q.K && x.hi.Len() > len(found)+len(exact) {
		// The graph search ended short of k while the graph holds more
		// nodes than it found and left out: a filter few nodes pass, or
		// a graph region the search could not reach. The exact search
		// answers both right.
		return nil, false, nil
	}
	for _, h := range found {
		offer(h.ID)
	}
	n := 0
	for id := range exact {
		if n++; n%1024 == 0 {
			if err := errs.Stopped(ctx); err != nil {
				return nil, false, err
			}
		}
		if q.Accept == nil || q.Accept(id) {
			offer(id)
		}
	}
	return top.sorted(), true, nil
}

// ExactCandidates is how many nodes a search at ts would score exactly
// besides its own writes (for the memory it charges).
func (x *Managed) ExactCandidates(ts uint64) int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := 0
	for _, c := range x.since(ts) {
		n += len(c.ids)
	}
	return n
}

// since is the change log's entries after ts (the log is in commit
// order): a search at the latest snapshot finds none at once.
func (x *Managed) since(ts uint64) []change {
	i := sort.Search(len(x.log), func(i int) bool { return x.log[i].ts > ts })
	return x.log[i:]
}
