package exec

import (
	"context"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Context is what operators of one query share: the transaction they read
// and write through, the parameters, and the counters the summary reports.
// A query runs its operators on one goroutine, so the counters are plain.
type Context struct {
	Ctx     context.Context
	Tx      *storage.Tx
	Catalog *catalog.Catalog
	Params  map[string]vector.Value
	Stats   Stats
	// Profile, when set, collects per-operator counters (PROFILE).
	Profile *Profile
	// Mem charges the memory of operators that hold rows
	// (max_memory_per_query); the zero value has no limit.
	Mem MemTracker
	// args holds the operator serving each Argument of the plan, which
	// its Optional parent feeds a batch at a time.
	args map[*plan.Argument]*argumentOp
	// now is the statement's clock (see Now); zero until first read.
	now time.Time
}

// Stats counts the work and side effects of a query.
type Stats struct {
	RowsScanned          int64
	NodesCreated         int64
	RelationshipsCreated int64
	PropertiesSet        int64
	LabelsAdded          int64
	// DBHits counts storage reads: node ids scanned, adjacency lists and
	// their entries read, label checks, properties gathered. Operators
	// add per batch or per list, never per value.
	DBHits int64
	// IndexHits counts node ids read from indexes (seeks and index
	// joins).
	IndexHits int64
}

// checkCancel reports the context's end as a query error: a deadline is a
// timeout, any other cancellation stops the query as well.
func (c *Context) checkCancel() error {
	if err := c.Ctx.Err(); err != nil {
		if err == context.DeadlineExceeded {
			return errs.Timeout("query exceeded its time limit")
		}
		return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, err, "query cancelled")
	}
	return nil
}

// rows returns the physical rows of b's selection: sel itself, or nil with
// n when the batch is dense. Kernels take (sel, n) and loop either way.
func rows(b *vector.Batch) ([]int32, int) { return b.Sel, b.Len }
