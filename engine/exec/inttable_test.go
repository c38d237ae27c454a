package exec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIntTable checks the table against a map over keys that collide in
// their low bits, the extremes and zero, across several growths.
func TestIntTable(t *testing.T) {
	var tab intTable
	want := map[int64]int32{}
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []int64{0, -1, 1, math.MinInt64, math.MaxInt64}
	for i := range 20000 {
		keys = append(keys, int64(i)<<20, rng.Int64N(5000)-2500)
	}
	// Large keys first land in the hashed part, then the dense array
	// grows over them as groups accumulate.
	for i := range 300000 {
		keys = append(keys, int64(300000-i), int64(i)*3)
	}
	for _, k := range keys {
		cell := tab.ref(k)
		got, found := *cell-1, *cell != 0
		g, ok := want[k]
		if found != ok || (ok && got != g) {
			t.Fatalf("key %d: got (%d, %v), want (%d, %v)", k, got, found, g, ok)
		}
		if !ok {
			want[k] = int32(len(want))
			*cell = want[k] + 1
		}
	}
	if tab.total != len(want) {
		t.Fatalf("%d entries, want %d", tab.total, len(want))
	}
	if len(tab.dense) < 900000 || tab.n == 0 {
		t.Fatalf("dense array of %d, %d hashed keys: both parts should be in use", len(tab.dense), tab.n)
	}
	for k, g := range want {
		if cell := tab.ref(k); *cell-1 != g {
			t.Fatalf("key %d lost after growth", k)
		}
	}
}
