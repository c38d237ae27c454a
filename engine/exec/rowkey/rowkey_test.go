package rowkey

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Grouping keys of temporal values: DISTINCT keeps one instant at two
// offsets apart (they render differently) and equal dates together.
func TestTemporalGroupingKeys(t *testing.T) {
	at := func(s string) temporal.DateTime {
		dt, err := temporal.ParseDateTime(s)
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	a, b := at("2015-07-21T21:40:32+01:00"), at("2015-07-21T20:40:32Z")
	if string(AppendValue(nil, a)) == string(AppendValue(nil, b)) {
		t.Error("grouping keys of different offsets collide")
	}
	d1, d2 := temporal.Date{Days: 1}, temporal.Date{Days: 1}
	if string(AppendValue(nil, d1)) != string(AppendValue(nil, d2)) {
		t.Error("equal dates have different keys")
	}
}

func TestRowKeysDistinguishTypes(t *testing.T) {
	vals := []vector.Value{nil, false, true, int64(0), int64(1), 0.0, 1.0, "", "1", vector.NodeRef(1), vector.RelRef(1),
		[]vector.Value{}, []vector.Value{int64(1)}, []vector.Value{"1"}, map[string]vector.Value{}, map[string]vector.Value{"a": nil},
		vector.Path{Nodes: []uint64{1}}}
	seen := map[string]vector.Value{}
	for _, v := range vals {
		k := string(AppendValue(nil, v))
		if prev, dup := seen[k]; dup {
			t.Errorf("%#v and %#v share a row key", prev, v)
		}
		seen[k] = v
	}
	// Two strings whose concatenations collide without length prefixes.
	a := append(AppendValue(nil, "ab"), AppendValue(nil, "c")...)
	b := append(AppendValue(nil, "a"), AppendValue(nil, "bc")...)
	if string(a) == string(b) {
		t.Error("string keys are ambiguous across columns")
	}
	if string(appendFloat(nil, 0)) != string(appendFloat(nil, math.Copysign(0, -1))) {
		t.Error("-0 and 0 group apart")
	}
}
