package exec

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// A column's type is the type of its values whatever their order: leading
// nulls do not make it generic (a parallel aggregation emits its groups in
// another order than a serial one, and must report the same column type).
func TestColumnTypeIgnoresLeadingNulls(t *testing.T) {
	orders := [][]vector.Value{
		{nil, nil, 1.5, 2.5},
		{1.5, nil, 2.5, nil},
		{2.5, 1.5, nil, nil},
	}
	for _, vals := range orders {
		var c column
		for _, x := range vals {
			c.pushValue(x)
		}
		// Emitted a batch at a time, as operators do (two rows a batch
		// under the batch2 tag).
		for from := 0; from < c.n; from += vector.Capacity {
			n := min(vector.Capacity, c.n-from)
			out := c.emit(nil, from, n)
			if out.Type != vector.Float64 {
				t.Fatalf("%v: column type %s, want FLOAT", vals, out.Type)
			}
			for i := range n {
				if got, want := out.Get(i), vals[from+i]; got != want {
					t.Fatalf("%v: row %d is %v, want %v", vals, from+i, got, want)
				}
			}
		}
	}
	var mixed column
	for _, x := range []vector.Value{nil, "a"} {
		mixed.pushValue(x)
	}
	if out := mixed.emit(nil, 0, mixed.n); out.Type != vector.String || out.Get(0) != nil || out.Get(1) != "a" {
		t.Fatalf("column of a null and a string: %s %v %v", out.Type, out.Get(0), out.Get(1))
	}
	mixed.pushValue(int64(1))
	if out := mixed.emit(nil, 1, 2); out.Type != vector.Any || out.Get(0) != "a" || out.Get(1) != int64(1) {
		t.Fatalf("column of a string and an integer: %s %v %v", out.Type, out.Get(0), out.Get(1))
	}
	var nulls column
	nulls.pushValue(nil)
	nulls.pushValue(nil)
	if out := nulls.emit(nil, 0, nulls.n); out.Type != vector.Any || !out.IsNull(0) || !out.IsNull(1) {
		t.Fatalf("column of nulls: %s", out.Type)
	}
}
