package inttable

import "github.com/quiverdb/quiver/vector"

// The hash aggregate groups a single key that is a node or an integer in
// a table of its own: these read a row as such a key. A node is read
// whether its vector is typed Node or generic, and so is an integer, so
// that no group is split between a table and the byte-keyed map.

// NodeKey reads row r of v as a node key, if it is one.
func NodeKey(v *vector.Vector, r int) (int64, bool) {
	if v.IsNull(r) {
		return 0, false
	}
	switch v.Type {
	case vector.Node:
		return int64(v.IDs[r]), true
	case vector.Any:
		x, ok := v.Any[r].(vector.NodeRef)
		return int64(x), ok
	}
	return 0, false
}

// IntKey reads row r of v as an integer key, if it is one.
func IntKey(v *vector.Vector, r int) (int64, bool) {
	if v.IsNull(r) {
		return 0, false
	}
	switch v.Type {
	case vector.Int64:
		return v.I64[r], true
	case vector.Any:
		x, ok := v.Any[r].(int64)
		return x, ok
	}
	return 0, false
}
