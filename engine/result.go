package engine

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Column is one column of a result: its name (the alias, or the expression
// text exactly as written) and its type name as reported in
// schema.fields[].type (BOOLEAN, INTEGER, FLOAT, STRING, LIST, MAP, NODE,
// RELATIONSHIP, PATH, NULL, ANY).
type Column struct {
	Name string
	Type string
}

// WriteCounts are a statement's side effects: entities created and
// deleted, properties set and removed, labels added and removed.
type WriteCounts = expr.Writes

// Summary describes what a finished query did.
type Summary struct {
	// RowsReturned counts the rows delivered by Next.
	RowsReturned int64
	// RowsScanned counts node and relationship rows read from storage.
	RowsScanned int64
	// Write is true when the statement contained a write clause.
	Write bool
	// RowsAffected counts the entities a write created, deleted or
	// changed: nodes and relationships created and deleted, plus the
	// distinct pre-existing ones whose properties or labels SET, REMOVE
	// or MERGE's ON … SET changed (each once).
	RowsAffected int64
	// The counters of side effects (NodesCreated, PropertiesSet, …).
	WriteCounts
	// IndexHits counts node ids read from indexes.
	IndexHits int64
	// ExecutionTime is the wall time from parse to the last batch.
	ExecutionTime time.Duration
	// MemoryPeak is the most memory the statement's accountant saw it
	// hold at once, in bytes (max_memory_per_query bounds it).
	MemoryPeak int64
}

// Entities resolves node and relationship ids found in result batches
// (Node and Rel vectors, vector.NodeRef / vector.RelRef values) to their
// labels, type, endpoints and properties, as of the snapshot the query read.
type Entities interface {
	// NodeLabels appends the node's label names to dst.
	NodeLabels(dst []string, id uint64) []string
	// NodeProperties calls fn for each property of the node in key order.
	NodeProperties(id uint64, fn func(key string, v vector.Value))
	// Relationship returns a relationship's type name and endpoints.
	Relationship(id uint64) (typ string, start, end uint64)
	// RelationshipProperties calls fn for each property in key order.
	RelationshipProperties(id uint64, fn func(key string, v vector.Value))
}

// Result streams the rows of one query. Call Next until it returns a nil
// batch, then read Summary. Close releases resources early.
type Result struct {
	db       *DB
	columns  []Column
	entities *entities
	summary  Summary
	root     exec.Operator
	ectx     *exec.Context
	tx       *storage.Tx
	cancel   context.CancelFunc
	start    time.Time
	pending  *vector.Batch // first batch, read ahead to learn column types
	done     bool

	// release, when set, is called once when the Result finishes, with
	// the error that ended it (an explicit transaction's statement holds
	// the transaction until then).
	release func(error)
	// observed is set when the statement's end goes to the Observer
	// (observe.go).
	observed observedAs

	explain  *Explanation
	planRoot plan.Operator // the plan PROFILE reports on
	profile  *Profile
}

// Explanation is the plan EXPLAIN describes: a tree of operators with
// estimated rows and costs (engine/plan/explain.go).
type Explanation = plan.Explanation

// PlanNode is one operator of an Explanation.
type PlanNode = plan.Described

// Profile is what PROFILE measured: the query's total time and each
// operator's own time, rows produced and storage reads (db hits), in
// pre-order of the plan tree (root first).
type Profile struct {
	TotalTime time.Duration
	Operators []ProfileOperator
}

// ProfileOperator is one operator's share of a profiled run.
type ProfileOperator struct {
	Name   string
	Time   time.Duration
	Rows   int64
	DBHits int64
	// Index is the index the operator used; empty when it used none.
	Index string
	// Fallbacks name the strategies EXPLAIN showed for the operator that
	// a guard seeing the data turned down, with the reason
	// ("parallel: one morsel"); the operator ran the general way.
	Fallbacks []string
}

// Plan returns the described plan of an EXPLAIN, nil otherwise.
func (r *Result) Plan() *Explanation { return r.explain }

// Profile returns what a PROFILE measured, nil otherwise. It is complete
// once Next returned nil.
func (r *Result) Profile() *Profile { return r.profile }

// Columns describes the result's columns, in batch column order.
func (r *Result) Columns() []Column { return r.columns }

// Entities resolves node and relationship ids in the result's batches.
func (r *Result) Entities() Entities { return r.entities }

// Summary reports what the query did; complete once Next returned nil.
func (r *Result) Summary() Summary { return r.summary }

// Next returns the next batch of rows, or nil at the end. The batch (its
// Cols in Columns order, Len and Sel) is valid until the next call.
func (r *Result) Next() (b *vector.Batch, err error) {
	if r.done {
		return nil, nil
	}
	if r.pending != nil {
		b, r.pending = r.pending, nil
	} else {
		b, err = r.pull()
	}
	if err != nil || b == nil {
		r.finishWith(err)
		return nil, err
	}
	r.summary.RowsReturned += int64(b.Rows())
	return b, nil
}

// pull reads one batch from the operators, turning a panic into an
// internal error so that one bad query cannot take the server down. The
// end of the rows is also the moment to check that the statement was not
// stopped (deadline, memory budget, client gone) by an operator that
// ended early without noticing: a stopped statement fails, it never
// answers with what it had so far.
func (r *Result) pull() (b *vector.Batch, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.db.log.Error("query panicked", "panic", p, "stack", string(debug.Stack()))
			b, err = nil, errs.Internal("internal error while running the query")
		}
	}()
	b, err = r.root.Next()
	if b == nil && err == nil && r.ectx.Ctx != nil {
		err = stopped(r.ectx.Ctx)
	}
	return b, err
}

// finish records the summary and releases the transaction.
func (r *Result) finish() { r.finishWith(nil) }

// finishWith is finish after the error that ended the rows, if any.
func (r *Result) finishWith(err error) {
	if r.done {
		return
	}
	if r.release != nil {
		defer r.release(err)
	}
	if r.observed != notObserved {
		defer r.db.observeResult(r, err)
	}
	r.done = true
	r.ectx.Close() // parallel workers stop before their counters are read
	r.summary.MemoryPeak = r.ectx.Mem.Peak()
	r.db.mem.finished(r.summary.MemoryPeak)
	st := r.ectx.Counters
	r.summary.RowsScanned = st.RowsScanned
	r.summary.IndexHits = st.IndexHits
	r.summary.ExecutionTime = time.Since(r.start)
	if !r.summary.Write && r.tx != nil {
		r.tx.Rollback()
	}
	r.cancel()
	if r.ectx.Profile != nil {
		r.profile = &Profile{TotalTime: r.summary.ExecutionTime}
		for _, op := range r.ectx.Profile.Operators(r.planRoot) {
			r.profile.Operators = append(r.profile.Operators,
				ProfileOperator{Name: op.Name, Time: op.Time, Rows: op.Rows, DBHits: op.DBHits, Index: op.Index, Fallbacks: op.Fallbacks})
		}
	}
}

// Close stops the query and releases its resources. It is safe to call
// more than once.
func (r *Result) Close() error {
	r.finish()
	return nil
}
