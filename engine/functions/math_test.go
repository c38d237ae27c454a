package functions

import "testing"

// Expected values follow Java's BigDecimal rounding of the decimal a
// double prints as, which Cypher's round(x, precision, mode) uses.
func TestRoundDecimal(t *testing.T) {
	for _, c := range []struct {
		x    float64
		prec int
		mode string
		want float64
	}{
		{2.675, 2, "HALF_UP", 2.68},
		{2.665, 2, "HALF_EVEN", 2.66},
		{2.675, 2, "HALF_EVEN", 2.68},
		{2.675, 2, "HALF_DOWN", 2.67},
		{-2.675, 2, "HALF_UP", -2.68},
		{-2.675, 2, "HALF_DOWN", -2.67},
		{1.21, 1, "UP", 1.3},
		{-1.21, 1, "UP", -1.3},
		{1.29, 1, "DOWN", 1.2},
		{-1.21, 1, "CEILING", -1.2},
		{1.21, 1, "CEILING", 1.3},
		{-1.21, 1, "FLOOR", -1.3},
		{1.5, 0, "HALF_EVEN", 2},
		{2.5, 0, "HALF_EVEN", 2},
		{1250, -2, "HALF_UP", 1300},
		{1250, -2, "HALF_EVEN", 1200},
		{0.1, 3, "HALF_UP", 0.1},
		{1e-20, 2, "HALF_UP", 0},
	} {
		got, err := roundDecimal(c.x, c.prec, c.mode)
		if err != nil {
			t.Fatalf("round(%v, %d, %s): %v", c.x, c.prec, c.mode, err)
		}
		if got != c.want {
			t.Errorf("round(%v, %d, %s) = %v, want %v", c.x, c.prec, c.mode, got, c.want)
		}
	}
	if _, err := roundDecimal(1, 1, "NEAREST"); err == nil {
		t.Error("an unknown mode must fail")
	}
}

func TestSplitAny(t *testing.T) {
	got := splitAny("a,b;;c", []string{",", ";"})
	want := []string{"a", "b", "", "c"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
