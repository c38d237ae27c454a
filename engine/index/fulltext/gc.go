package fulltext

import (
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/quiverdb/quiver/engine/errs"
)

// Superseded versions are documents whose text a later commit replaced
// (package comment). Only a reader at a snapshot before that commit can
// match them, so they are deleted once they are older than
// RetainVersions: longer than a transaction lives by default (5 min) and
// than a query normally runs. A search at a snapshot older than a pruned
// version's end (horizon) fails with 08006 rather than miss it: exact
// or an error, never silently fewer hits.

// RetainVersions is how long a superseded version stays searchable
// after the commit that replaced it.
var RetainVersions = 10 * time.Minute

// oldVersion is one superseded document, in commit order.
type oldVersion struct {
	doc  string
	to   uint64
	at   time.Time // when the commit that superseded it was sunk
	cost int64     // what it is charged (docCost)
}

// prune deletes, in b, the superseded versions older than RetainVersions
// at now, and advances the horizon past them.
func (x *Index) prune(b *bleve.Batch, now time.Time) {
	n := 0
	for n < len(x.superseded) && now.Sub(x.superseded[n].at) > RetainVersions {
		b.Delete(x.superseded[n].doc)
		x.mem.Release(x.superseded[n].cost)
		if to := x.superseded[n].to; to > x.horizon.Load() {
			x.horizon.Store(to)
		}
		n++
	}
	if n > 0 {
		clear(x.superseded[:n])
		x.superseded = x.superseded[n:]
	}
}

// checkHorizon fails a search at a snapshot that could need a pruned
// version.
func (x *Index) checkHorizon(ts uint64) error {
	if h := x.horizon.Load(); ts < h {
		return errs.New(errs.CodeUnavailable, errs.CatUnavailable,
			"index %s no longer holds the text of this transaction's snapshot (older than %s): retry in a new transaction", x.def.Name, RetainVersions)
	}
	return nil
}
