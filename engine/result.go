package engine

import (
	"time"

	"github.com/quiverdb/quiver/engine/exec"
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
type WriteCounts = exec.Writes

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
