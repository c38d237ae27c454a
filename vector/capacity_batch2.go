//go:build batch2

package vector

// Capacity is 2 under the batch2 build tag: every operator then crosses a
// batch boundary on almost every row, which is where off-by-one bugs hide.
const Capacity = 2
