package expr

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// TestBoxAll checks that strings boxed into one array read back as
// the strings they are, compare and hash as the runtime's own boxes do,
// and outlive the array's last direct reference through a collection.
func TestBoxAll(t *testing.T) {
	want := []string{"", "a", "é", strings.Repeat("x", 100), "a"}
	boxed := func() []vector.Value {
		strs := make([]string, len(want))
		for i, s := range want {
			strs[i] = strings.Clone(s)
		}
		out := make([]vector.Value, len(strs))
		boxAll(out, strs)
		return out
	}()
	runtime.GC()
	runtime.GC()
	seen := map[vector.Value]int{}
	for i, v := range boxed {
		s, ok := v.(string)
		if !ok || s != want[i] {
			t.Fatalf("row %d: %#v, want %q", i, v, want[i])
		}
		if v != vector.Value(want[i]) || !reflect.DeepEqual(v, vector.Value(want[i])) {
			t.Fatalf("row %d: %#v does not equal the runtime's box of %q", i, v, want[i])
		}
		seen[v]++
	}
	if seen["a"] != 2 || len(seen) != 4 {
		t.Fatalf("as map keys: %v", seen)
	}
}

// TestBoxAllLists checks lists boxed into one array the same way.
func TestBoxAllLists(t *testing.T) {
	want := [][]vector.Value{nil, {}, {"a", int64(1)}, {"b"}}
	boxed := func() []vector.Value {
		lists := make([][]vector.Value, len(want))
		for i, l := range want {
			if l != nil {
				lists[i] = append([]vector.Value{}, l...)
			}
		}
		out := make([]vector.Value, len(lists))
		boxAll(out, lists)
		return out
	}()
	runtime.GC()
	for i, v := range boxed {
		l, ok := v.([]vector.Value)
		if !ok || !reflect.DeepEqual(l, want[i]) || (l == nil) != (want[i] == nil) {
			t.Fatalf("row %d: %#v, want %#v", i, v, want[i])
		}
	}
}
