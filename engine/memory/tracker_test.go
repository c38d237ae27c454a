package memory

import (
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// The tracker fails past its limit with 53200, and estimates typed
// columns by width and strings by their bytes.
func TestMemTracker(t *testing.T) {
	m := Tracker{Limit: 100}
	if err := m.Charge(100); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	err := m.Charge(1)
	e, ok := errs.As(err)
	if !ok || e.Code != errs.CodeOutOfMemory || e.Category != errs.CatResource {
		t.Fatalf("past the limit: %v", err)
	}
	m.Release(50)
	if m.Used() != 51 {
		t.Errorf("used = %d, want 51", m.Used())
	}

	ints := vector.New(vector.Int64, 4)
	strs := vector.New(vector.String, 4)
	strs.Str = []string{"ab", "cdef", "", "x"}
	anys := vector.New(vector.Any, 4)
	anys.Any = []vector.Value{"abc", []vector.Value{int64(1), "z"}, nil, true}
	b := &vector.Batch{Cols: []*vector.Vector{ints, strs, anys}, Len: 4, Sel: []int32{0, 1, 3}}
	// Rows 0, 1, 3: ints 3×8; strings 3×16 + 2+4+1; generic values
	// (size.go): "abc" interface 16 + header 16 + 3; [1, "z"]
	// interface 16 + slice header 24 + two slots 2×16, the boxed 1 8 and
	// the string "z" 16+1; true 16.
	want := int64(3*8 + 3*16 + 7 + (16 + 16 + 3) + (16 + 24 + 2*16 + 8 + 16 + 1) + 16)
	if got := BatchBytes(b); got != want {
		t.Errorf("BatchBytes = %d, want %d", got, want)
	}
}
