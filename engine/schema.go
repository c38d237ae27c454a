package engine

import (
	"time"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/exec"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// schema runs an index or constraint statement. CREATE and DROP commit
// one schema transaction and return no rows; SHOW answers the catalog
// rows of the latest snapshot, as CALL db.indexes() / db.constraints() do.
func (db *DB) schema(s *gql.Schema, start time.Time, in *storage.Tx) (*Result, error) {
	switch s.Kind {
	case gql.SchemaShowIndexes:
		return db.schemaRows(showColumns(procs.IndexFields), procs.IndexRows(db.store.Snapshot().Schema()), start), nil
	case gql.SchemaShowConstraints:
		return db.schemaRows(showColumns(procs.ConstraintFields), procs.ConstraintRows(db.store.Snapshot().Schema()), start), nil
	}
	tx := in
	if tx == nil {
		tx = db.store.Begin()
		// Holds the writer's lock: a panic (recovered by the statement)
		// must not leave it held, or every later write would wait.
		defer tx.Rollback() // a no-op once committed or rolled back
	}
	var err error
	switch s.Kind {
	case gql.SchemaCreateIndex:
		typ := catalog.BTree
		if s.IndexType == "HASH" {
			typ = catalog.Hash
		}
		err = tx.CreateIndex(catalog.Index{Name: access.SchemaObjectName(s), Type: typ, Label: s.Label, Keys: s.Props})
	case gql.SchemaDropIndex:
		err = tx.DropIndex(s.Name)
	case gql.SchemaCreateConstraint:
		kind := catalog.Exists
		if s.Unique {
			kind = catalog.Unique
		}
		err = tx.CreateConstraint(catalog.Constraint{Name: access.SchemaObjectName(s), Kind: kind, Label: s.Label, Key: s.Props[0]})
	case gql.SchemaDropConstraint:
		err = tx.DropConstraint(s.Name)
	default:
		err = errs.NotSupported("this schema statement is not supported")
	}
	if err == nil && testHookOwnCommit != nil {
		testHookOwnCommit()
	}
	if err == nil && in == nil {
		_, err = tx.Commit()
	}
	if err != nil {
		if in == nil {
			tx.Rollback()
		}
		if e, ok := errs.As(err); ok && e.Position == nil {
			p := s.Pos
			if s.Name != "" && (s.Kind == gql.SchemaDropIndex || s.Kind == gql.SchemaDropConstraint) {
				p = s.NamePos
			}
			e.At(p.Line, p.Column)
		}
		return nil, err
	}
	r := db.schemaRows(nil, nil, start)
	r.summary.Write = true
	return r, nil
}

// testHookOwnCommit, when set by a test, runs once a schema or COPY
// statement that begins its own transaction has made its change, before
// it commits: a panic there is what recovery must clean up after.
var testHookOwnCommit func()

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

// valueRows yields fixed rows of scalar values a batch at a time.
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
			}
		}
	}
	s.out.Len, s.out.Sel = n, nil
	s.pos += n
	return s.out, nil
}

// indexInfos describes the indexes of snap, with their statistics, for
// index selection and the cost model.
func indexInfos(snap *storage.Snapshot) []plan.IndexInfo {
	var out []plan.IndexInfo
	for _, ix := range snap.Schema().Indexes {
		entries, distinct := snap.IndexStats(ix)
		out = append(out, plan.IndexInfo{Name: ix.Name, Type: ix.Type.String(), Label: ix.Label,
			Props: ix.Keys, Entries: entries, Distinct: distinct})
	}
	return out
}
