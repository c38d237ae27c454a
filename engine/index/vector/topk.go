package vectorindex

import (
	"container/heap"
	"sort"
)

// Hit is one search result: a node id and its score (higher is closer).
type Hit struct {
	ID    uint64
	Score float64
}

// better orders hits best first: higher score, then lower id, so that
// results are deterministic whatever the morsel order.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// topK keeps the k best hits seen: a heap whose root is the worst kept,
// so a candidate costs one comparison unless it enters.
type topK struct {
	k    int
	hits []Hit
}

// newTopK's heap grows as hits come: k is the user's, and may be far
// larger than the candidates.
func newTopK(k int) *topK { return &topK{k: k, hits: make([]Hit, 0, min(k, 1024))} }

func (t *topK) Len() int           { return len(t.hits) }
func (t *topK) Less(i, j int) bool { return better(t.hits[j], t.hits[i]) }
func (t *topK) Swap(i, j int)      { t.hits[i], t.hits[j] = t.hits[j], t.hits[i] }
func (t *topK) Push(x any)         { t.hits = append(t.hits, x.(Hit)) }
func (t *topK) Pop() any {
	h := t.hits[len(t.hits)-1]
	t.hits = t.hits[:len(t.hits)-1]
	return h
}

// offer considers one hit.
func (t *topK) offer(h Hit) {
	if len(t.hits) < t.k {
		heap.Push(t, h)
		return
	}
	if better(h, t.hits[0]) {
		t.hits[0] = h
		heap.Fix(t, 0)
	}
}

// merge offers every hit of o.
func (t *topK) merge(o *topK) {
	for _, h := range o.hits {
		t.offer(h)
	}
}

// sorted returns the kept hits best first.
func (t *topK) sorted() []Hit {
	out := append([]Hit(nil), t.hits...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}
