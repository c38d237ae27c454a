package expr

import (
	"math/rand/v2"
	"testing"
)

// TestPackBools checks the eight-at-a-time conversions against a row at
// a time, for every length up to a word and random contents.
func TestPackBools(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	for n := 0; n <= 64; n++ {
		for range 50 {
			b := make([]bool, n)
			var want uint64
			for i := range b {
				b[i] = rng.IntN(2) == 1
				if b[i] {
					want |= 1 << i
				}
			}
			if got := packBools(b); got != want {
				t.Fatalf("packBools(%v) = %#x, want %#x", b, got, want)
			}
			w := rng.Uint64()
			unpackBools(b, w)
			for i, x := range b {
				if x != (w>>i&1 == 1) {
					t.Fatalf("unpackBools(%#x) row %d = %v", w, i, x)
				}
				if y := boolBytes(b)[i]; y > 1 {
					t.Fatalf("unpackBools(%#x) row %d holds byte %d", w, i, y)
				}
			}
		}
	}
}

// TestBoolWords checks the word-at-a-time AND, OR, XOR and NOT against
// the operators, for every length up to 70 rows.
func TestBoolWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 30))
	for n := 0; n <= 70; n++ {
		a, b, got := make([]bool, n), make([]bool, n), make([]bool, n)
		for i := range a {
			a[i], b[i] = rng.IntN(2) == 1, rng.IntN(2) == 1
		}
		ops := []struct {
			name string
			f    func(dst, src []bool)
			want func(x, y bool) bool
		}{
			{"and", andBools, func(x, y bool) bool { return x && y }},
			{"or", orBools, func(x, y bool) bool { return x || y }},
			{"xor", xorBools, func(x, y bool) bool { return x != y }},
			{"not", notBools, func(_, y bool) bool { return !y }},
		}
		for _, op := range ops {
			copy(got, a)
			op.f(got, b)
			for i := range got {
				if got[i] != op.want(a[i], b[i]) || boolBytes(got)[i] > 1 {
					t.Fatalf("%s over %d rows: row %d = %v (byte %d)", op.name, n, i, got[i], boolBytes(got)[i])
				}
			}
		}
	}
}
