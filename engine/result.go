package engine

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/fle"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/procs"
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
	// Elem is a LIST column's element type (BOOLEAN, INTEGER, FLOAT or
	// STRING) when the plan knows every element is of it or null, else
	// empty. The JSON schema does not show it; a columnar answer (Arrow)
	// types its lists by it.
	Elem string
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
	// (observeResult).
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
	r.db.mem.Finished(r.summary.MemoryPeak)
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

// Fail ends the result with an error its reader met while turning the
// rows into an answer (a value its format cannot hold): the statement
// fails as it would had the rows failed, so an explicit transaction is
// marked failed and the statement is counted as an error. It does
// nothing once the result has ended.
func (r *Result) Fail(err error) {
	r.finishWith(err)
}

// Close stops the query and releases its resources. It is safe to call
// more than once.
func (r *Result) Close() error {
	r.finish()
	return nil
}

// entities resolves ids in result batches against the snapshot the query
// read (or, after a write, the snapshot its commit produced).
type entities struct {
	r      storage.Reader
	cat    *catalog.Catalog
	buf    []catalog.LabelID
	fields *fle.Reader // nil: no encrypted field
}

func (e *entities) NodeLabels(dst []string, id uint64) []string {
	e.buf = e.r.AppendNodeLabels(e.buf[:0], id)
	for _, l := range e.buf {
		dst = append(dst, e.cat.LabelName(l))
	}
	return dst
}

func (e *entities) NodeProperties(id uint64, fn func(key string, v vector.Value)) {
	e.r.NodeProps(id, func(k catalog.KeyID, v vector.Value) { openEntityProp(e.fields, e.cat.KeyName(k), v, fn) })
}

func (e *entities) Relationship(id uint64) (typ string, start, end uint64) {
	t, src, dst, ok := e.r.Rel(id)
	if !ok {
		return "", 0, 0
	}
	return e.cat.TypeName(t), src, dst
}

func (e *entities) RelationshipProperties(id uint64, fn func(key string, v vector.Value)) {
	e.r.RelProps(id, func(k catalog.KeyID, v vector.Value) { openEntityProp(e.fields, e.cat.KeyName(k), v, fn) })
}

// resultColumns names and types the visible columns. A column whose type
// the plan could not fix takes the type of its first batch's vector when
// that vector is typed: a typed vector comes from a homogeneous stored
// column or a typed kernel, so every batch has the same type. A generic
// column is named by what the plan knows of it (LIST, MAP) or ANY; its
// values are not inspected, as a sample would make the answer depend on
// the batch size.
func resultColumns(cols []plan.Column, first *vector.Batch) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		t := c.Type
		if t == vector.Any && first != nil {
			t = first.Cols[i].Type
		}
		name := t.String()
		if t == vector.Any {
			name = "ANY"
			if c.Kind != "" {
				name = c.Kind
			}
		}
		out[i] = Column{Name: c.Name, Type: name}
		if name == "LIST" && c.Elem != vector.Null {
			out[i].Elem = c.Elem.String()
		}
	}
	return out
}

// showColumns are the result columns of SHOW INDEXES / SHOW CONSTRAINTS:
// those of db.indexes() and db.constraints().
func showColumns(fs []procs.Field) []plan.Column {
	cols := make([]plan.Column, len(fs))
	for i, f := range fs {
		cols[i] = plan.Column{Name: f.Name, Type: procs.VectorType(f.Type)}
	}
	return cols
}

func (db *DB) schemaRows(cols []plan.Column, rows [][]vector.Value, start time.Time) *Result {
	r := &Result{db: db, ectx: &exec.Context{}, cancel: func() {}, start: start,
		entities: &entities{r: db.store.Snapshot(), cat: db.store.Catalog()}}
	if cols == nil {
		cols = []plan.Column{}
	}
	r.root = &valueRows{rows: rows, cols: cols}
	r.columns = resultColumns(cols, nil)
	return r
}

// valueRows yields fixed rows of scalar values (strings, booleans,
// integers, floats) a batch at a time.
type valueRows struct {
	rows [][]vector.Value
	cols []plan.Column
	pos  int
	out  *vector.Batch
}

func (s *valueRows) Next() (*vector.Batch, error) {
	n := min(len(s.rows)-s.pos, vector.Capacity)
	if n <= 0 {
		return nil, nil
	}
	if s.out == nil {
		s.out = &vector.Batch{Cols: make([]*vector.Vector, len(s.cols))}
		for i, c := range s.cols {
			s.out.Cols[i] = vector.New(c.Type, vector.Capacity)
		}
	}
	for i := 0; i < n; i++ {
		for c, v := range s.rows[s.pos+i] {
			switch x := v.(type) {
			case string:
				s.out.Cols[c].Str[i] = x
			case bool:
				s.out.Cols[c].Bools[i] = x
			case int64:
				s.out.Cols[c].I64[i] = x
			case float64:
				s.out.Cols[c].F64[i] = x
			}
		}
	}
	s.out.Len, s.out.Sel = n, nil
	s.pos += n
	return s.out, nil
}

// observedAs says whether a Result reports its statement's end to the
// Observer, and whether the statement was its own transaction.
type observedAs uint8

const (
	notObserved observedAs = iota
	observedInTransaction
	observedAutoCommit
)

// observeRun reports a statement that Session.run ended: at once when it
// failed or its Result is finished already, otherwise when the Result
// finishes (Result.finishWith). auto is set for a statement outside an
// explicit transaction.
func (db *DB) observeRun(start time.Time, auto bool, res *Result, err error) {
	if err != nil || res == nil {
		db.opts.Observer.StatementEnded(time.Since(start), err)
		if auto {
			db.opts.Observer.TransactionEnded(TxFailed)
		}
		return
	}
	res.observed = observedInTransaction
	if auto {
		res.observed = observedAutoCommit
	}
	if res.done {
		db.observeResult(res, nil)
	}
}

// observeResult reports the end of an observed Result's statement, with
// the error that ended it.
func (db *DB) observeResult(r *Result, err error) {
	o := db.opts.Observer
	if o == nil || r.observed == notObserved {
		return
	}
	auto := r.observed == observedAutoCommit
	r.observed = notObserved // once
	o.StatementEnded(r.summary.ExecutionTime, err)
	if !auto {
		return
	}
	// A write's Result comes back only once it committed: rows that fail
	// to stream after that leave the commit in place.
	if err == nil || r.summary.Write {
		o.TransactionEnded(TxCommitted)
	} else {
		o.TransactionEnded(TxFailed)
	}
}
