package rowstore

import (
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// typedBatch is a batch of one column of type t holding vals (nil:
// null), every other row selected when sparse.
func typedBatch(t vector.Type, sparse bool, vals ...vector.Value) *vector.Batch {
	v := vector.New(t, len(vals))
	for i, x := range vals {
		if x == nil {
			v.SetNull(i)
		} else {
			v.Set(i, x)
		}
	}
	b := &vector.Batch{Cols: []*vector.Vector{v}, Len: len(vals)}
	if sparse {
		for i := 0; i < len(vals); i += 2 {
			b.Sel = append(b.Sel, int32(i))
		}
	}
	return b
}

// A sort's chunks join into the column push would have built from the
// same rows: the same type (typed while every value has one, generic
// when they differ, no type while all are null, leading nulls waiting
// for the first value's) and the same values.
func TestRowChunksJoinAsColumnsPush(t *testing.T) {
	many := make([]vector.Value, 3000) // past a chunk
	for i := range many {
		if i%7 != 0 {
			many[i] = int64(i)
		}
	}
	for _, c := range []struct {
		name    string
		batches []*vector.Batch
	}{
		{"integers", []*vector.Batch{typedBatch(vector.Int64, false, many...)}},
		{"leading nulls", []*vector.Batch{typedBatch(vector.Null, false, nil, nil), typedBatch(vector.String, true, nil, "a", "b", "c")}},
		{"all null", []*vector.Batch{typedBatch(vector.Null, false, nil), typedBatch(vector.Int64, false, nil, nil)}},
		{"mixed", []*vector.Batch{typedBatch(vector.Int64, false, int64(1), nil), typedBatch(vector.String, false, "x"),
			typedBatch(vector.Any, true, 2.5, true, nil, []vector.Value{int64(1)})}},
		{"generic then typed", []*vector.Batch{typedBatch(vector.Any, false, int64(1)), typedBatch(vector.Int64, false, int64(2), nil)}},
		{"nulls in strings", []*vector.Batch{typedBatch(vector.String, false, "a", nil, "c"), typedBatch(vector.String, true, nil, "e", "f")}},
	} {
		m := &memory.Tracker{Limit: 1 << 40}
		var k Chunks
		var want Column
		for _, b := range c.batches {
			if err := k.Add(m, b); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < b.Rows(); i++ {
				want.Push(b.Cols[0], b.Row(i))
			}
		}
		cols, err := k.Columns(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := cols[0]
		if got.N != want.N || got.V.Type != want.V.Type {
			t.Errorf("%s: %d rows of %v, want %d of %v", c.name, got.N, got.V.Type, want.N, want.V.Type)
			continue
		}
		for i := 0; i < got.N; i++ {
			if g, w := fmt.Sprint(got.get(i)), fmt.Sprint(want.get(i)); g != w || got.V.IsNull(i) != want.V.IsNull(i) {
				t.Errorf("%s: row %d is %s, want %s", c.name, i, g, w)
				break
			}
		}
		// What stays charged is the column and its values.
		if used, held := m.Used(), got.CapBytes(); used < held || used > held+memory.PayloadBytes(got.V, nil, got.N)+1024 {
			t.Errorf("%s: %d bytes charged for a column of %d", c.name, used, held)
		}
		k.Release(m)
		if m.Used() != 0 {
			t.Errorf("%s: %d bytes charged after the release", c.name, m.Used())
		}
	}
}
