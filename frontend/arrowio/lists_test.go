package arrowio

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// TestTypedListRefusesAnotherType: an element that is not of the type
// the plan gave the column fails the batch with the engine's bug named,
// never writes a wrong value or panics.
func TestTypedListRefusesAnotherType(t *testing.T) {
	for _, c := range []struct {
		elem string
		v    vector.Value
	}{
		{"INTEGER", []vector.Value{int64(1), "2"}},
		{"FLOAT", []vector.Value{int64(1)}},
		{"STRING", []vector.Value{true}},
		{"BOOLEAN", []vector.Value{[]vector.Value{}}},
		{"INTEGER", "not a list"},
	} {
		v := vector.New(vector.Any, 2)
		v.Any[0], v.Any[1] = []vector.Value{nil}, c.v
		enc := NewEncoder(memory.DefaultAllocator, []engine.Column{{Name: "l", Type: "LIST", Elem: c.elem}}, nil)
		_, err := enc.Record(&vector.Batch{Cols: []*vector.Vector{v}, Len: 2})
		if err == nil || !strings.Contains(err.Error(), "BUG") || !strings.Contains(err.Error(), `column "l"`) {
			t.Errorf("LIST of %s holding %#v: %v", c.elem, c.v, err)
		}
		enc.Release()
	}
}
