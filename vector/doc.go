// Package vector owns Quiver's in-memory columnar currency: typed column
// vectors with validity bitmaps, selection vectors, batches of up to
// Capacity rows, and conversion to and from Apache Arrow arrays.
//
// Every operator of the execution engine consumes and produces Batches.
// Kernels switch on a vector's Type once and then run a tight loop over the
// typed slice, so the hot path never calls through an interface or
// allocates per value. Values that have no typed slice of their own (lists,
// maps, paths, mixed columns) live in the generic Any slice; that is the
// slow path by design.
//
// vector imports nothing of Quiver and knows nothing of graphs beyond the
// fact that node and relationship identifiers are unsigned integers.
package vector
