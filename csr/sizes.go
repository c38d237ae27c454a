//go:build !batch2

package csr

// blockSize is the most neighbour ids one compressed block holds: 128 ids
// keep a hub's per-block header below 1% of its payload while a block's
// frame of reference stays tight enough to pay off.
const blockSize = 128

// groupShift sets the overlay's node group to 1<<groupShift nodes: an Apply
// copies the group table (8 bytes per group) plus one 8 KiB group per
// touched group, so 1024 balances the two for graphs of 1e5..1e9 nodes.
const groupShift = 10
