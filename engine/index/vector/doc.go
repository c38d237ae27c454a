// Package vectorindex owns nearest-neighbour search over dense vectors:
// the similarity metrics of VECTOR indexes, the exact (brute-force) top-k
// search over a column of vectors, run in parallel morsels with a heap
// per worker, and an HNSW index of its own (dense int32 slots, flat
// neighbour rows, the neighbour-selection heuristic, a parallel build;
// search with ef, delete and update as tombstones, save, load, filtered
// search inside the graph walk).
//
// It knows nothing of transactions or the catalog: the engine reads a
// snapshot's vectors into a Column and hands the ids back to the plan;
// the VECTOR index's DDL and transactional maintenance belong to the
// engine's secondary-index framework, which drives an Index from here.
// The quiver.vector.search procedure (procs.go) is the one piece that
// reads a storage transaction.
package vectorindex
