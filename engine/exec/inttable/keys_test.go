package inttable

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// TestKeys reads integers and nodes as keys from typed and generic
// vectors, and nothing else: a null, a relationship, a float, a string,
// or a node where an integer is asked for (node 5 and 5 are two groups).
func TestKeys(t *testing.T) {
	ints := vector.New(vector.Int64, 2)
	ints.I64[0] = -7
	ints.SetNull(1)
	nodes := vector.New(vector.Node, 1)
	nodes.IDs[0] = 5
	rels := vector.New(vector.Rel, 1)
	rels.IDs[0] = 5
	anys := vector.New(vector.Any, 4)
	anys.Any[0], anys.Any[1], anys.Any[2], anys.Any[3] = int64(9), vector.NodeRef(3), 2.5, "x"
	for _, c := range []struct {
		name      string
		v         *vector.Vector
		r         int
		int, node int64
		isInt     bool
		isNode    bool
	}{
		{"typed integer", ints, 0, -7, 0, true, false},
		{"null", ints, 1, 0, 0, false, false},
		{"typed node", nodes, 0, 0, 5, false, true},
		{"relationship", rels, 0, 0, 0, false, false},
		{"generic integer", anys, 0, 9, 0, true, false},
		{"generic node", anys, 1, 0, 3, false, true},
		{"float", anys, 2, 0, 0, false, false},
		{"string", anys, 3, 0, 0, false, false},
	} {
		if x, ok := IntKey(c.v, c.r); ok != c.isInt || ok && x != c.int {
			t.Errorf("%s: IntKey = %d, %v", c.name, x, ok)
		}
		if x, ok := NodeKey(c.v, c.r); ok != c.isNode || ok && x != c.node {
			t.Errorf("%s: NodeKey = %d, %v", c.name, x, ok)
		}
	}
}
