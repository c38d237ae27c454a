package fulltext

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/storage"
)

// Hit is one search result: an element and its BM25 score.
type Hit struct {
	ID    uint64
	Score float64
}

// HitBytes is what a search charges the query per hit it may hold
// (skip + limit of them, from each of the committed and overlay
// searches): the hit, bleve's document match and its id string.
const HitBytes = 256

// Txn is a transaction as a search reads it: its own writes (Ops) over
// the committed version at BaseTS, read through source.
type Txn interface {
	source
	BaseTS() uint64
	Ops() []storage.Op
}

// Search answers text at snapshot ts (the caller waited until the index
// applied ts: index.Entry.Await), skipping skip hits and returning at
// most limit, by score, highest first (ties by id). With tx, the
// transaction's own writes overlay the committed documents; the overlay
// index is charged to mem (the query's; nil charges nothing) while it
// lives.
func (x *Index) Search(ctx context.Context, text string, ts uint64, tx Txn, skip, limit int, mem *memory.Tracker) ([]Hit, error) {
	q, err := parseQuery(text, x.def.Keys)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil, errs.New(errs.CodeNoObject, errs.CatNoObject, "index %s was dropped", x.def.Name)
	}
	if err := x.checkHorizon(ts); err != nil {
		return nil, err
	}
	var own []uint64
	if tx != nil {
		own = x.touched(tx.Ops())
	}
	n := skip + limit
	committed, err := x.searchCommitted(ctx, q, ts, own, n)
	if err != nil {
		return nil, err
	}
	if len(own) > 0 {
		mine, err := x.searchOverlay(ctx, q, tx, own, n, mem)
		if err != nil {
			return nil, err
		}
		committed = append(committed, mine...)
		sort.Slice(committed, func(i, j int) bool {
			a, b := committed[i], committed[j]
			if a.Score != b.Score {
				return a.Score > b.Score
			}
			return a.ID < b.ID
		})
	}
	if skip >= len(committed) {
		return nil, nil
	}
	committed = committed[skip:]
	if len(committed) > limit {
		committed = committed[:limit]
	}
	return committed, nil
}

// searchCommitted searches the documents live at ts, but those of the
// elements in exclude.
func (x *Index) searchCommitted(ctx context.Context, q query.Query, ts uint64, exclude []uint64, n int) ([]Hit, error) {
	at := float64(ts)
	yes := true
	no := false
	from := bleve.NewNumericRangeInclusiveQuery(nil, &at, nil, &yes)
	from.SetField(fieldFrom)
	to := bleve.NewNumericRangeInclusiveQuery(&at, nil, &no, nil)
	to.SetField(fieldTo)
	b := bleve.NewBooleanQuery()
	b.AddMust(q, from, to)
	if len(exclude) > 0 {
		var not []query.Query
		for _, id := range exclude {
			t := bleve.NewTermQuery(strconv.FormatUint(id, 10))
			t.SetField(fieldEID)
			not = append(not, t)
		}
		b.AddMustNot(not...)
	}
	return run(ctx, x.bi, b, n)
}

// searchOverlay indexes the transaction's own version of the elements it
// wrote in a throwaway in-memory index and searches that, charging the
// index's documents (docCost) to mem while it lives.
func (x *Index) searchOverlay(ctx context.Context, q query.Query, tx Txn, own []uint64, n int, mem *memory.Tracker) ([]Hit, error) {
	m, err := indexMapping(x.def)
	if err != nil {
		return nil, err
	}
	bi, err := newBleve(m)
	if err != nil {
		return nil, err
	}
	defer bi.Close()
	var held int64
	if mem != nil {
		defer func() { mem.Release(held) }()
	}
	b := bi.NewBatch()
	for _, id := range own {
		if doc := x.doc(tx, id); doc != nil {
			if mem != nil {
				cost := docCost(doc)
				held += cost
				if err := mem.Charge(cost); err != nil {
					return nil, err
				}
			}
			doc[fieldFrom], doc[fieldTo] = 0.0, openTo
			if err := b.Index(docID(id, 0), doc); err != nil {
				return nil, err
			}
		}
	}
	if err := bi.Batch(b); err != nil {
		return nil, err
	}
	return run(ctx, bi, q, n)
}

func run(ctx context.Context, bi bleve.Index, q query.Query, n int) ([]Hit, error) {
	if n <= 0 {
		return nil, nil
	}
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := bi.SearchInContext(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.Stopped(ctx)
		}
		return nil, errs.DataCode(errs.CodeInvalidParam, "fulltext search failed: %v", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		id, ok := elementOf(h.ID)
		if !ok {
			return nil, fmt.Errorf("BUG: fulltext: document id %q", h.ID)
		}
		hits = append(hits, Hit{ID: id, Score: h.Score})
	}
	return hits, nil
}
