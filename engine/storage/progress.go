package storage

// The phases the storage layer tells a progress.Tracker, in order. A bulk
// load (BulkLoadProgress) stores the node properties (items: values) and
// builds each relationship type's adjacency (items: relationships, a
// quarter of a type's at the end of each of its four steps: the sort,
// its properties, both CSRs, the relationship table). Writing a base (a checkpoint, or the end
// of an import) compacts the adjacencies that have changes (items:
// adjacencies; a phase only when there is one) and writes the files
// (items: files; bytes: compressed bytes written, no total known in
// advance).
const (
	PhaseStoreNodeProperties = "storing node properties"
	PhaseBuildAdjacency      = "building adjacency"
	PhaseCompactAdjacency    = "compacting adjacency"
	PhaseWriteFiles          = "writing files"
)
