package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

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
}

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
		r.finish()
		return nil, err
	}
	r.summary.RowsReturned += int64(b.Rows())
	return b, nil
}

// pull reads one batch from the operators, turning a panic into an
// internal error so that one bad query cannot take the server down.
func (r *Result) pull() (b *vector.Batch, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.db.log.Error("query panicked", "panic", p, "stack", string(debug.Stack()))
			b, err = nil, errs.Internal("internal error while running the query")
		}
	}()
	return r.root.Next()
}

// finish records the summary and releases the transaction.
func (r *Result) finish() {
	if r.done {
		return
	}
	r.done = true
	st := r.ectx.Stats
	r.summary.RowsScanned = st.RowsScanned
	r.summary.ExecutionTime = time.Since(r.start)
	if !r.summary.Write {
		r.tx.Rollback()
	}
	r.cancel()
}

// Close stops the query and releases its resources. It is safe to call
// more than once.
func (r *Result) Close() error {
	r.finish()
	return nil
}

func (db *DB) run(ctx context.Context, text string, params Params) (res *Result, err error) {
	if db.closed.Load() {
		return nil, errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	start := time.Now()
	var tx *storage.Tx
	defer func() {
		if p := recover(); p != nil {
			db.log.Error("query panicked", "panic", p, "stack", string(debug.Stack()))
			if tx != nil {
				tx.Rollback() // releases the writer lock a write may hold
			}
			res, err = nil, errs.Internal("internal error while running the query")
		}
	}()
	stmt, err := gql.Parse(text)
	if err != nil {
		return nil, syntaxError(err)
	}
	if stmt.Explain || stmt.Profile {
		return nil, errs.NotSupported("EXPLAIN and PROFILE are not supported yet")
	}
	p, err := plan.BindProcs(stmt, params, db.procs)
	if err != nil {
		return nil, err
	}
	var cancel context.CancelFunc
	if db.opts.QueryTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, db.opts.QueryTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	tx = db.store.Begin()
	ectx := &exec.Context{Ctx: ctx, Tx: tx, Catalog: db.store.Catalog(), Params: params}
	r := &Result{db: db, ectx: ectx, tx: tx, cancel: cancel, start: start,
		entities: &entities{r: tx, cat: db.store.Catalog()}}
	r.summary.Write = p.Writes
	fail := func(err error) (*Result, error) {
		tx.Rollback()
		cancel()
		return nil, err
	}
	root, err := exec.Build(ectx, p.Root)
	if err != nil {
		return fail(err)
	}
	visible := p.Columns()
	if !p.Returns {
		// Run for the side effects only: no columns, no rows.
		root = exec.Discard(root)
	}
	if p.Writes {
		buf := exec.NewBuffer(root, len(visible))
		if err := buf.Fill(); err != nil {
			return fail(err)
		}
		if _, err := tx.Commit(); err != nil {
			return fail(fmt.Errorf("cannot commit: %w", err))
		}
		st := ectx.Stats
		r.summary.NodesCreated = st.NodesCreated
		r.summary.RelationshipsCreated = st.RelationshipsCreated
		r.summary.PropertiesSet = st.PropertiesSet
		r.summary.LabelsAdded = st.LabelsAdded
		r.summary.RowsAffected = st.NodesCreated + st.RelationshipsCreated
		// Rows returned after the commit resolve entities at the new
		// snapshot, which holds what the statement created.
		r.entities.r = db.store.Snapshot()
		root = buf
	}
	r.root = root
	// Read the first batch ahead: a column whose type depends on stored
	// values (a property) reports the type its values actually have.
	first, err := r.pull()
	if err != nil {
		return fail(err)
	}
	r.pending = first
	r.columns = resultColumns(visible, first)
	if first == nil {
		r.finish()
	}
	return r, nil
}

// syntaxError maps the parser's error to the engine's, keeping position and
// suggestion.
func syntaxError(err error) error {
	se, ok := err.(*gql.SyntaxError)
	if !ok {
		return errs.Syntax("%v", err)
	}
	e := errs.Syntax("%s", se.Msg).At(se.Pos.Line, se.Pos.Column)
	e.Suggestion = se.Suggestion
	return e
}
