package rowstore

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
		var c Column
		for _, x := range vals {
			c.PushValue(x)
		}
		// Emitted a batch at a time, as operators do (two rows a batch
		// under the batch2 tag).
		for from := 0; from < c.N; from += vector.Capacity {
			n := min(vector.Capacity, c.N-from)
			out := c.Emit(nil, from, n)
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
	var mixed Column
	for _, x := range []vector.Value{nil, "a"} {
		mixed.PushValue(x)
	}
	if out := mixed.Emit(nil, 0, mixed.N); out.Type != vector.String || out.Get(0) != nil || out.Get(1) != "a" {
		t.Fatalf("column of a null and a string: %s %v %v", out.Type, out.Get(0), out.Get(1))
	}
	mixed.PushValue(int64(1))
	if out := mixed.Emit(nil, 1, 2); out.Type != vector.Any || out.Get(0) != "a" || out.Get(1) != int64(1) {
		t.Fatalf("column of a string and an integer: %s %v %v", out.Type, out.Get(0), out.Get(1))
	}
	var nulls Column
	nulls.PushValue(nil)
	nulls.PushValue(nil)
	if out := nulls.Emit(nil, 0, nulls.N); out.Type != vector.Any || !out.IsNull(0) || !out.IsNull(1) {
		t.Fatalf("column of nulls: %s", out.Type)
	}
}

func TestColumnGeneralises(t *testing.T) {
	var c Column
	c.PushValue(int64(1))
	c.PushValue(nil)
	c.PushValue("x")
	c.PushValue(int64(3))
	if c.V.Type != vector.Any {
		t.Fatalf("mixed column stayed %s", c.V.Type)
	}
	want := []vector.Value{int64(1), nil, "x", int64(3)}
	for i, w := range want {
		if got := c.get(i); got != w {
			t.Errorf("row %d = %#v, want %#v", i, got, w)
		}
	}
	var typed Column
	for i := 0; i < 130; i++ {
		if i%65 == 3 {
			typed.PushValue(nil)
		} else {
			typed.PushValue(int64(i))
		}
	}
	if typed.V.Type != vector.Int64 {
		t.Fatalf("homogeneous column became %s", typed.V.Type)
	}
	for i := 0; i < 130; i++ {
		got := typed.get(i)
		if i%65 == 3 {
			if got != nil {
				t.Errorf("row %d = %v, want null", i, got)
			}
		} else if got != int64(i) {
			t.Errorf("row %d = %v, want %d", i, got, i)
		}
	}
}
