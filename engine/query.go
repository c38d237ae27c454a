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
		r.finish()
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
func (r *Result) finish() {
	if r.done {
		return
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
				ProfileOperator{Name: op.Name, Time: op.Time, Rows: op.Rows, DBHits: op.DBHits, Index: op.Index})
		}
	}
}

// Close stops the query and releases its resources. It is safe to call
// more than once.
func (r *Result) Close() error {
	r.finish()
	return nil
}

// Mode is how a statement runs: as written (an EXPLAIN or PROFILE
// prefix applies), or always explained or profiled, as the HTTP flags and
// endpoints ask.
type Mode uint8

const (
	ModeAsWritten Mode = iota
	ModeExplain
	ModeProfile
)

// Run runs one statement in the given mode, in a session of its own (see
// Query, Explain and Profile).
func (db *DB) Run(ctx context.Context, m Mode, text string, params Params) (*Result, error) {
	return db.NewSession().Run(ctx, m, text, params)
}

// Explain describes the plan of a statement without running it, whether
// or not its text starts with EXPLAIN. The Result has no columns or rows;
// Plan returns the description.
func (db *DB) Explain(ctx context.Context, text string, params Params) (*Result, error) {
	return db.NewSession().Explain(ctx, text, params)
}

// Profile runs a statement and measures each operator, whether or not its
// text starts with PROFILE. Read the rows, then Profile.
func (db *DB) Profile(ctx context.Context, text string, params Params) (*Result, error) {
	return db.NewSession().Profile(ctx, text, params)
}

// MaxQueryBytes is the longest query text a statement may have, the
// max_query_size the interface contract gives: planning is linear in the
// text, and this bounds its time and memory.
const MaxQueryBytes = 1 << 20

func (s *Session) runMode(ctx context.Context, text string, params Params, m Mode) (res *Result, err error) {
	db := s.db
	if db.closed.Load() {
		return nil, errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	if len(text) > MaxQueryBytes {
		return nil, errs.Data("the query text is %d bytes, more than the limit of %d (MaxQueryBytes)", len(text), MaxQueryBytes)
	}
	start := time.Now()
	var tx *storage.Tx
	// The statement's deadline covers preparing it too: parse, bind and
	// optimize run under it.
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := statementContext(ctx, s.QueryTimeout())
	running := false // a running Result owns cancel from then on
	defer func() {
		if p := recover(); p != nil {
			db.log.Error("query panicked", "panic", p, "stack", string(debug.Stack()))
			if tx != nil {
				tx.Rollback() // releases the writer lock a write may hold
			}
			res, err = nil, errs.Internal("internal error while running the query")
		}
		if !running || err != nil {
			cancel(nil)
		}
	}()
	stmt, err := gql.ParseCancel(text, func() error { return stopped(ctx) })
	if err != nil {
		return nil, syntaxError(err)
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	if stmt.Explain {
		m = ModeExplain
	} else if stmt.Profile && m == ModeAsWritten {
		m = ModeProfile
	}
	if stmt.Schema != nil {
		if m != ModeAsWritten {
			return nil, errs.Semantic("EXPLAIN and PROFILE apply to queries, not to schema statements").At(1, 1)
		}
		return db.schema(stmt.Schema, start)
	}
	if stmt.Copy != nil {
		if m != ModeAsWritten {
			return nil, errs.Semantic("EXPLAIN and PROFILE apply to queries, not to COPY").At(1, 1)
		}
		return db.copyFrom(ctx, stmt.Copy, start)
	}
	if stmt.Session != nil {
		if m != ModeAsWritten {
			return nil, errs.Semantic("EXPLAIN and PROFILE apply to queries, not to SET or SHOW").At(1, 1)
		}
		return s.statement(stmt.Session, start)
	}
	p, err := plan.BindWith(stmt, params, db.procs, db.planOptions())
	if err != nil {
		return nil, err
	}
	if err := plan.SelectIndexes(p, stmt, indexInfos(db.store.Snapshot())); err != nil {
		return nil, err
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	if m == ModeExplain {
		// Described from the plan alone: no transaction, nothing runs.
		r := &Result{db: db, ectx: &exec.Context{}, cancel: func() {}, start: start,
			entities: &entities{r: db.store.Snapshot(), cat: db.store.Catalog()}}
		r.explain = plan.Explain(p, db.planStats())
		r.columns = []Column{}
		r.finish()
		return r, nil
	}
	tx = db.store.Begin()
	ectx := &exec.Context{Ctx: ctx, Tx: tx, Catalog: db.store.Catalog(), Params: params}
	ectx.Mem.Limit = s.MaxMemoryPerQuery()
	ectx.Mem.Budget = db.mem.budget
	ectx.Mem.Kill = func(err error) { cancel(err) }
	ectx.Rules = db.planOptions()
	if !p.Writes {
		// Workers read the transaction at once: never with writes.
		ectx.Parallelism = s.parallelism()
	}
	r := &Result{db: db, ectx: ectx, tx: tx, cancel: func() { cancel(nil) }, start: start,
		entities: &entities{r: tx, cat: db.store.Catalog()}}
	if m == ModeProfile {
		ectx.Profile = exec.NewProfile()
		r.planRoot = p.Root
	}
	r.summary.Write = p.Writes
	fail := func(err error) (*Result, error) {
		ectx.Close()
		db.mem.finished(ectx.Mem.Peak())
		tx.Rollback()
		return nil, err
	}
	if p.Writes {
		// Writers serialise from here: the statement's reads and writes
		// are one atomic step.
		if err := tx.BeginWrite(); err != nil {
			return fail(err)
		}
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
		buf.Track(&ectx.Mem)
		if err := buf.Fill(); err != nil {
			return fail(err)
		}
		if err := exec.DrainUpdates(ectx); err != nil {
			return fail(err)
		}
		if err := stopped(ctx); err != nil {
			return fail(err) // stopped while it ran: nothing is committed
		}
		if _, err := tx.Commit(); err != nil {
			return fail(fmt.Errorf("cannot commit: %w", err))
		}
		st := ectx.Counters
		r.summary.WriteCounts = st.Writes
		r.summary.RowsAffected = st.NodesCreated + st.RelationshipsCreated +
			st.NodesDeleted + st.RelationshipsDeleted + st.EntitiesUpdated
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
	running = true
	r.pending = first
	r.columns = resultColumns(visible, first)
	if first == nil {
		r.finish()
	}
	return r, nil
}

// statementContext is the context a statement runs under: cancelled with
// a cause (the memory budget names itself that way), and bounded by the
// session's timeout when it has one.
func statementContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if timeout <= 0 {
		return ctx, cancel
	}
	ctx, stop := context.WithTimeoutCause(ctx, timeout, errs.Timeout("query exceeded its time limit (query_timeout %d ms)", timeout.Milliseconds()))
	return ctx, func(cause error) { stop(); cancel(cause) }
}

// stopped reports a statement's context's end as the engine error it
// stands for: its cause when that is one (a timeout, the memory budget),
// otherwise a cancellation.
func stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if e, ok := errs.As(context.Cause(ctx)); ok {
		return e
	}
	if ctx.Err() == context.DeadlineExceeded {
		return errs.Timeout("query exceeded its time limit")
	}
	return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, context.Cause(ctx), "query cancelled")
}

// syntaxError passes on the parser's error, already the engine's (a syntax
// error, or the statement's deadline met while parsing).
func syntaxError(err error) error {
	if _, isEngine := errs.As(err); isEngine {
		return err
	}
	return errs.Syntax("%v", err)
}

// planStats gives the cost model the counts of the latest snapshot: nodes,
// relationships, nodes per label, relationships per type.
func (db *DB) planStats() plan.GraphStats {
	snap := db.store.Snapshot()
	cat := db.store.Catalog()
	st := plan.GraphStats{Nodes: snap.NodeCount(), Rels: snap.RelCount(),
		LabelNodes: map[string]int64{}, TypeRels: map[string]int64{}}
	for _, l := range cat.Labels() {
		if bm := snap.LabelNodes(l); bm != nil {
			st.LabelNodes[cat.LabelName(l)] = int64(bm.GetCardinality())
		}
	}
	for _, t := range cat.Types() {
		if a := snap.Adjacency(t, storage.Outgoing); a != nil {
			st.TypeRels[cat.TypeName(t)] = int64(a.NumEdges())
		}
	}
	st.Indexes = map[string]plan.IndexInfo{}
	for _, ix := range indexInfos(snap) {
		st.Indexes[ix.Name] = ix
	}
	return st
}
