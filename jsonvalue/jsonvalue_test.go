package jsonvalue

import (
	"testing"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// graph is two nodes and a relationship whose properties come in the
// storage's order, not by name.
type graph struct{}

func (graph) NodeLabels(dst []string, id uint64) []string { return append(dst, "P", "Q") }
func (graph) NodeProperties(id uint64, fn func(string, vector.Value)) {
	fn("name", "n"+string(rune('0'+id)))
	fn("age", int64(40+id))
}
func (graph) Relationship(id uint64) (string, uint64, uint64) { return "KNOWS", 1, 2 }
func (graph) RelationshipProperties(id uint64, fn func(string, vector.Value)) {
	fn("w", 0.5)
	fn("since", temporal.Date{Days: 0})
}

func TestValues(t *testing.T) {
	for _, c := range []struct {
		sorted bool
		v      vector.Value
		want   string
	}{
		{false, []vector.Value{nil, true, int64(-3), 2.0, "a\"b", map[string]vector.Value{"z": int64(1), "a": "x"}},
			`[null,true,-3,2.0,"a\"b",{"a":"x","z":1}]`},
		{false, temporal.Date{Days: 1}, `"1970-01-02"`},
		{false, vector.NodeRef(1), `{"id":1,"labels":["P","Q"],"properties":{"name":"n1","age":41}}`},
		{true, vector.NodeRef(1), `{"id":1,"labels":["P","Q"],"properties":{"age":41,"name":"n1"}}`},
		{true, vector.RelRef(7), `{"id":7,"type":"KNOWS","start":1,"end":2,"properties":{"since":"1970-01-01","w":0.5}}`},
		{false, vector.Path{Nodes: []uint64{1, 2}, Rels: []uint64{7}},
			`{"nodes":[{"id":1,"labels":["P","Q"],"properties":{"name":"n1","age":41}},{"id":2,"labels":["P","Q"],"properties":{"name":"n2","age":42}}],` +
				`"relationships":[{"id":7,"type":"KNOWS","start":1,"end":2,"properties":{"w":0.5,"since":"1970-01-01"}}]}`},
	} {
		e := Encoder{Ents: graph{}, SortProperties: c.sorted}
		if got := string(e.AppendValue(nil, c.v, 0)); got != c.want {
			t.Errorf("%v (sorted %v):\n got %s\nwant %s", c.v, c.sorted, got, c.want)
		}
	}
}

// TestNestingBound: a value nested past MaxNesting is cut to null
// rather than recursing further.
func TestNestingBound(t *testing.T) {
	var v vector.Value = int64(1)
	for i := 0; i <= MaxNesting; i++ {
		v = []vector.Value{v}
	}
	got := string((&Encoder{}).AppendValue(nil, v, 0))
	want := ""
	for i := 0; i <= MaxNesting; i++ {
		want += "["
	}
	want += "null"
	for i := 0; i <= MaxNesting; i++ {
		want += "]"
	}
	if got != want {
		t.Fatalf("got %s", got)
	}
}
