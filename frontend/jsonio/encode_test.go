package jsonio

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// fakeEntities resolves a fixed graph: node 1 (:A {x: 1}), node 2 (),
// relationship 7 of type R from 1 to 2 with {w: 'q'}.
type fakeEntities struct{}

func (fakeEntities) NodeLabels(dst []string, id uint64) []string {
	if id == 1 {
		return append(dst, "A")
	}
	return dst
}
func (fakeEntities) NodeProperties(id uint64, fn func(string, vector.Value)) {
	if id == 1 {
		fn("x", int64(1))
	}
}
func (fakeEntities) Relationship(id uint64) (string, uint64, uint64) { return "R", 1, 2 }
func (fakeEntities) RelationshipProperties(id uint64, fn func(string, vector.Value)) {
	fn("w", "q")
}

func TestEncodeBatchTypesNullsAndSelection(t *testing.T) {
	n := 3
	if vector.Capacity < 3 {
		t.Skip("needs a batch of 3 rows") // batch2 runs cover the same code with other tests
	}
	b := &vector.Batch{Len: n, Sel: []int32{0, 2}}
	cols := []*vector.Vector{
		vector.New(vector.Bool, n), vector.New(vector.Int64, n), vector.New(vector.Float64, n),
		vector.New(vector.String, n), vector.New(vector.Node, n), vector.New(vector.Rel, n), vector.New(vector.Any, n),
		vector.New(vector.Null, n),
	}
	cols[0].Bools[0] = true
	cols[1].I64[0], cols[1].I64[2] = -5, 1<<60
	cols[2].F64[0] = 3
	cols[3].Str[0] = "s"
	cols[4].IDs[0] = 1
	cols[5].IDs[0] = 7
	cols[6].Any[0] = []vector.Value{int64(1), nil, map[string]vector.Value{"b": 2.5, "a": "x"}, vector.NodeRef(2)}
	cols[6].Any[2] = vector.Path{Nodes: []uint64{1, 2}, Rels: []uint64{7}}
	for _, c := range cols[:6] {
		c.SetNull(2)
	}
	b.Cols = cols
	names := []string{"b", "i", "f", "s", "n", "r", "v", "z"}
	keys := make([][]byte, len(names))
	for i, nm := range names {
		keys[i] = append(AppendString(nil, nm), ':')
	}
	enc := &Encoder{Ents: fakeEntities{}}
	out, _ := enc.AppendRows(nil, b, keys, true)
	want := `{"b":true,"i":-5,"f":3.0,"s":"s","n":{"id":1,"labels":["A"],"properties":{"x":1}},` +
		`"r":{"id":7,"type":"R","start":1,"end":2,"properties":{"w":"q"}},` +
		`"v":[1,null,{"a":"x","b":2.5},{"id":2,"labels":[],"properties":{}}],"z":null},` +
		`{"b":null,"i":null,"f":null,"s":null,"n":null,"r":null,` +
		`"v":{"nodes":[{"id":1,"labels":["A"],"properties":{"x":1}},{"id":2,"labels":[],"properties":{}}],"relationships":[{"id":7,"type":"R","start":1,"end":2,"properties":{"w":"q"}}]},"z":null}`
	if string(out) != want {
		t.Errorf("rows:\n%s\nwant:\n%s", out, want)
	}
	if !json.Valid([]byte("[" + string(out) + "]")) {
		t.Error("rows are not valid JSON")
	}
}

// Values as deep as the engine builds them are written whole; a deeper
// one (a bug) is cut with null rather than overflowing the stack.
func TestEncodeDeepNestingStaysBounded(t *testing.T) {
	nest := func(n int) vector.Value {
		var v vector.Value = int64(1)
		for i := 0; i < n; i++ {
			v = []vector.Value{v}
		}
		return v
	}
	enc := &Encoder{Ents: fakeEntities{}}
	out := enc.AppendValue(nil, nest(vector.MaxValueDepth+1), 0)
	if !json.Valid(out) || strings.Contains(string(out), "null") || !strings.Contains(string(out), "1") {
		t.Errorf("a value at the depth limit encoded as %.60s…", out)
	}
	out = enc.AppendValue(nil, nest(10*vector.MaxValueDepth), 0)
	if !json.Valid(out) || !strings.Contains(string(out), "null") {
		t.Errorf("a value past any depth the engine builds encoded as %.60s…", out)
	}
}

func TestEncodeTemporalAsISOStrings(t *testing.T) {
	d, _ := temporal.MakeDate(2015, 7, 21)
	dur, _ := temporal.ParseDuration("P14DT16H12M")
	dt, _ := temporal.ParseDateTime("2015-07-21T21:40:32.142+01:00")
	enc := &Encoder{Ents: fakeEntities{}}
	out := enc.AppendValue(nil, []vector.Value{d, dur, dt, temporal.Time{Nanos: 3600e9, Offset: -5400}}, 0)
	want := `["2015-07-21","P14DT16H12M","2015-07-21T21:40:32.142+01:00","01:00-01:30"]`
	if string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
}
