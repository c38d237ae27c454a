package engine

import (
	"context"
	"os"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The storage procedures (docs/durability.md, "Storage procedures"):
// CALL quiver.storage.stats() and CALL quiver.storage.integrity().
//
// Quiver has no fixed-size pages. In the free_pages_* columns a page is
// a group of storage.GroupSize ids, the unit of property chunks and of
// the relationship table; page_size is the operating system's page, the
// unit in which base and log files are cached and synced.
//
// stats takes the spec's optional graph name. A server holds one graph,
// named GraphName; null or that name reads it, any other is 42S02.

// GraphName is the name of the one graph a Quiver server holds.
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

func (db *DB) registerStorageProcedures() {
	must := func(err error) {
		if err != nil {
			panic("BUG: engine: storage procedure: " + err.Error())
		}
	}
	must(db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.storage.stats",
		Inputs: []procs.Field{{Name: "graph", Type: "STRING", Optional: true}}, Outputs: storageStatsFields, Requires: procs.PrivRead},
		Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
			if g, ok := args[0].(string); ok && g != GraphName {
				return nil, errs.New(errs.CodeNoObject, errs.CatNoObject,
					"graph %q does not exist: this server holds one graph, named %q", g, GraphName)
			}
			return db.storageStats(), nil
		}}))
	must(db.procs.Register(&procs.Procedure{Signature: procs.Signature{Name: "quiver.storage.integrity", Outputs: storageIntegrityFields,
		// Admin only: it reads every record of the store.
		Requires: procs.PrivAdmin},
		Fn: func(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) { return db.storageIntegrity(c.Ctx) }}))
}

// storageStats is the row of quiver.storage.stats() at the latest
// durable version.
func (db *DB) storageStats() [][]vector.Value {
	st := db.store.Snapshot().Stats()
	d := db.Durability()
	deadNodes := int64(st.NodeBound) - st.Nodes
	deadRels := int64(st.RelBound) - st.Rels
	pages := func(slots int64) int64 { return slots / storage.GroupSize }
	return [][]vector.Value{{
		st.Nodes, st.Rels, int64(st.Labels),
		int64(storage.FormatVersion), int64(os.Getpagesize()),
		int64(d.WALLSN), int64(d.LastCheckpointLSN),
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
func (db *DB) storageIntegrity(ctx context.Context) ([][]vector.Value, error) {
	snap := db.store.Snapshot()
	st := snap.Stats()
	nodesOK := int64(snap.LiveNodes().GetCardinality()) == st.Nodes
	edgesOK := st.LiveRels == st.Rels && st.AdjacencyEdges[0] == st.Rels && st.AdjacencyEdges[1] == st.Rels
	errors := int64(0)
	for _, ok := range []bool{nodesOK, edgesOK} {
		if !ok {
			errors++
		}
	}
	if err := snap.CheckInterruptible(func() error { return stopped(ctx) }); err != nil {
		if stopErr := stopped(ctx); stopErr != nil {
			return nil, stopErr
		}
		db.log.Error("the storage integrity check found an error", "err", err)
		errors++
	}
	return [][]vector.Value{{nodesOK, edgesOK, int64(st.LabelEntries), errors}}, nil
}
