package inttable

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIntTable checks the table against a map over keys that collide in
// their low bits, the extremes and zero, across several growths.
func TestIntTable(t *testing.T) {
	var tab Table
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
		cell := tab.Ref(k)
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
		if cell := tab.Ref(k); *cell-1 != g {
			t.Fatalf("key %d lost after growth", k)
		}
	}
}

// Keys that start high and climb with gaps (the node ids of a label
// loaded after others, some without a group) reach the direct-mapped
// array only a few groups at a time: it must grow geometrically, not by a
// few slots per new group, which copies the whole array each time (S05 on
// the SNB-like data grew it 163 times a query, a third of its time). It
// also stays within its bound of slots per group.
func TestIntTableClimbingKeys(t *testing.T) {
	var tb Table
	const from, n, stride = 160_000, 350_000, 3
	grows, last := 0, 0
	for i := range int64(n) {
		c := tb.Ref(from + stride*i)
		if *c != 0 {
			t.Fatalf("key %d already has group %d", from+stride*i, *c-1)
		}
		*c = int32(i) + 1
		if len(tb.dense) != last {
			grows, last = grows+1, len(tb.dense)
		}
	}
	if grows > 10 { // 41 when it grew only to the bound; 4 now
		t.Errorf("the direct-mapped array grew %d times for %d climbing keys", grows, n)
	}
	if limit := 3 * (denseStart + denseSlack*(n+1)) / 2; len(tb.dense) > limit {
		t.Errorf("direct-mapped array of %d slots for %d groups (limit %d)", len(tb.dense), n, limit)
	}
	for i := range int64(n) {
		if c := tb.Ref(from + stride*i); *c != int32(i)+1 {
			t.Fatalf("key %d: group %d, want %d", from+stride*i, *c-1, i)
		}
	}
	if tb.total != n {
		t.Errorf("total %d, want %d", tb.total, n)
	}
}

// TestEach checks that Each visits every key once with its value, direct
// and hashed, after the array took hashed keys over.
func TestEach(t *testing.T) {
	var tb Table
	want := map[int64]int32{}
	for i, k := range []int64{3, -7, 1 << 40, 70000, 0, 5000000, -1 << 50, 65535} {
		*tb.Ref(k) = int32(i + 1)
		want[k] = int32(i + 1)
	}
	got := map[int64]int32{}
	tb.Each(func(k int64, v int32) {
		if _, dup := got[k]; dup {
			t.Fatalf("key %d visited twice", k)
		}
		got[k] = v
	})
	if len(got) != len(want) || len(got) != tb.Len() {
		t.Fatalf("visited %d keys, want %d (Len %d)", len(got), len(want), tb.Len())
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("key %d: %d, want %d", k, got[k], v)
		}
	}
}

// probes is the slots a Ref of k walks in t's hashed part now.
func (t *Table) probes(k int64) int {
	if len(t.keys) == 0 || uint64(k) < uint64(len(t.dense)) {
		return 0
	}
	mask := uint64(len(t.keys) - 1)
	n := 1
	for i := (uint64(k) * 0x9E3779B97F4A7C15) >> t.shift; t.vals[i] != 0 && t.keys[i] != k; i = (i + 1) & mask {
		n++
	}
	return n
}

// Keys copied from one table into another in the first's order (Each)
// arrive in the order of their hashes. Into a table reserved for them
// they spread as any keys do; into one left to grow they pile up in
// runs that every insertion walks, as they did in the code-set merge.
func TestReserveHashForAnotherTablesKeys(t *testing.T) {
	var src Table
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 50000 {
		*src.Ref(rng.Int64() | 1<<40) = int32(i) + 1
	}
	// fill copies src's keys and returns the slots the Refs walked,
	// per key.
	fill := func(reserve bool) float64 {
		var dst Table
		*dst.Ref(1 << 50) = 1
		if reserve {
			dst.ReserveHash(src.Len())
		}
		walked := 0
		src.Each(func(k int64, _ int32) {
			walked += dst.probes(k)
			if c := dst.Ref(k); *c == 0 {
				*c = 1
			}
		})
		if dst.Len() != src.Len()+1 {
			t.Fatalf("%d keys, want %d", dst.Len(), src.Len()+1)
		}
		return float64(walked) / float64(src.Len())
	}
	reserved, grown := fill(true), fill(false)
	t.Logf("slots walked per key: %.2f reserved, %.2f left to grow", reserved, grown)
	if p := reserved; p > 2 {
		t.Errorf("reserved: %.1f slots walked per key", p)
	}
	// The hazard the reservation avoids, shown on the same keys.
	if p := grown; p < 20 {
		t.Errorf("left to grow: %.1f slots walked per key, want the pile-up the test stands for", p)
	}
}
