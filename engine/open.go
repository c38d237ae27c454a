package engine

import (
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
)

// DB is an open Quiver database. It is safe for concurrent use.
type DB struct {
	dir    string
	opts   Options
	log    *slog.Logger
	store  *storage.Store
	procs  *procs.Registry
	closed atomic.Bool
	// settings are the SET / SHOW parameters, shared by every query.
	settings *Settings
}

// Open opens the database in dir, creating the directory if needed.
//
// This version keeps the graph in memory: the directory is created and
// reserved, but the write-ahead log and checkpoints that make data survive
// a restart come with the durability work (docs/architecture.md).
func Open(dir string, opts Options) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create data directory: %w", err)
		}
	}
	return &DB{dir: dir, opts: opts, log: log, store: storage.New(), procs: procs.NewRegistry(), settings: newSettings(opts)}, nil
}

// Close releases the database. Queries after Close fail.
func (db *DB) Close() error {
	db.closed.Store(true)
	return nil
}

// Stats returns whole-database counts at the latest committed snapshot.
func (db *DB) Stats() Stats {
	s := db.store.Snapshot()
	return Stats{Nodes: s.NodeCount(), Relationships: s.RelCount()}
}

// Check verifies the invariants of the stored graph (tests call it after
// mutating statements).
func (db *DB) Check() error { return db.store.Check() }
