package expr

import (
	"context"
	"fmt"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Env is what the expressions of one statement read and report: the
// transaction they read the graph through, the parameters, the clock, the
// memory accountant and the counters. The executor's Context embeds it, so
// operators and expressions count into one place. Like the operators, an
// Env serves one goroutine: a parallel pipeline gives each worker its own.
type Env struct {
	Ctx     context.Context
	Tx      *storage.Tx
	Catalog *catalog.Catalog
	Params  map[string]vector.Value
	// Counters count the statement's work and side effects.
	Counters Counters
	// Mem charges the values expressions build and the state operators
	// hold (max_memory_per_query); the zero value has no limit.
	Mem memory.Tracker
	// Clock is the statement's time (Now); zero until first read.
	Clock time.Time
	// Deleted remembers what DELETE removed earlier in the statement.
	Deleted DeletedSet
	// Subqueries compiles the sub-plans expressions carry (pattern
	// predicates, EXISTS, pattern comprehensions): only the executor can
	// run a plan.
	Subqueries SubqueryCompiler
	// Fields opens the encrypted fields' values (fle.go); nil when the
	// graph has none.
	Fields FieldCrypto

	// tree is the expression tree Compile is building (scratch.go).
	tree *scratch
	// scratchAccounts is what the trees of each compiled root expression
	// charged, by a hash of its text: an operator rebuilt per batch
	// recompiles its expressions, and each new tree replaces the last.
	scratchAccounts map[uint64]*account
}

// SubqueryCompiler compiles an expression's sub-plan into an Evaluator
// that runs it once per batch.
type SubqueryCompiler interface {
	CompileSubquery(p *plan.PatternSubquery) (Evaluator, error)
}

// Now is the statement's clock: read once, so every current-time function
// of a statement agrees.
func (c *Env) Now() time.Time {
	if c.Clock.IsZero() {
		c.Clock = time.Now()
	}
	return c.Clock
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

// CheckCancel reports the context's end as a query error (Stopped).
func (c *Env) CheckCancel() error { return Stopped(c.Ctx) }

// Stopped reports a statement's context's end as the engine error it
// stands for (errs.Stopped).
func Stopped(ctx context.Context) error { return errs.Stopped(ctx) }

// Interrupted is CheckCancel for loops that run long inside one batch
// (reduce, comprehensions, path searches, sorts): a poll of the context's
// channel, cheap enough to call every few hundred iterations.
func (c *Env) Interrupted() error {
	if c == nil || c.Ctx == nil {
		return nil
	}
	select {
	case <-c.Ctx.Done():
		return c.CheckCancel()
	default:
		return nil
	}
}

// rows returns the physical rows of b's selection: sel itself, or nil with
// n when the batch is dense. Kernels take (sel, n) and loop either way.
func rows(b *vector.Batch) ([]int32, int) { return b.Sel, b.Len }

// bug is the error of a broken invariant: a plan the binder should never
// have produced.
func bug(format string, args ...any) error {
	return errs.Internal("internal error: %s", fmt.Sprintf(format, args...))
}
