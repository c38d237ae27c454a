// Package vectorindex owns nearest-neighbour search over dense vectors:
// the similarity metrics of VECTOR indexes, the exact (brute-force) top-k
// search over a column of vectors, run in parallel morsels with a heap
// per worker, and an HNSW index of its own (dense int32 slots, flat
// neighbour rows, the neighbour-selection heuristic, a parallel build;
// search with ef, delete and update as tombstones, save, load, filtered
// search inside the graph walk).
//
// The HNSW Index, the metrics and the exact search know nothing of
// transactions or the catalog. The VECTOR index kind of the engine's
// secondary-index framework (engine/index) is built on them: kind.go
// vets CREATE VECTOR INDEX's options, apply.go populates an Index from a
// snapshot and keeps it from commits with a log of the nodes each commit
// touched, search_tx.go answers at a transaction's snapshot (the nodes
// changed since and the transaction's own writes scored exactly, every
// hit re-read from the snapshot), budget.go charges the graph to the
// server's memory budget. The search procedures (procs.go,
// procs_index.go) read a storage transaction: by index name, or exactly
// over 'Label.property'.
package vectorindex
