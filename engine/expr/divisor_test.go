package expr

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDivisor checks the multiplicative division against Go's / and %
// for small, large, negative and power-of-two divisors and dividends
// from the whole range, its ends included.
func TestDivisor(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 3))
	ds := []int64{math.MaxInt64, math.MinInt64 + 1, math.MaxInt64 - 1, 1 << 62, -(1 << 62), 3037000499, -3037000499, 1<<32 + 1}
	for d := int64(2); d <= 1100; d++ {
		ds = append(ds, d, -d)
	}
	for range 300 {
		ds = append(ds, int64(rng.Uint64()), int64(rng.Uint64()>>uint(rng.IntN(63))))
	}
	ns := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	plain := 0
	for _, d := range ds {
		v, ok := newDivisor(d)
		if ok && v.plain() {
			plain++
		}
		if !ok {
			if d != 0 && d != 1 && d != -1 && d != math.MinInt64 {
				t.Fatalf("newDivisor(%d) refused", d)
			}
			continue
		}
		try := func(n int64) {
			if q := v.quo(n); q != n/d {
				t.Fatalf("%d / %d = %d, want %d", n, d, q, n/d)
			}
			if r := v.rem(n); r != n%d {
				t.Fatalf("%d %% %d = %d, want %d", n, d, r, n%d)
			}
			if !v.plain() {
				return
			}
			if q := v.quoPlain(n); q != n/d {
				t.Fatalf("%d / %d = %d by quoPlain, want %d", n, d, q, n/d)
			}
			if r := v.remPlain(n); r != n%d {
				t.Fatalf("%d %% %d = %d by remPlain, want %d", n, d, r, n%d)
			}
		}
		for _, n := range ns {
			try(n)
			try(n + d/2)
			try(d*3 - 1)
			try(d * 7)
			try(-d * 7)
		}
		for range 200 {
			try(int64(rng.Uint64()))
			try(int64(rng.Uint64() >> uint(rng.IntN(64))))
			try(-int64(rng.Uint64() >> uint(rng.IntN(64))))
		}
	}
	if plain < 500 {
		t.Fatalf("only %d plain divisors", plain)
	}
}
