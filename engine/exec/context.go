package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// Context is what operators of one query share: the expression
// environment (the transaction they read and write through, the
// parameters, the memory accountant, the counters the summary reports)
// and the executor's own state. Operators run on one goroutine, so the
// counters are plain: a parallel pipeline gives each worker its own
// Context (parallel.go) and adds the workers' counters into the query's
// on the query's goroutine.
type Context struct {
	expr.Env
	// Profile, when set, collects per-operator counters (PROFILE).
	Profile *Profile
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
	// merging is set while the create side of a MERGE runs: a null
	// property value is then an error, not an absent property.
	merging bool
	// updated holds the pre-existing entities SET/REMOVE changed (id<<1,
	// |1 for a relationship), for RowsAffected.
	updated map[uint64]struct{}
	// eagers are the statement's Eager barriers, in build order.
	eagers []*eagerOp
	// farSets holds the far-node sets of the statement's Filters
	// (far_set.go), kept across rebuilds of an OPTIONAL MATCH's plan.
	farSets map[*plan.Filter]*farSet
	// bars are the bars of the statement's top-k Sorts (topk_bar.go),
	// shared with its workers.
	bars *barRegistry
	// built holds the plan operators whose batches Build charged.
	built map[plan.Operator]struct{}
	// streams are the procedure streams started and not yet closed:
	// Close closes them, since a LIMIT, an error or a closed result can
	// end the statement before a stream is drained.
	streams []procs.Stream
	// vecs lends the statement's vectors (pool.go); taken on first use,
	// given back by Close.
	vecs *vector.Pool
	// CommitBatch, set for a statement that is its own transaction,
	// commits the work so far and goes on in a new transaction (CALL { … }
	// IN TRANSACTIONS, call_subquery.go).
	CommitBatch func() error
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

// CompileSubquery compiles a pattern predicate, EXISTS or pattern
// comprehension: its sub-plan runs on this context's operators.
func (c *Context) CompileSubquery(p *plan.PatternSubquery) (expr.Evaluator, error) {
	return &subqueryEval{c: c, p: p, rows: vector.New(vector.Int64, vector.Capacity)}, nil
}

// compile compiles e over the statement's environment; the sub-plans it
// carries run through c.
func compile(c *Context, e plan.Expr) (expr.Evaluator, error) {
	c.Subqueries = c
	return expr.Compile(&c.Env, e)
}

// rows returns the physical rows of b's selection: sel itself, or nil with
// n when the batch is dense. Kernels take (sel, n) and loop either way.
func rows(b *vector.Batch) ([]int32, int) { return b.Sel, b.Len }

// sameColTypes reports whether a and b hold vectors of the same types
// column by column (nil where the other is nil), so that rows of a batch
// of b's columns may be copied after those of a.
func sameColTypes(a, b []*vector.Vector) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		w := b[i]
		if (v == nil) != (w == nil) || v != nil && v.Type != w.Type {
			return false
		}
	}
	return true
}
