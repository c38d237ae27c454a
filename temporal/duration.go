package temporal

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Duration is Cypher's DURATION: months, days and seconds kept apart
// because their lengths vary (a month is 28 to 31 days, a day may have a
// DST jump). Nanos is normalised to [0, 1e9), the sign living in Seconds,
// so equal durations have equal fields.
type Duration struct {
	Months  int64
	Days    int64
	Seconds int64
	Nanos   int32
}

// AvgSecondsPerMonth is 365.2425 days / 12, the length java.time and
// Cypher give a fraction of a month.
const AvgSecondsPerMonth = 2629746

// ErrDurationOverflow reports a duration component out of int64 range.
var ErrDurationOverflow = errors.New("duration out of range")

// NewDuration normalises seconds and nanoseconds into a Duration.
func NewDuration(months, days, seconds, nanos int64) Duration {
	seconds += FloorDiv(nanos, NanosPerSecond)
	return Duration{Months: months, Days: days, Seconds: seconds, Nanos: int32(FloorMod(nanos, NanosPerSecond))}
}

// DurationBuilder sums duration components that may be fractional, the
// way Cypher builds durations from maps and strings: a fraction of a month
// becomes average-length seconds, whole days of which spill into days; a
// fraction of a day or week becomes seconds; smaller units become seconds
// and nanoseconds.
type DurationBuilder struct {
	months, days, secs, nanos int64
	fracSecs                  float64 // fractional seconds not yet in nanos
	overflow                  bool
}

// AddMonths adds whole or fractional months.
func (b *DurationBuilder) AddMonths(f float64) {
	whole, frac := math.Modf(f)
	b.months = b.add(b.months, whole)
	if frac != 0 {
		// Split the whole seconds into days with integers, so no rounding
		// of a division creeps into the fraction.
		whole, fs := math.Modf(frac * AvgSecondsPerMonth)
		secs := int64(whole) // |whole| < AvgSecondsPerMonth
		b.days = b.addExact(b.days, secs/SecondsPerDay, 1)
		b.secs = b.addExact(b.secs, secs%SecondsPerDay, 1)
		b.fracSecs += fs
	}
}

// AddDays adds whole or fractional days.
func (b *DurationBuilder) AddDays(f float64) {
	whole, frac := math.Modf(f)
	b.days = b.add(b.days, whole)
	if frac != 0 {
		b.addSeconds(frac * float64(SecondsPerDay))
	}
}

// AddInt adds an exact integer count of a unit: unit is "months", "days",
// or the number of nanoseconds in the unit for time units.
func (b *DurationBuilder) AddInt(v int64, unitNanos int64) {
	if unitNanos >= NanosPerSecond {
		b.secs = b.addExact(b.secs, v, unitNanos/NanosPerSecond)
		return
	}
	b.nanos = b.addExact(b.nanos, v, unitNanos)
	// keep nanos small so sums of many fields cannot overflow
	b.secs += FloorDiv(b.nanos, NanosPerSecond)
	b.nanos = FloorMod(b.nanos, NanosPerSecond)
}

// AddIntMonths and AddIntDays add exact whole counts.
func (b *DurationBuilder) AddIntMonths(v int64) { b.months = b.addExact(b.months, v, 1) }

// AddIntDays adds whole days.
func (b *DurationBuilder) AddIntDays(v int64) { b.days = b.addExact(b.days, v, 1) }

// AddFloat adds a fractional count of a time unit given in nanoseconds.
func (b *DurationBuilder) AddFloat(f float64, unitNanos int64) {
	b.addSeconds(f * float64(unitNanos) / float64(NanosPerSecond))
}

func (b *DurationBuilder) addSeconds(s float64) {
	whole, frac := math.Modf(s)
	b.secs = b.add(b.secs, whole)
	b.fracSecs += frac
}

func (b *DurationBuilder) add(acc int64, f float64) int64 {
	if math.IsNaN(f) || math.Abs(f) >= 9.2e18 {
		b.overflow = true
		return acc
	}
	return b.addExact(acc, int64(f), 1)
}

func (b *DurationBuilder) addExact(acc, v, mul int64) int64 {
	if v != 0 && mul != 0 {
		p := v * mul
		if p/mul != v {
			b.overflow = true
			return acc
		}
		v = p
	}
	r := acc + v
	if (r > acc) != (v > 0) && v != 0 {
		b.overflow = true
	}
	return r
}

// Duration returns the sum, or ErrDurationOverflow.
func (b *DurationBuilder) Duration() (Duration, error) {
	if b.overflow {
		return Duration{}, ErrDurationOverflow
	}
	fn := int64(math.Round(b.fracSecs * float64(NanosPerSecond)))
	return NewDuration(b.months, b.days, b.secs, b.nanos+fn), nil
}

// Add and Sub combine durations component-wise.
func (d Duration) Add(o Duration) Duration {
	return NewDuration(d.Months+o.Months, d.Days+o.Days, d.Seconds+o.Seconds, int64(d.Nanos)+int64(o.Nanos))
}

// Sub subtracts o component-wise.
func (d Duration) Sub(o Duration) Duration { return d.Add(o.Neg()) }

// Neg negates every component.
func (d Duration) Neg() Duration { return NewDuration(-d.Months, -d.Days, -d.Seconds, -int64(d.Nanos)) }

// Mul scales a duration; fractions cascade down the way a fractional
// duration map does.
func (d Duration) Mul(f float64) (Duration, error) {
	var b DurationBuilder
	b.AddMonths(float64(d.Months) * f)
	b.AddDays(float64(d.Days) * f)
	b.AddFloat(float64(d.Seconds)*f, NanosPerSecond)
	// Sub-nanosecond remainders are cut off, not rounded: half of 1ns is 0.
	b.AddInt(int64(float64(d.Nanos)*f), 1)
	return b.Duration()
}

// MulInt scales a duration by an integer exactly.
func (d Duration) MulInt(k int64) (Duration, error) {
	var b DurationBuilder
	b.months = b.addExact(0, d.Months, k)
	b.days = b.addExact(0, d.Days, k)
	b.secs = b.addExact(0, d.Seconds, k)
	n := int64(d.Nanos) * k // |Nanos| < 1e9, so overflow needs |k| > 9e9
	if k != 0 && n/k != int64(d.Nanos) {
		b.overflow = true
	}
	b.secs = b.addExact(b.secs, FloorDiv(n, NanosPerSecond), 1)
	b.nanos = FloorMod(n, NanosPerSecond)
	return b.Duration()
}

// String renders ISO 8601 as Cypher does: PnYnMnDTnHnMnS with zero
// components left out, components signed individually, and PT0S for the
// empty duration.
func (d Duration) String() string {
	var b strings.Builder
	b.WriteByte('P')
	unit(&b, d.Months/12, 'Y')
	unit(&b, d.Months%12, 'M')
	unit(&b, d.Days, 'D')
	if d.Seconds != 0 || d.Nanos != 0 {
		s, n := d.Seconds, int64(d.Nanos)
		if s < 0 && n != 0 {
			s++
			n -= NanosPerSecond
		}
		b.WriteByte('T')
		unit(&b, s/3600, 'H')
		s %= 3600
		unit(&b, s/60, 'M')
		s %= 60
		switch {
		case s != 0:
			b.WriteString(strconv.FormatInt(s, 10))
			fraction(&b, n)
			b.WriteByte('S')
		case n != 0:
			if n < 0 {
				b.WriteByte('-')
			}
			b.WriteByte('0')
			fraction(&b, n)
			b.WriteByte('S')
		}
	}
	if b.Len() == 1 {
		b.WriteString("T0S")
	}
	return b.String()
}

func unit(b *strings.Builder, v int64, u byte) {
	if v != 0 {
		b.WriteString(strconv.FormatInt(v, 10))
		b.WriteByte(u)
	}
}

// fraction writes .ddd for |n| nanoseconds with trailing zeros trimmed.
func fraction(b *strings.Builder, n int64) {
	if n == 0 {
		return
	}
	if n < 0 {
		n = -n
	}
	s := strconv.FormatInt(n+NanosPerSecond, 10)[1:]
	b.WriteByte('.')
	b.WriteString(strings.TrimRight(s, "0"))
}
