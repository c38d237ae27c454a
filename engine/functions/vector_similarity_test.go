package functions

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

func list(xs ...vector.Value) []vector.Value { return xs }

func TestVectorSimilarity(t *testing.T) {
	cos, _ := Lookup("vector.similarity.cosine")
	euc, _ := Lookup("vector.similarity.euclidean")
	for _, c := range []struct {
		f    *Func
		a, b vector.Value
		want vector.Value
	}{
		{cos, list(1.0, 0.0), list(int64(2), int64(0)), 1.0},
		{cos, list(1.0, 0.0), list(-1.0, 0.0), 0.0},
		{cos, list(1.0, 0.0), list(0.0, 3.0), 0.5},
		{cos, list(0.0, 0.0), list(0.0, 3.0), nil}, // undefined for a zero vector
		{cos, nil, list(1.0), nil},
		{euc, list(1.0, 2.0), list(1.0, 2.0), 1.0},
		{euc, list(0.0, 0.0), list(int64(3), int64(4)), 1.0 / 26},
		{euc, list(1.0), nil, nil},
	} {
		got, err := c.f.Kernel(nil, []vector.Value{c.a, c.b})
		if err != nil {
			t.Fatalf("%s(%v, %v): %v", c.f.Name, c.a, c.b, err)
		}
		if g, ok := got.(float64); ok && c.want != nil {
			if math.Abs(g-c.want.(float64)) > 1e-12 {
				t.Errorf("%s(%v, %v) = %v, want %v", c.f.Name, c.a, c.b, got, c.want)
			}
		} else if got != c.want {
			t.Errorf("%s(%v, %v) = %v, want %v", c.f.Name, c.a, c.b, got, c.want)
		}
	}
	for _, bad := range [][2]vector.Value{
		{list(1.0, 2.0), list(1.0)},             // dimension mismatch
		{list(1.0, "x"), list(1.0, 2.0)},        // non-numeric element
		{list(1.0, nil), list(1.0, 2.0)},        // null element
		{list(1.0, math.NaN()), list(1.0, 2.0)}, // non-finite element
		{list(), list()},                        // empty
		{"abc", list(1.0)},                      // not a list
	} {
		for _, f := range []*Func{cos, euc} {
			_, err := f.Kernel(nil, bad[:])
			e, ok := errs.As(err)
			if !ok || e.Code != errs.CodeData {
				t.Errorf("%s(%v, %v): error %v, want code %s", f.Name, bad[0], bad[1], err, errs.CodeData)
			}
		}
	}
}
