package vector

import (
	"math"
	"reflect"
	"testing"
)

// TestBoxFloats: the list BoxFloats builds equals the one the compiler
// boxes element by element (same FLOAT elements, including -0, NaN bits
// and infinities), does not alias its input, and takes two allocations
// here (the fast path is the one in use).
func TestBoxFloats(t *testing.T) {
	if !boxFloatsFits {
		t.Fatal("the interface layout check failed: BoxFloats boxes element by element on this platform")
	}
	xs := []float64{1.5, math.Copysign(0, -1), math.Inf(1), math.NaN(), -7e-310, 42}
	got := BoxFloats(xs)
	want := make([]Value, len(xs))
	for i, x := range xs {
		want[i] = x
	}
	for i := range xs {
		f, ok := got[i].(float64)
		if !ok || math.Float64bits(f) != math.Float64bits(xs[i]) {
			t.Fatalf("element %d = %#v, want %v", i, got[i], xs[i])
		}
		if i != 3 && got[i] != want[i] { // NaN is not equal to itself
			t.Fatalf("element %d: %v != %v under ==", i, got[i], want[i])
		}
	}
	if reflect.TypeOf(got[0]) != reflect.TypeOf(1.0) {
		t.Fatalf("element type %v", reflect.TypeOf(got[0]))
	}
	xs[0] = 99
	if got[0] != 1.5 {
		t.Fatal("the list aliases its input")
	}
	if n := testing.AllocsPerRun(100, func() { boxSink = BoxFloats(xs) }); n != 2 {
		t.Fatalf("%v allocations, want 2", n)
	}
	aliased := BoxFloatsAliased(xs)
	if got, ok := aliased[5].(float64); !ok || got != 42 {
		t.Fatalf("aliased element 5 = %#v", aliased[5])
	}
	xs[5] = 43 // the caller's promise broken on purpose: the list shows it
	if aliased[5] != 43.0 {
		t.Fatal("the aliased list copied its elements")
	}
	if n := testing.AllocsPerRun(100, func() { boxSink = BoxFloatsAliased(xs) }); n != 1 {
		t.Fatalf("aliased: %v allocations, want 1", n)
	}
	if len(BoxFloats(nil)) != 0 {
		t.Fatal("an empty input gives a non-empty list")
	}
}

var boxSink []Value
