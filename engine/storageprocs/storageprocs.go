// Package storageprocs owns the storage procedures (docs/durability.md,
// "Storage procedures"): CALL quiver.storage.stats(), CALL
// quiver.storage.integrity() and CALL quiver.storage.contentHash(). They read the store and the log's
// positions a database hands them (Source); the database registers them
// at Open.
package storageprocs

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Quiver has no fixed-size pages. In the free_pages_* columns a page is
// a group of storage.GroupSize ids, the unit of property chunks and of
// the relationship table; page_size is the operating system's page, the
// unit in which base and log files are cached and synced.
//
// stats takes the spec's optional graph name: null or the caller's graph
// reads it, another graph's name that graph (Source.Other).

// GraphName is the name of the default graph, which every server holds.
const GraphName = "default"

var storageStatsFields = []procs.Field{
	{Name: "node_count", Type: "INTEGER"}, {Name: "edge_count", Type: "INTEGER"}, {Name: "label_count", Type: "INTEGER"},
	{Name: "format_version", Type: "INTEGER"}, {Name: "page_size", Type: "INTEGER"},
	{Name: "wal_lsn", Type: "INTEGER"}, {Name: "last_checkpoint_lsn", Type: "INTEGER"},
	{Name: "free_pages_nodes", Type: "INTEGER"}, {Name: "free_pages_adj_out", Type: "INTEGER"},
	{Name: "free_pages_adj_in", Type: "INTEGER"}, {Name: "free_pages_props", Type: "INTEGER"},
	{Name: "free_pages_var", Type: "INTEGER"},
}

var storageIntegrityFields = []procs.Field{
	{Name: "node_count_consistent", Type: "BOOLEAN"}, {Name: "edge_count_consistent", Type: "BOOLEAN"},
	{Name: "label_index_entries", Type: "INTEGER"}, {Name: "total_errors", Type: "INTEGER"},
}

var storageContentHashFields = []procs.Field{
	{Name: "hash", Type: "STRING"}, {Name: "id_hash", Type: "STRING"},
	{Name: "node_count", Type: "INTEGER"}, {Name: "edge_count", Type: "INTEGER"},
}

// Source is what the procedures read of a database.
type Source struct {
	Store *storage.Store
	// LSNs returns the log's position and the last checkpoint's (zero
	// without a log).
	LSNs func() (wal, lastCheckpoint uint64)
	// Log receives what the integrity check found wrong.
	Log *slog.Logger
	// Graph is the name of the graph Store holds; Other finds another
	// graph's Source by name, as the caller may see it (an unknown or
	// hidden graph is a 42S02 error). Nil Other: only Graph exists.
	Graph string
	Other func(ctx context.Context, name string) (*Source, error)
}

// graph is the name of the graph src reads.
func (src *Source) graph() string {
	if src.Graph == "" {
		return GraphName
	}
	return src.Graph
}

// Register makes the storage procedures callable through reg.
func Register(reg *procs.Registry, src Source) error {
	db := &src
	err := reg.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.storage.stats",
		Inputs: []procs.Field{{Name: "graph", Type: "STRING", Optional: true}}, Outputs: storageStatsFields, Requires: procs.PrivRead},
		Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
			g, ok := args[0].(string)
			if !ok || strings.EqualFold(g, db.graph()) {
				return db.storageStats(), nil
			}
			if db.Other == nil {
				return nil, errs.New(errs.CodeNoObject, errs.CatNoObject, "graph %q does not exist", g)
			}
			other, err := db.Other(c.Ctx, g)
			if err != nil {
				return nil, err
			}
			return other.storageStats(), nil
		}})
	if err != nil {
		return fmt.Errorf("cannot register quiver.storage.stats: %w", err)
	}
	err = reg.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.storage.integrity", Outputs: storageIntegrityFields,
		// Admin only: it reads every record of the store.
		Requires: procs.PrivAdmin},
		Fn: func(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) { return db.storageIntegrity(c.Ctx) }})
	if err != nil {
		return fmt.Errorf("cannot register quiver.storage.integrity: %w", err)
	}
	err = reg.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.storage.contentHash", Outputs: storageContentHashFields,
		// Read, like stats: it tells no more than MATCH (n) could.
		Requires: procs.PrivRead},
		Fn: func(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) { return db.contentHash(c.Ctx) }})
	if err != nil {
		return fmt.Errorf("cannot register quiver.storage.contentHash: %w", err)
	}
	return nil
}

// storageStats is the row of quiver.storage.stats() at the latest
// durable version.
func (db *Source) storageStats() [][]vector.Value {
	st := db.Store.Snapshot().Stats()
	walLSN, checkpointLSN := db.LSNs()
	deadNodes := int64(st.NodeBound) - st.Nodes
	deadRels := int64(st.RelBound) - st.Rels
	pages := func(slots int64) int64 { return slots / storage.GroupSize }
	return [][]vector.Value{{
		st.Nodes, st.Rels, int64(st.Labels),
		int64(storage.FormatVersion), int64(os.Getpagesize()),
		int64(walLSN), int64(checkpointLSN),
		// Dead node ids (deleted, or taken by a transaction that rolled
		// back) hold no data but keep their slots in every property
		// chunk: free_pages_nodes and free_pages_props count them.
		pages(deadNodes), pages(deadRels), pages(deadRels), pages(deadNodes),
		// Strings live inside their chunks: there is no separate
		// variable-length space that could be free.
		int64(0),
	}}
}

// storageIntegrity runs the store's full check on the latest durable
// version and reports it as quiver.storage.integrity() does.
func (db *Source) storageIntegrity(ctx context.Context) ([][]vector.Value, error) {
	snap := db.Store.Snapshot()
	st := snap.Stats()
	nodesOK := int64(snap.LiveNodes().GetCardinality()) == st.Nodes
	edgesOK := st.LiveRels == st.Rels && st.AdjacencyEdges[0] == st.Rels && st.AdjacencyEdges[1] == st.Rels
	errors := int64(0)
	for _, ok := range []bool{nodesOK, edgesOK} {
		if !ok {
			errors++
		}
	}
	if err := snap.CheckInterruptible(func() error { return errs.Stopped(ctx) }); err != nil {
		if stopErr := errs.Stopped(ctx); stopErr != nil {
			return nil, stopErr
		}
		db.Log.Error("the storage integrity check found an error", "err", err)
		errors++
	}
	return [][]vector.Value{{nodesOK, edgesOK, int64(st.LabelEntries), errors}}, nil
}

// contentHash is the row of quiver.storage.contentHash() at the latest
// durable version: its content hash without ids (hash) and with them
// (id_hash), in hex (storage/contenthash.go).
func (db *Source) contentHash(ctx context.Context) ([][]vector.Value, error) {
	h, err := db.Store.Snapshot().ContentHash(db.Store.Catalog(), func() error { return errs.Stopped(ctx) })
	if err != nil {
		if stopErr := errs.Stopped(ctx); stopErr != nil {
			return nil, stopErr
		}
		return nil, errs.Internal("cannot hash the graph: %v", err)
	}
	return [][]vector.Value{{hex.EncodeToString(h.Content[:]), hex.EncodeToString(h.Identity[:]), h.Nodes, h.Rels}}, nil
}
