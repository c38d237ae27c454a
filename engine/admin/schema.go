// Package admin runs the statements that are not queries and change or
// show the database's shape or contents wholesale: the schema statements
// (CREATE and DROP of indexes and constraints, SHOW INDEXES, SHOW
// CONSTRAINTS; schema.go) and COPY … FROM (copy.go). The engine
// authorizes and audits them, and turns what they return into a Result.
package admin

import (
	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Env is what a statement runs on.
type Env struct {
	Store *storage.Store
	// In is the explicit transaction the statement runs in; nil: it
	// commits a transaction of its own.
	In *storage.Tx
	// BeforeCommit, when set, runs once a statement has made its change,
	// before it commits (tests: a panic there is what recovery must clean
	// up after).
	BeforeCommit func()
	// CheckIndex, when set, vets a secondary index's definition before
	// CREATE commits it (a FULLTEXT index's analyzer: engine/index).
	CheckIndex func(*catalog.Index) error
	// CheckConstraint, when set, vets a constraint before CREATE commits
	// it (a uniqueness one on a field encrypted with a randomized key).
	CheckConstraint func(*catalog.Constraint) error
	// IndexState reports the indexes' states for SHOW INDEXES (nil: all
	// ONLINE).
	IndexState procs.IndexState
}

// Rows is what a SHOW answers: its columns (those of db.indexes() and
// db.constraints()) and rows.
type Rows struct {
	Fields []procs.Field
	Rows   [][]vector.Value
}

// Schema runs an index or constraint statement. CREATE and DROP commit
// one schema transaction and return no rows (nil); SHOW answers the
// catalog rows of the latest snapshot, as CALL db.indexes() /
// db.constraints() do.
func Schema(env Env, s *gql.Schema) (*Rows, error) {
	switch s.Kind {
	case gql.SchemaShowIndexes:
		return &Rows{procs.IndexFields, procs.IndexRows(env.Store.Snapshot().Schema(), env.IndexState)}, nil
	case gql.SchemaShowConstraints:
		return &Rows{procs.ConstraintFields, procs.ConstraintRows(env.Store.Snapshot().Schema())}, nil
	}
	in := env.In
	tx := in
	if tx == nil {
		tx = env.Store.Begin()
		// Holds the writer's lock: a panic (recovered by the statement)
		// must not leave it held, or every later write would wait.
		defer tx.Rollback() // a no-op once committed or rolled back
	}
	var err error
	switch s.Kind {
	case gql.SchemaCreateIndex:
		typ := catalog.BTree
		switch s.IndexType {
		case "HASH":
			typ = catalog.Hash
		case "FULLTEXT":
			typ = catalog.FullText
		case "VECTOR":
			typ = catalog.Vector
		}
		def := catalog.Index{Name: access.SchemaObjectName(s), Type: typ, Label: s.Label, Keys: s.Props, Rel: s.Rel, Analyzer: s.Analyzer}
		if v := s.Vector; v != nil {
			def.Vector = &catalog.VectorOptions{Dimensions: clampInt(v.Dimensions), Similarity: v.Similarity, M: clampInt(v.M), EfConstruction: clampInt(v.EfConstruction)}
		}
		if typ.Secondary() && env.CheckIndex != nil {
			err = env.CheckIndex(&def)
		}
		if err == nil {
			err = tx.CreateIndex(def)
		}
	case gql.SchemaDropIndex:
		err = tx.DropIndex(s.Name)
	case gql.SchemaCreateConstraint:
		kind := catalog.Exists
		if s.Unique {
			kind = catalog.Unique
		}
		c := catalog.Constraint{Name: access.SchemaObjectName(s), Kind: kind, Label: s.Label, Key: s.Props[0]}
		if env.CheckConstraint != nil {
			err = env.CheckConstraint(&c)
		}
		if err == nil {
			err = tx.CreateConstraint(c)
		}
	case gql.SchemaDropConstraint:
		err = tx.DropConstraint(s.Name)
	default:
		err = errs.NotSupported("this schema statement is not supported")
	}
	if s.IfExists && alreadySo(s.Kind, err) {
		err = nil // IF [NOT] EXISTS: nothing to do, and no error
	}
	if err == nil && env.BeforeCommit != nil {
		env.BeforeCommit()
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
	return nil, nil
}

// clampInt narrows an option to an int, keeping it out of range when it
// was (the index's check rejects it) rather than wrapping into range.
func clampInt(n int64) int {
	const lim = 1 << 31
	return int(max(min(n, lim), -lim))
}

// alreadySo reports whether err says that what a CREATE … IF NOT EXISTS
// or DROP … IF EXISTS wants is already so: an object of that name or
// definition exists (42S01), or none of that name does (42S02).
func alreadySo(kind gql.SchemaKind, err error) bool {
	e, ok := errs.As(err)
	if !ok {
		return false
	}
	switch kind {
	case gql.SchemaCreateIndex, gql.SchemaCreateConstraint:
		return e.Code == errs.CodeObjectExists
	case gql.SchemaDropIndex, gql.SchemaDropConstraint:
		return e.Code == errs.CodeNoObject
	}
	return false
}
