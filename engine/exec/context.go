package exec

import (
	"context"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Context is what operators of one query share: the transaction they read
// and write through, the parameters, and the counters the summary reports.
// Operators run on one goroutine, so the counters are plain: a parallel
// pipeline gives each worker its own Context (parallel.go) and adds the
// workers' counters into the query's on the query's goroutine.
type Context struct {
	Ctx      context.Context
	Tx       *storage.Tx
	Catalog  *catalog.Catalog
	Params   map[string]vector.Value
	Counters Counters
	// Profile, when set, collects per-operator counters (PROFILE).
	Profile *Profile
	// Mem charges the memory of operators that hold rows
	// (max_memory_per_query); the zero value has no limit.
	Mem memory.Tracker
	// Rules switches optimizer rules off (plan/rules.go); the executor
	// applies some of them itself.
	Rules plan.Options
	// Parallelism is the number of workers a scan pipeline may run on
	// (parallel.go); 0 or 1 runs every operator on the caller's goroutine.
	// Never above 1 for a plan with writes. A Context with workers must be
	// closed (Close) before its Counters are read.
	Parallelism int
	// par is the parallel state of the query (nil until Build plans it);
	// workers' contexts do not have it.
	par *parState
	// worker is set on a worker's own context: its scans take morsels and
	// nothing below it runs in parallel again.
	worker *workerState
	// args holds the operator serving each Argument of the plan, which
	// its Optional parent feeds a batch at a time.
	args map[*plan.Argument]*argumentOp
	// now is the statement's clock (see Now); zero until first read.
	now time.Time
	// deleted remembers what DELETE removed earlier in the statement
	// (deleted.go).
	deleted deletedSet
	// merging is set while the create side of a MERGE runs: a null
	// property value is then an error, not an absent property.
	merging bool
	// updated holds the pre-existing entities SET/REMOVE changed (id<<1,
	// |1 for a relationship), for RowsAffected.
	updated map[uint64]struct{}
	// eagers are the statement's Eager barriers, in build order.
	eagers []*eagerOp
	// built holds the plan operators whose batches Build charged.
	built map[plan.Operator]struct{}
}

// noteUpdated records that an entity that existed before the statement
// was changed; entities the statement created count as created only.
func (c *Context) noteUpdated(id uint64, isNode bool) {
	nodes, rels := c.Tx.StartBounds()
	key := id << 1
	if isNode && id >= nodes || !isNode && id >= rels {
		return
	}
	if !isNode {
		key |= 1
	}
	if c.updated == nil {
		c.updated = map[uint64]struct{}{}
	}
	if _, ok := c.updated[key]; !ok {
		c.updated[key] = struct{}{}
		c.Counters.EntitiesUpdated++
	}
}

// Writes counts the side effects of a statement, as its summary reports
// them. PropertiesSet counts non-null values written (created or
// overwritten); labels count only actual changes.
type Writes struct {
	NodesCreated         int64
	RelationshipsCreated int64
	PropertiesSet        int64
	LabelsAdded          int64
	NodesDeleted         int64
	RelationshipsDeleted int64
	// PropertiesRemoved counts properties that existed and were removed
	// (REMOVE, SET to null, SET = {map} without the key).
	PropertiesRemoved int64
	LabelsRemoved     int64
}

// Counters counts the work and side effects of a query.
type Counters struct {
	RowsScanned int64
	Writes
	// EntitiesUpdated counts distinct pre-existing entities changed by
	// SET or REMOVE.
	EntitiesUpdated int64
	// DBHits counts storage reads: node ids scanned, adjacency lists and
	// their entries read, label checks, properties gathered. Operators
	// add per batch or per list, never per value.
	DBHits int64
	// IndexHits counts node ids read from indexes (seeks and index
	// joins).
	IndexHits int64
}

// checkCancel reports the context's end as a query error: its cause when
// that is one (the statement's deadline, the server's memory budget),
// else a timeout for a deadline and a cancellation for the rest.
func (c *Context) checkCancel() error {
	err := c.Ctx.Err()
	if err == nil {
		return nil
	}
	if e, ok := errs.As(context.Cause(c.Ctx)); ok {
		return e
	}
	if err == context.DeadlineExceeded {
		return errs.Timeout("query exceeded its time limit")
	}
	return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, err, "query cancelled")
}

// interrupted is checkCancel for loops that run long inside one batch
// (reduce, comprehensions, path searches, sorts): a poll of the context's
// channel, cheap enough to call every few hundred iterations.
func (c *Context) interrupted() error {
	if c == nil || c.Ctx == nil {
		return nil
	}
	select {
	case <-c.Ctx.Done():
		return c.checkCancel()
	default:
		return nil
	}
}

// rows returns the physical rows of b's selection: sel itself, or nil with
// n when the batch is dense. Kernels take (sel, n) and loop either way.
func rows(b *vector.Batch) ([]int32, int) { return b.Sel, b.Len }

// chargeBatch charges the selected rows of b, which the caller keeps, and
// returns the bytes charged (none without a limit: the estimate is then
// not worth its loop over strings).
func (c *Context) chargeBatch(b *vector.Batch) (int64, error) {
	if !c.Mem.Active() {
		return 0, nil
	}
	n := memory.BatchBytes(b)
	return n, c.Mem.Charge(n)
}
