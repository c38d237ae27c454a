//go:build batch2

package csr

// Under the batch2 build tag blocks and overlay groups shrink so that every
// test list and every Apply crosses their boundaries.
const (
	blockSize  = 3
	groupShift = 1
)
