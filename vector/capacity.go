//go:build !batch2

package vector

// Capacity is the number of rows a Batch holds. Tests rebuild the whole
// engine with the build tag batch2 (Capacity 2) to shake out
// batch-boundary bugs, as Kùzu's CI reruns its suite with tiny vectors.
const Capacity = 1024
