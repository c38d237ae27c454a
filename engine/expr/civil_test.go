package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/temporal"
)

// TestCivil checks civil, civilYear and daysOf against the temporal package's
// conversions over every day of years -10 to 10,000, the ends of their
// fast range and random day numbers up to the extremes, and the fields
// and truncations built on them against the general ones.
func TestCivil(t *testing.T) {
	lo, hi := temporal.DaysFromCivil(-10, 1, 1), temporal.DaysFromCivil(10000, 1, 1)
	days := []int64{math.MinInt64 / 2, math.MaxInt64 / 2, -civilEpoch - 1, -civilEpoch, -civilEpoch + 1,
		civilSpan - civilEpoch - 1, civilSpan - civilEpoch, civilSpan - civilEpoch + 1}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		days = append(days, rng.Int64N(1<<44)-1<<43)
	}
	check := func(x int64) {
		y, m, d := civil(x)
		wy, wm, wd := temporal.CivilFromDays(x)
		if y != wy || m != wm || d != wd {
			t.Fatalf("civil(%d) = %d-%d-%d, want %d-%d-%d", x, y, m, d, wy, wm, wd)
		}
		if got := civilYear(x); got != wy {
			t.Fatalf("civilYear(%d) = %d, want %d", x, got, wy)
		}
		if got := daysOf(y, m, d); got != x {
			t.Fatalf("daysOf(%d, %d, %d) = %d, want %d", y, m, d, got, x)
		}
		for _, key := range []string{"year", "month", "day", "quarter"} {
			if got, want := civilField(key)(temporal.Date{Days: x}), functions.DateField(key)(temporal.Date{Days: x}); got != want {
				t.Fatalf("%s of %d: %d, want %d", key, x, got, want)
			}
		}
		for _, unit := range []string{"year", "quarter", "month", "week", "day"} {
			want, _ := functions.TruncateDate(unit, temporal.Date{Days: x})
			if got := truncateDays(unit)(x); got != want.Days {
				t.Fatalf("%s of %d: %d, want %d", unit, x, got, want.Days)
			}
		}
	}
	for x := lo; x <= hi; x++ {
		check(x)
	}
	for _, x := range days {
		check(x)
	}
}
