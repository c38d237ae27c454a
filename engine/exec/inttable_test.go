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
	for _, k := range keys {
		i := tab.slot(k)
		got, found := tab.vals[i]-1, tab.vals[i] != 0
		g, ok := want[k]
		if found != ok || (ok && got != g) {
			t.Fatalf("key %d: got (%d, %v), want (%d, %v)", k, got, found, g, ok)
		}
		if !ok {
			want[k] = int32(len(want))
			tab.put(i, k, want[k])
		}
	}
	if tab.n != len(want) {
		t.Fatalf("%d entries, want %d", tab.n, len(want))
	}
	for k, g := range want {
		if i := tab.slot(k); tab.vals[i]-1 != g || tab.keys[i] != k {
			t.Fatalf("key %d lost after growth", k)
		}
	}
}
