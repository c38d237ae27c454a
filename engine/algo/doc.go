// Package algo owns the graph algorithms the algo.* procedures run: BFS,
// SSSP (delta-stepping), Dijkstra with paths, WCC, PageRank, CDLP and LCC,
// with LDBC Graphalytics semantics (docs/algorithms.md).
//
// Every algorithm works on a Graph: a dense, read-only projection of one
// storage snapshot (live nodes passing a label filter, renumbered 0..n-1 in
// node id order; relationships of the selected types in the chosen
// direction, the delta overlay included) held as uint32 offset and
// neighbour arrays, so hot loops index typed slices and never call through
// an interface. Project builds it in parallel from the per-type CSRs.
//
// A Run carries what a statement imposes on an algorithm: the stop check
// (deadline, cancellation), the memory accountant every array is charged
// to before it is allocated, and the number of workers. Results never
// depend on the number of workers.
//
// The algo.* procedures are registered from here too (RegisterProcedures,
// procs*.go): each reads its configuration map, projects the calling
// query's snapshot (through the database's projection cache), runs its
// algorithm and streams the result as typed columns.
package algo
