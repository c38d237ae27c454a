package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/admin"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/fle"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
)

// Mode is how a statement runs: as written (an EXPLAIN or PROFILE
// prefix applies), or always explained or profiled, as the HTTP flags and
// endpoints ask.
type Mode uint8

const (
	ModeAsWritten Mode = iota
	ModeExplain
	ModeProfile
)

// Query runs one GQL statement as its own transaction, in a session of
// its own: a SET it makes lasts for this statement only. A read streams
// its rows through the returned Result; a statement with writes runs to
// completion and commits before Query returns. ctx cancels the query.
func (db *DB) Query(ctx context.Context, text string, params Params) (*Result, error) {
	return db.NewSession().Query(ctx, text, params)
}

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

// Query runs one statement in the session (see DB.Query).
func (s *Session) Query(ctx context.Context, text string, params Params) (*Result, error) {
	return s.run(ctx, text, params, ModeAsWritten, nil)
}

// Run runs one statement in the session in the given mode.
func (s *Session) Run(ctx context.Context, m Mode, text string, params Params) (*Result, error) {
	return s.run(ctx, text, params, m, nil)
}

// Explain describes a statement's plan without running it (see DB.Explain).
func (s *Session) Explain(ctx context.Context, text string, params Params) (*Result, error) {
	return s.run(ctx, text, params, ModeExplain, nil)
}

// Profile runs a statement measuring each operator (see DB.Profile).
func (s *Session) Profile(ctx context.Context, text string, params Params) (*Result, error) {
	return s.run(ctx, text, params, ModeProfile, nil)
}

// MaxQueryBytes is the longest query text a statement may have, the
// max_query_size the interface contract gives: planning is linear in the
// text, and this bounds its time and memory.
const MaxQueryBytes = 1 << 20

// One statement's way through the engine, read top to bottom in run:
// parse; run a schema, COPY or session statement at once; bind; check
// privileges; optimize (choosing indexes); explain or execute. A
// statement plans and reads on one snapshot, taken when it starts; a
// write moves to the latest version when it takes the writer's lock.
type statementRun struct {
	s      *Session
	ctx    context.Context
	cancel context.CancelCauseFunc
	start  time.Time
	mode   Mode
	params Params
	snap   *storage.Snapshot
	// fields opens encrypted fields for the principal (fle.go); nil when
	// the graph has none.
	fields *fle.Reader
	plan   *plan.Plan
	// tx is the statement's transaction once it executes (a panic rolls
	// it back); running is set once a Result streaming rows owns cancel.
	tx      *storage.Tx
	running bool
	// ectx is the execution context once it executes: a panic closes it,
	// so that its memory leaves the server's budget and its workers stop.
	ectx *exec.Context
	// txn is the explicit transaction the statement runs in (nil: the
	// statement is its own transaction).
	txn *Transaction
}

// run runs one statement, in txn when it is not nil (on its own,
// auto-commit, when nil). Every entry point above, and Transaction.Run,
// comes here.
func (s *Session) run(ctx context.Context, text string, params Params, m Mode, txn *Transaction) (res *Result, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(text) <= MaxQueryBytes && !s.db.closed.Load() {
		// The graph it runs on (graph_route.go), with the principal's
		// privileges there.
		sub, gctx, r, err := s.route(ctx, text, txn)
		if r != nil || err != nil {
			return r, err
		}
		if sub != s {
			return sub.run(gctx, text, params, m, txn)
		}
		ctx = gctx
	}
	db := s.db
	if db.opts.Observer != nil {
		// Deferred first, so it runs last: after a panic became err.
		start := time.Now()
		defer func() { db.observeRun(start, txn == nil, res, err) }()
	}
	if db.closed.Load() {
		return nil, errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	if len(text) > MaxQueryBytes {
		return nil, errs.Data("the query text is %d bytes, more than the limit of %d (MaxQueryBytes)", len(text), MaxQueryBytes)
	}
	// The statement's deadline covers preparing it too: parse, bind and
	// optimize run under it.
	if ctx == nil {
		ctx = context.Background()
	}
	if txn != nil {
		ctx = access.WithExplicitTransaction(ctx)
	}
	st := &statementRun{s: s, start: time.Now(), mode: m, params: params, txn: txn}
	st.ctx, st.cancel = statementContext(ctx, s.QueryTimeout())
	defer func() {
		if p := recover(); p != nil {
			db.log.Error("query panicked", "panic", p, "stack", string(debug.Stack()))
			if st.ectx != nil {
				st.ectx.Close()
			}
			if st.tx != nil && st.txn == nil {
				st.tx.Rollback() // releases the writer lock a write may hold
			}
			res, err = nil, errs.Internal("internal error while running the query")
		}
		if !st.running || err != nil {
			st.cancel(nil)
		}
	}()
	// 1. Parse (the cache keeps the trees of recent texts).
	stmt, err := gql.ParseCached(text, func() error { return stopped(st.ctx) })
	if err != nil {
		return nil, syntaxError(err)
	}
	if err := stopped(st.ctx); err != nil {
		return nil, err
	}
	if stmt.Explain {
		st.mode = ModeExplain
	} else if stmt.Profile && st.mode == ModeAsWritten {
		st.mode = ModeProfile
	}
	if stmt.Copy != nil && stmt.Copy.To() {
		// COPY (<query>) TO: the query planned here, its rows into a
		// file (copy_to.go).
		return st.copyTo(stmt)
	}
	if stmt.Query == nil {
		// A schema, COPY or session statement runs here, checked before
		// it runs.
		return st.statement(stmt)
	}
	// 2–4. Bind, check privileges, optimize; or take the plan from the
	// cache and check privileges on it.
	p, err := st.prepare(stmt, text)
	if err != nil {
		return nil, err
	}
	if err := stopped(st.ctx); err != nil {
		return nil, err
	}
	st.plan = p
	// 5. Explain, or execute.
	if st.mode == ModeExplain {
		return st.explain(), nil
	}
	return st.execute()
}

// statement runs a schema, COPY or session statement once its
// privileges are checked. EXPLAIN and PROFILE do not apply.
func (st *statementRun) statement(stmt *gql.Statement) (*Result, error) {
	db := st.s.db
	var what string
	switch {
	case stmt.Schema != nil:
		what = "schema statements"
	case stmt.Copy != nil:
		what = "COPY"
	case stmt.Session != nil:
		what = "SET or SHOW"
	}
	if st.mode != ModeAsWritten {
		return nil, errs.Semantic("EXPLAIN and PROFILE apply to queries, not to %s", what).At(1, 1)
	}
	if err := access.Authorize(st.ctx, db.trail(), func() []access.Need { return access.StatementNeeds(stmt) }); err != nil {
		return nil, err
	}
	schemaWrite := stmt.Schema != nil && stmt.Schema.Kind != gql.SchemaShowIndexes && stmt.Schema.Kind != gql.SchemaShowConstraints
	if schemaWrite || (stmt.Copy != nil && !stmt.Copy.To()) {
		if err := db.writable(); err != nil {
			return nil, err
		}
	}
	switch {
	case stmt.Schema != nil:
		res, err := st.schema(stmt.Schema)
		db.trail().Schema(st.ctx, stmt.Schema, err)
		return res, err
	case stmt.Copy != nil:
		res, err := st.copyFrom(stmt.Copy)
		db.trail().Copy(st.ctx, stmt.Copy, err)
		return res, err
	}
	return st.sessionStatement(stmt.Session)
}

// explain describes the plan from the statement's snapshot: no
// transaction, nothing runs.
func (st *statementRun) explain() *Result {
	db := st.s.db
	r := &Result{db: db, ectx: &exec.Context{}, cancel: func() {}, start: st.start,
		entities: &entities{r: st.snap, cat: db.store.Catalog()}}
	r.explain = plan.Explain(st.plan, planStats(st.snap, db.store.Catalog()))
	r.columns = []Column{}
	r.finish()
	return r
}

// execute builds the physical operators and runs them in a transaction
// on the statement's snapshot. A read streams its rows through the
// Result; a write runs to completion and commits first.
func (st *statementRun) execute() (*Result, error) {
	s, db, p, ctx, cancel := st.s, st.s.db, st.plan, st.ctx, st.cancel
	tx := st.txnTx()
	if tx == nil {
		tx = db.store.BeginAt(st.snap)
	}
	st.tx = tx
	ectx := &exec.Context{Env: expr.Env{Ctx: ctx, Tx: tx, Catalog: db.store.Catalog(), Params: st.params}}
	if st.fields != nil {
		ectx.Fields = st.fields
	}
	st.ectx = ectx
	ectx.Mem.Limit = s.MaxMemoryPerQuery()
	ectx.Mem.Budget = db.mem.Budget()
	ectx.Mem.Kill = func(err error) { cancel(err) }
	if !p.Writes {
		// Workers read the transaction at once: never with writes.
		ectx.Parallelism = s.parallelism()
	}
	r := &Result{db: db, ectx: ectx, tx: tx, cancel: func() { cancel(nil) }, start: st.start,
		entities: &entities{r: tx, cat: db.store.Catalog(), fields: st.fields}}
	if st.txn != nil {
		r.tx = nil // the transaction outlives the statement
	}
	if st.mode == ModeProfile {
		ectx.Profile = exec.NewProfile()
		r.planRoot = p.Root
	}
	r.summary.Write = p.Writes
	fail := func(err error) (*Result, error) {
		ectx.Close()
		db.mem.Finished(ectx.Mem.Peak())
		if st.txn == nil {
			tx.Rollback()
		}
		return nil, err
	}
	if p.Writes {
		// A member of a replicated cluster that does not lead refuses
		// before any name is created (Replication.Writable).
		if err := db.writable(); err != nil {
			return fail(err)
		}
	}
	if p.Writes && st.txn == nil {
		// Writers serialise from here: the statement's reads and writes
		// are one atomic step, on the latest version.
		if err := tx.BeginWrite(); err != nil {
			return fail(err)
		}
	}
	tx.MarkStatement()
	if err := st.batchedCommits(ectx, &tx, r); err != nil { // batched_commits.go
		return fail(err)
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
		if st.txn == nil {
			if _, err := tx.Commit(); err != nil {
				return fail(fmt.Errorf("cannot commit: %w", err))
			}
		}
		c := ectx.Counters
		r.summary.WriteCounts = c.Writes
		r.summary.RowsAffected = c.NodesCreated + c.RelationshipsCreated +
			c.NodesDeleted + c.RelationshipsDeleted + c.EntitiesUpdated
		// Rows returned after the commit resolve entities at the new
		// snapshot, which holds what the statement created (in a
		// transaction: at the transaction's view).
		if st.txn == nil {
			r.entities.r = db.store.Snapshot()
		}
		root = buf
	}
	r.root = root
	// Read the first batch ahead: a column whose type depends on stored
	// values (a property) reports the type its values actually have.
	first, err := r.pull()
	if err != nil {
		return fail(err)
	}
	st.running = true
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
	// The cause first: cancelling the outer context hands its cause down
	// to the timeout's, which the statement reads. Stopping the timeout
	// first would cancel that one with a bare context.Canceled, and a
	// query the memory budget failed would answer "query cancelled"
	// (40000) instead of 53200.
	return ctx, func(cause error) { cancel(cause); stop() }
}

// stopped reports a statement's context's end as the engine error it
// stands for (expr.Stopped).
func stopped(ctx context.Context) error { return expr.Stopped(ctx) }

// syntaxError passes on the parser's error, already the engine's (a syntax
// error, or the statement's deadline met while parsing).
func syntaxError(err error) error {
	if _, isEngine := errs.As(err); isEngine {
		return err
	}
	return errs.Syntax("%v", err)
}

// planStats gives the cost model the counts of snap: nodes,
// relationships, nodes per label, relationships per type, indexes.
func planStats(snap *storage.Snapshot, cat *catalog.Catalog) plan.GraphStats {
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

// txnTx is the storage transaction of the explicit transaction the
// statement runs in, nil for an auto-commit statement.
func (st *statementRun) txnTx() *storage.Tx {
	if st.txn == nil {
		return nil
	}
	return st.txn.tx
}

// sessionStatement runs a session statement: SET and SHOW in the
// session, savepoints in the transaction, CHECKPOINT on the database.
func (st *statementRun) sessionStatement(s *gql.Session) (*Result, error) {
	db := st.s.db
	switch s.Kind {
	case gql.SessionSavepoint, gql.SessionRollbackTo, gql.SessionRelease:
		if st.txn == nil {
			return nil, errs.New(errs.CodeTransaction, errs.CatTransaction,
				"%s is valid only inside a transaction (POST /api/v1/transaction/begin)", s.String()).At(s.Pos.Line, s.Pos.Column)
		}
		if err := st.txn.savepointStatement(s); err != nil {
			return nil, err
		}
		return db.schemaRows(nil, nil, st.start), nil
	case gql.SessionCheckpoint:
		if st.txn != nil {
			return nil, errs.New(errs.CodeTransaction, errs.CatTransaction,
				"CHECKPOINT cannot run inside a transaction").At(s.Pos.Line, s.Pos.Column)
		}
		res, err := st.checkpoint()
		db.trail().Audit(st.ctx, AuditEvent{Category: "admin", Action: "checkpoint", Outcome: access.OutcomeOf(err)})
		return res, err
	}
	res, err := st.s.statement(s, st.start)
	if s.Kind == gql.SessionSet {
		db.trail().Set(st.ctx, s, err)
	}
	return res, err
}

// checkpoint runs CHECKPOINT: a checkpoint now, answered as a write
// without rows.
func (st *statementRun) checkpoint() (*Result, error) {
	db := st.s.db
	if _, err := db.Checkpoint(); err != nil {
		return nil, err
	}
	if err := stopped(st.ctx); err != nil {
		return nil, err
	}
	r := db.schemaRows(nil, nil, st.start)
	r.summary.Write = true
	return r, nil
}

// adminEnv is what a schema or COPY statement runs on (engine/admin).
func (st *statementRun) adminEnv() admin.Env {
	db := st.s.db
	env := admin.Env{Store: db.store, In: st.txnTx(), BeforeCommit: testHookOwnCommit, CheckConstraint: db.checkConstraintFields}
	if m := db.secondary; m != nil {
		env.CheckIndex, env.IndexState = m.Check, m.State
	}
	check := env.CheckIndex
	env.CheckIndex = func(ix *catalog.Index) error {
		if err := db.checkIndexFields(ix); err != nil || check == nil {
			return err
		}
		return check(ix)
	}
	return env
}

// testHookOwnCommit, when set by a test, runs once a schema or COPY
// statement has made its change, before it commits: a panic there is
// what recovery must clean up after.
var testHookOwnCommit func()

// schema runs an index or constraint statement: CREATE and DROP answer a
// write without rows, SHOW its rows.
func (st *statementRun) schema(s *gql.Schema) (*Result, error) {
	db := st.s.db
	rows, err := admin.Schema(st.adminEnv(), s)
	if err != nil {
		return nil, err
	}
	if rows != nil {
		return db.schemaRows(showColumns(rows.Fields), rows.Rows, st.start), nil
	}
	r := db.schemaRows(nil, nil, st.start)
	r.summary.Write = true
	return r, nil
}

// copyFrom runs COPY … FROM: a write without rows, counting what it
// created.
func (st *statementRun) copyFrom(c *gql.Copy) (*Result, error) {
	db := st.s.db
	n, err := admin.Copy(st.ctx, st.adminEnv(), db.opts.ImportDir, db.longWork(), c)
	if err != nil {
		return nil, err
	}
	r := db.schemaRows(nil, nil, st.start)
	r.summary.Write = true
	r.summary.NodesCreated, r.summary.RelationshipsCreated = n.NodesCreated, n.RelationshipsCreated
	r.summary.PropertiesSet, r.summary.LabelsAdded = n.PropertiesSet, n.LabelsAdded
	r.summary.RowsAffected = n.NodesCreated + n.RelationshipsCreated
	return r, nil
}

// indexInfos describes the indexes of snap, with their statistics, for
// index selection and the cost model.
func indexInfos(snap *storage.Snapshot) []plan.IndexInfo {
	var out []plan.IndexInfo
	for _, ix := range snap.Schema().Indexes {
		if ix.Type.Secondary() {
			continue // not a property index: searched through its procedures (engine/index)
		}
		entries, distinct := snap.IndexStats(ix)
		out = append(out, plan.IndexInfo{Name: ix.Name, Type: ix.Type.String(), Label: ix.Label,
			Props: ix.Keys, Entries: entries, Distinct: distinct, Holders: snap.IndexKeyHolders(ix)})
	}
	return out
}
