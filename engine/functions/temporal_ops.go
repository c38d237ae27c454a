package functions

import (
	"math"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Operations on temporal values for the generic value path: property
// access (d.year, t.offset, dur.days), comparison, ordering and
// arithmetic with durations.

// TemporalProperty reads a field of a temporal value by (case-insensitive)
// name.
func TemporalProperty(v vector.Value, key string) (vector.Value, error) {
	k := strings.ToLower(key)
	var r vector.Value
	switch x := v.(type) {
	case temporal.Date:
		r = dateField(x, k)
	case temporal.LocalTime:
		r = timeField(x.Nanos, k)
	case temporal.Time:
		if r = timeField(x.Nanos, k); r == nil {
			r = zoneField(x.Offset, "", k)
		}
	case temporal.LocalDateTime:
		if r = dateField(x.Date(), k); r == nil {
			r = timeField(x.TimeOfDay(), k)
		}
	case temporal.DateTime:
		l := x.Local()
		if r = dateField(l.Date(), k); r == nil {
			if r = timeField(l.TimeOfDay(), k); r == nil {
				r = zoneField(x.Offset, x.Zone, k)
			}
		}
		switch k {
		case "epochseconds":
			r = x.Sec
		case "epochmillis":
			r = x.Sec*1000 + int64(x.Nanos)/1_000_000
		}
	case temporal.Duration:
		r = durationField(x, k)
	}
	if r == nil {
		return nil, errs.Data("a %s has no field %q", TypeName(v), key)
	}
	return r, nil
}

func dateField(d temporal.Date, k string) vector.Value {
	if f := DateField(k); f != nil {
		return f(d)
	}
	return nil
}

// DateField is the accessor of a date's field by its lower-cased name
// (d.year, d.dayOfWeek …), nil for a name that is no date field.
func DateField(k string) func(temporal.Date) int64 { return dateAccessors[k] }

var dateAccessors = map[string]func(temporal.Date) int64{
	"year":    temporal.Date.Year,
	"quarter": temporal.Date.Quarter,
	"month":   temporal.Date.Month,
	"week": func(d temporal.Date) int64 {
		_, w := temporal.IsoWeek(d.Days)
		return w
	},
	"weekyear": func(d temporal.Date) int64 {
		wy, _ := temporal.IsoWeek(d.Days)
		return wy
	},
	"day":          temporal.Date.Day,
	"ordinalday":   temporal.Date.OrdinalDay,
	"weekday":      func(d temporal.Date) int64 { return temporal.DayOfWeek(d.Days) },
	"dayofweek":    func(d temporal.Date) int64 { return temporal.DayOfWeek(d.Days) },
	"dayofquarter": temporal.Date.DayOfQuarter,
}

func timeField(tod int64, k string) vector.Value {
	sec := tod / temporal.NanosPerSecond
	ns := tod % temporal.NanosPerSecond
	switch k {
	case "hour":
		return sec / 3600
	case "minute":
		return sec / 60 % 60
	case "second":
		return sec % 60
	case "millisecond":
		return ns / 1_000_000
	case "microsecond":
		return ns / 1000
	case "nanosecond":
		return ns
	}
	return nil
}

func zoneField(off int32, zone, k string) vector.Value {
	switch k {
	case "timezone":
		if zone != "" {
			return zone
		}
		return temporal.FormatOffset(off)
	case "offset":
		return temporal.FormatOffset(off)
	case "offsetminutes":
		return int64(off) / 60
	case "offsetseconds":
		return int64(off)
	}
	return nil
}

func durationField(d temporal.Duration, k string) vector.Value {
	ns := int64(d.Nanos)
	switch k {
	case "years":
		return d.Months / 12
	case "quarters":
		return d.Months / 3
	case "months":
		return d.Months
	case "weeks":
		return d.Days / 7
	case "days":
		return d.Days
	case "hours":
		return d.Seconds / 3600
	case "minutes":
		return d.Seconds / 60
	case "seconds":
		return d.Seconds
	case "milliseconds":
		return d.Seconds*1000 + ns/1_000_000
	case "microseconds":
		return d.Seconds*1_000_000 + ns/1000
	case "nanoseconds":
		return d.Seconds*temporal.NanosPerSecond + ns
	case "quartersofyear":
		return d.Months % 12 / 3
	case "monthsofquarter":
		return d.Months % 3
	case "monthsofyear":
		return d.Months % 12
	case "daysofweek":
		return d.Days % 7
	case "minutesofhour":
		return d.Seconds / 60 % 60
	case "secondsofminute":
		return d.Seconds % 60
	case "millisecondsofsecond":
		return ns / 1_000_000
	case "microsecondsofsecond":
		return ns / 1000
	case "nanosecondsofsecond":
		return ns
	}
	return nil
}

// TemporalRank places temporal types in Cypher's global sort order, after
// paths and before strings.
func TemporalRank(v vector.Value) int {
	switch v.(type) {
	case temporal.DateTime:
		return 0
	case temporal.LocalDateTime:
		return 1
	case temporal.Date:
		return 2
	case temporal.Time:
		return 3
	case temporal.LocalTime:
		return 4
	case temporal.Duration:
		return 5
	}
	return -1
}

// temporalOrder compares two temporal values of one type: instants by the
// point in time they denote (a TIME by its UTC time of day). ok is false
// for different types and for durations, which have no order.
func temporalOrder(a, b vector.Value) (int, bool) {
	switch x := a.(type) {
	case temporal.Date:
		if y, ok := b.(temporal.Date); ok {
			return CmpOrdered(x.Days, y.Days), true
		}
	case temporal.LocalTime:
		if y, ok := b.(temporal.LocalTime); ok {
			return CmpOrdered(x.Nanos, y.Nanos), true
		}
	case temporal.Time:
		if y, ok := b.(temporal.Time); ok {
			return CmpOrdered(x.Nanos-int64(x.Offset)*temporal.NanosPerSecond, y.Nanos-int64(y.Offset)*temporal.NanosPerSecond), true
		}
	case temporal.LocalDateTime:
		if y, ok := b.(temporal.LocalDateTime); ok {
			if c := CmpOrdered(x.Sec, y.Sec); c != 0 {
				return c, true
			}
			return CmpOrdered(int64(x.Nanos), int64(y.Nanos)), true
		}
	case temporal.DateTime:
		if y, ok := b.(temporal.DateTime); ok {
			if c := CmpOrdered(x.Sec, y.Sec); c != 0 {
				return c, true
			}
			return CmpOrdered(int64(x.Nanos), int64(y.Nanos)), true
		}
	}
	return 0, false
}

// temporalEqual is = on temporal values: instants are equal when they
// denote the same point in time, durations when every component is.
func temporalEqual(a, b vector.Value) bool {
	if x, ok := a.(temporal.Duration); ok {
		y, ok := b.(temporal.Duration)
		return ok && x == y
	}
	c, ok := temporalOrder(a, b)
	return ok && c == 0
}

// TemporalTotal orders two temporal values of the same rank for ORDER BY;
// durations order by their components so that sorting is deterministic.
func TemporalTotal(a, b vector.Value) int {
	if x, ok := a.(temporal.Duration); ok {
		y := b.(temporal.Duration)
		for _, p := range [][2]int64{{x.Months, y.Months}, {x.Days, y.Days}, {x.Seconds, y.Seconds}, {int64(x.Nanos), int64(y.Nanos)}} {
			if c := CmpOrdered(p[0], p[1]); c != 0 {
				return c
			}
		}
		return 0
	}
	c, _ := temporalOrder(a, b)
	if c == 0 {
		// Same instant, different offsets: order by offset for stability.
		switch x := a.(type) {
		case temporal.Time:
			return CmpOrdered(int64(x.Offset), int64(b.(temporal.Time).Offset))
		case temporal.DateTime:
			return CmpOrdered(int64(x.Offset), int64(b.(temporal.DateTime).Offset))
		}
	}
	return c
}

// temporalArith is + - * / involving a temporal value; handled is false
// when neither operand is temporal.
func temporalArith(op byte, a, b vector.Value) (v vector.Value, handled bool, err error) {
	da, aDur := a.(temporal.Duration)
	db, bDur := b.(temporal.Duration)
	switch {
	case aDur && bDur && op == '+':
		return da.Add(db), true, nil
	case aDur && bDur && op == '-':
		return da.Sub(db), true, nil
	case bDur && (op == '+' || op == '-') && temporal.Is(a):
		if op == '-' {
			db = db.Neg()
		}
		v, err := plusDuration(a, db)
		return v, true, err
	case aDur && op == '+' && temporal.Is(b):
		v, err := plusDuration(b, da)
		return v, true, err
	case aDur && (op == '*' || op == '/'):
		v, err := ScaleDuration(op, da, b)
		return v, true, err
	case bDur && op == '*':
		v, err := ScaleDuration(op, db, a)
		return v, true, err
	}
	if temporal.Is(a) || temporal.Is(b) {
		return nil, true, errs.Data("cannot apply %s to %s and %s", opName(op), TypeName(a), TypeName(b))
	}
	return nil, false, nil
}

func ScaleDuration(op byte, d temporal.Duration, n vector.Value) (vector.Value, error) {
	var r temporal.Duration
	var err error
	switch x := n.(type) {
	case int64:
		if op == '*' {
			r, err = d.MulInt(x)
		} else {
			if x == 0 {
				return nil, errs.DataCode(errs.CodeDivByZero, "division by zero")
			}
			r, err = d.Mul(1 / float64(x))
		}
	case float64:
		if op == '/' {
			if x == 0 {
				return nil, errs.DataCode(errs.CodeDivByZero, "division by zero")
			}
			x = 1 / x
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errs.DataCode(errs.CodeDatetimeOverflow, "duration out of range")
		}
		r, err = d.Mul(x)
	default:
		return nil, errs.Data("cannot apply %s to DURATION and %s", opName(op), TypeName(n))
	}
	if err != nil {
		return nil, TemporalErr(err)
	}
	return r, nil
}

// plusMonths adds months to a date, clamping the day to the month's end.
func plusMonths(d temporal.Date, months int64) temporal.Date {
	if months == 0 {
		return d
	}
	y, m, day := temporal.CivilFromDays(d.Days)
	t := y*12 + m - 1 + months
	y, m = temporal.FloorDiv(t, 12), temporal.FloorMod(t, 12)+1
	return temporal.Date{Days: temporal.DaysFromCivil(y, m, min(day, temporal.DaysInMonth(y, m)))}
}

// plusDateParts adds a duration's months and days, then its seconds as
// whole days (a date has no time to carry the rest).
func plusDate(d temporal.Date, dur temporal.Duration) temporal.Date {
	d = plusMonths(d, dur.Months)
	secs := dur.Seconds
	if secs < 0 && dur.Nanos > 0 {
		secs++ // truncate the total toward zero
	}
	return temporal.Date{Days: d.Days + dur.Days + secs/temporal.SecondsPerDay}
}

// maxSpan bounds the months and days a duration may move an instant:
// beyond the Cypher year range either way, so the calendar arithmetic
// below cannot overflow.
const (
	maxSpanMonths = 2 * 12 * (temporal.MaxYear + 1)
	maxSpanDays   = 2 * 366 * (temporal.MaxYear + 1)
)

func plusDuration(t vector.Value, d temporal.Duration) (vector.Value, error) {
	if d.Months > maxSpanMonths || d.Months < -maxSpanMonths || d.Days > maxSpanDays || d.Days < -maxSpanDays ||
		d.Seconds > maxSpanDays*temporal.SecondsPerDay || d.Seconds < -maxSpanDays*temporal.SecondsPerDay {
		return nil, errs.DataCode(errs.CodeDatetimeOverflow, "adding %s leaves the supported range of years", d)
	}
	dayNanos := func(tod int64) int64 {
		s := temporal.FloorMod(d.Seconds, temporal.SecondsPerDay)*temporal.NanosPerSecond + int64(d.Nanos)
		return temporal.FloorMod(tod+s, temporal.NanosPerDay)
	}
	switch x := t.(type) {
	case temporal.Date:
		return checkDate(plusDate(x, d))
	case temporal.LocalTime:
		return temporal.LocalTime{Nanos: dayNanos(x.Nanos)}, nil
	case temporal.Time:
		return temporal.Time{Nanos: dayNanos(x.Nanos), Offset: x.Offset}, nil
	case temporal.LocalDateTime:
		date := plusMonths(x.Date(), d.Months)
		l := temporal.MakeLocalDateTime(temporal.Date{Days: date.Days + d.Days}, x.TimeOfDay())
		l = plusSeconds(l, d)
		if _, err := checkDate(l.Date()); err != nil {
			return nil, err
		}
		return l, nil
	case temporal.DateTime:
		l := x.Local()
		date := plusMonths(l.Date(), d.Months)
		l = temporal.MakeLocalDateTime(temporal.Date{Days: date.Days + d.Days}, l.TimeOfDay())
		var dt temporal.DateTime
		var err error
		if x.Zone != "" {
			if dt, err = temporal.InZone(l, x.Zone); err != nil {
				return nil, TemporalErr(err)
			}
		} else {
			dt = temporal.InOffset(l, x.Offset)
		}
		sum := plusSeconds(temporal.LocalDateTime{Sec: dt.Sec, Nanos: dt.Nanos}, d)
		if dt, err = temporal.AtInstant(sum.Sec, sum.Nanos, dt.Offset, dt.Zone); err != nil {
			return nil, TemporalErr(err)
		}
		if _, err := checkDate(dt.Local().Date()); err != nil {
			return nil, err
		}
		return dt, nil
	}
	return nil, errs.Data("cannot add a DURATION to %s", TypeName(t))
}

// plusSeconds adds a duration's seconds and nanoseconds exactly.
func plusSeconds(l temporal.LocalDateTime, d temporal.Duration) temporal.LocalDateTime {
	ns := int64(l.Nanos) + int64(d.Nanos)
	return temporal.LocalDateTime{Sec: l.Sec + d.Seconds + ns/temporal.NanosPerSecond, Nanos: int32(ns % temporal.NanosPerSecond)}
}

func checkDate(d temporal.Date) (vector.Value, error) {
	if y := d.Year(); y < temporal.MinYear || y > temporal.MaxYear {
		return nil, TemporalErr(temporal.RangeErr("year", y, temporal.MinYear, temporal.MaxYear))
	}
	return d, nil
}
