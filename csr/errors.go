package csr

import "errors"

// Sentinel errors returned by Check, wrapped with the node or block at fault.
var (
	// ErrOffsets reports offsets that are not monotone or do not end at
	// NumEdges, or block start positions that do not match the data.
	ErrOffsets = errors.New("csr: corrupt offsets")
	// ErrBlock reports a block header or payload that does not decode.
	ErrBlock = errors.New("csr: corrupt block")
	// ErrUnsorted reports a neighbour list not sorted by (Dst, Rel).
	ErrUnsorted = errors.New("csr: unsorted adjacency list")
	// ErrNodeRange reports a neighbour id at or beyond NumNodes.
	ErrNodeRange = errors.New("csr: node id out of range")
	// ErrDuplicateRel reports a relationship id that occupies two live slots.
	ErrDuplicateRel = errors.New("csr: duplicate relationship id")
	// ErrOverlay reports an overlay whose bookkeeping disagrees with its
	// entries (counts, dirty flags, relationship index, deleted ids).
	ErrOverlay = errors.New("csr: corrupt overlay")
)
