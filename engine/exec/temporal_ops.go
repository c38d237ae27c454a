package exec

import (
	"math"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Operations on temporal values for the generic value path: property
// access (d.year, t.offset, dur.days), comparison, ordering and
// arithmetic with durations.

// temporalProperty reads a field of a temporal value by (case-insensitive)
// name.
func temporalProperty(v vector.Value, key string) (vector.Value, error) {
	k := strings.ToLower(key)
	var r vector.Value
	switch x := v.(type) {
	case vector.Date:
		r = dateField(x, k)
	case vector.LocalTime:
		r = timeField(x.Nanos, k)
	case vector.Time:
		if r = timeField(x.Nanos, k); r == nil {
			r = zoneField(x.Offset, "", k)
		}
	case vector.LocalDateTime:
		if r = dateField(x.Date(), k); r == nil {
			r = timeField(x.TimeOfDay(), k)
		}
	case vector.DateTime:
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
	case vector.Duration:
		r = durationField(x, k)
	}
	if r == nil {
		return nil, errs.Data("a %s has no field %q", typeName(v), key)
	}
	return r, nil
}

func dateField(d vector.Date, k string) vector.Value {
	switch k {
	case "year":
		return d.Year()
	case "quarter":
		return d.Quarter()
	case "month":
		return d.Month()
	case "week":
		_, w := vector.IsoWeek(d.Days)
		return w
	case "weekyear":
		wy, _ := vector.IsoWeek(d.Days)
		return wy
	case "day":
		return d.Day()
	case "ordinalday":
		return d.OrdinalDay()
	case "weekday", "dayofweek":
		return vector.DayOfWeek(d.Days)
	case "dayofquarter":
		return d.DayOfQuarter()
	}
	return nil
}

func timeField(tod int64, k string) vector.Value {
	sec := tod / vector.NanosPerSecond
	ns := tod % vector.NanosPerSecond
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
		return vector.FormatOffset(off)
	case "offset":
		return vector.FormatOffset(off)
	case "offsetminutes":
		return int64(off) / 60
	case "offsetseconds":
		return int64(off)
	}
	return nil
}

func durationField(d vector.Duration, k string) vector.Value {
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
		return d.Seconds*vector.NanosPerSecond + ns
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

// temporalRank places temporal types in Cypher's global sort order, after
// paths and before strings.
func temporalRank(v vector.Value) int {
	switch v.(type) {
	case vector.DateTime:
		return 0
	case vector.LocalDateTime:
		return 1
	case vector.Date:
		return 2
	case vector.Time:
		return 3
	case vector.LocalTime:
		return 4
	case vector.Duration:
		return 5
	}
	return -1
}

// temporalOrder compares two temporal values of one type: instants by the
// point in time they denote (a TIME by its UTC time of day). ok is false
// for different types and for durations, which have no order.
func temporalOrder(a, b vector.Value) (int, bool) {
	switch x := a.(type) {
	case vector.Date:
		if y, ok := b.(vector.Date); ok {
			return cmpOrdered(x.Days, y.Days), true
		}
	case vector.LocalTime:
		if y, ok := b.(vector.LocalTime); ok {
			return cmpOrdered(x.Nanos, y.Nanos), true
		}
	case vector.Time:
		if y, ok := b.(vector.Time); ok {
			return cmpOrdered(x.Nanos-int64(x.Offset)*vector.NanosPerSecond, y.Nanos-int64(y.Offset)*vector.NanosPerSecond), true
		}
	case vector.LocalDateTime:
		if y, ok := b.(vector.LocalDateTime); ok {
			if c := cmpOrdered(x.Sec, y.Sec); c != 0 {
				return c, true
			}
			return cmpOrdered(int64(x.Nanos), int64(y.Nanos)), true
		}
	case vector.DateTime:
		if y, ok := b.(vector.DateTime); ok {
			if c := cmpOrdered(x.Sec, y.Sec); c != 0 {
				return c, true
			}
			return cmpOrdered(int64(x.Nanos), int64(y.Nanos)), true
		}
	}
	return 0, false
}

// temporalEqual is = on temporal values: instants are equal when they
// denote the same point in time, durations when every component is.
func temporalEqual(a, b vector.Value) bool {
	if x, ok := a.(vector.Duration); ok {
		y, ok := b.(vector.Duration)
		return ok && x == y
	}
	c, ok := temporalOrder(a, b)
	return ok && c == 0
}

// temporalTotal orders two temporal values of the same rank for ORDER BY;
// durations order by their components so that sorting is deterministic.
func temporalTotal(a, b vector.Value) int {
	if x, ok := a.(vector.Duration); ok {
		y := b.(vector.Duration)
		for _, p := range [][2]int64{{x.Months, y.Months}, {x.Days, y.Days}, {x.Seconds, y.Seconds}, {int64(x.Nanos), int64(y.Nanos)}} {
			if c := cmpOrdered(p[0], p[1]); c != 0 {
				return c
			}
		}
		return 0
	}
	c, _ := temporalOrder(a, b)
	if c == 0 {
		// Same instant, different offsets: order by offset for stability.
		switch x := a.(type) {
		case vector.Time:
			return cmpOrdered(int64(x.Offset), int64(b.(vector.Time).Offset))
		case vector.DateTime:
			return cmpOrdered(int64(x.Offset), int64(b.(vector.DateTime).Offset))
		}
	}
	return c
}

// temporalArith is + - * / involving a temporal value; handled is false
// when neither operand is temporal.
func temporalArith(op byte, a, b vector.Value) (v vector.Value, handled bool, err error) {
	da, aDur := a.(vector.Duration)
	db, bDur := b.(vector.Duration)
	switch {
	case aDur && bDur && op == '+':
		return da.Add(db), true, nil
	case aDur && bDur && op == '-':
		return da.Sub(db), true, nil
	case bDur && (op == '+' || op == '-') && vector.IsTemporal(a):
		if op == '-' {
			db = db.Neg()
		}
		v, err := plusDuration(a, db)
		return v, true, err
	case aDur && op == '+' && vector.IsTemporal(b):
		v, err := plusDuration(b, da)
		return v, true, err
	case aDur && (op == '*' || op == '/'):
		v, err := scaleDuration(op, da, b)
		return v, true, err
	case bDur && op == '*':
		v, err := scaleDuration(op, db, a)
		return v, true, err
	}
	if vector.IsTemporal(a) || vector.IsTemporal(b) {
		return nil, true, errs.Data("cannot apply %s to %s and %s", opName(op), typeName(a), typeName(b))
	}
	return nil, false, nil
}

func scaleDuration(op byte, d vector.Duration, n vector.Value) (vector.Value, error) {
	var r vector.Duration
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
		return nil, errs.Data("cannot apply %s to DURATION and %s", opName(op), typeName(n))
	}
	if err != nil {
		return nil, temporalErr(err)
	}
	return r, nil
}

// plusMonths adds months to a date, clamping the day to the month's end.
func plusMonths(d vector.Date, months int64) vector.Date {
	if months == 0 {
		return d
	}
	y, m, day := vector.CivilFromDays(d.Days)
	t := y*12 + m - 1 + months
	y, m = vector.FloorDiv(t, 12), vector.FloorMod(t, 12)+1
	return vector.Date{Days: vector.DaysFromCivil(y, m, min(day, vector.DaysInMonth(y, m)))}
}

// plusDateParts adds a duration's months and days, then its seconds as
// whole days (a date has no time to carry the rest).
func plusDate(d vector.Date, dur vector.Duration) vector.Date {
	d = plusMonths(d, dur.Months)
	secs := dur.Seconds
	if secs < 0 && dur.Nanos > 0 {
		secs++ // truncate the total toward zero
	}
	return vector.Date{Days: d.Days + dur.Days + secs/vector.SecondsPerDay}
}

// maxSpan bounds the months and days a duration may move an instant:
// beyond the Cypher year range either way, so the calendar arithmetic
// below cannot overflow.
const (
	maxSpanMonths = 2 * 12 * (vector.MaxYear + 1)
	maxSpanDays   = 2 * 366 * (vector.MaxYear + 1)
)

func plusDuration(t vector.Value, d vector.Duration) (vector.Value, error) {
	if d.Months > maxSpanMonths || d.Months < -maxSpanMonths || d.Days > maxSpanDays || d.Days < -maxSpanDays ||
		d.Seconds > maxSpanDays*vector.SecondsPerDay || d.Seconds < -maxSpanDays*vector.SecondsPerDay {
		return nil, errs.DataCode(errs.CodeDatetimeOverflow, "adding %s leaves the supported range of years", d)
	}
	dayNanos := func(tod int64) int64 {
		s := vector.FloorMod(d.Seconds, vector.SecondsPerDay)*vector.NanosPerSecond + int64(d.Nanos)
		return vector.FloorMod(tod+s, vector.NanosPerDay)
	}
	switch x := t.(type) {
	case vector.Date:
		return checkDate(plusDate(x, d))
	case vector.LocalTime:
		return vector.LocalTime{Nanos: dayNanos(x.Nanos)}, nil
	case vector.Time:
		return vector.Time{Nanos: dayNanos(x.Nanos), Offset: x.Offset}, nil
	case vector.LocalDateTime:
		date := plusMonths(x.Date(), d.Months)
		l := vector.MakeLocalDateTime(vector.Date{Days: date.Days + d.Days}, x.TimeOfDay())
		l = plusSeconds(l, d)
		if _, err := checkDate(l.Date()); err != nil {
			return nil, err
		}
		return l, nil
	case vector.DateTime:
		l := x.Local()
		date := plusMonths(l.Date(), d.Months)
		l = vector.MakeLocalDateTime(vector.Date{Days: date.Days + d.Days}, l.TimeOfDay())
		var dt vector.DateTime
		var err error
		if x.Zone != "" {
			if dt, err = vector.InZone(l, x.Zone); err != nil {
				return nil, temporalErr(err)
			}
		} else {
			dt = vector.InOffset(l, x.Offset)
		}
		sum := plusSeconds(vector.LocalDateTime{Sec: dt.Sec, Nanos: dt.Nanos}, d)
		if dt, err = vector.AtInstant(sum.Sec, sum.Nanos, dt.Offset, dt.Zone); err != nil {
			return nil, temporalErr(err)
		}
		if _, err := checkDate(dt.Local().Date()); err != nil {
			return nil, err
		}
		return dt, nil
	}
	return nil, errs.Data("cannot add a DURATION to %s", typeName(t))
}

// plusSeconds adds a duration's seconds and nanoseconds exactly.
func plusSeconds(l vector.LocalDateTime, d vector.Duration) vector.LocalDateTime {
	ns := int64(l.Nanos) + int64(d.Nanos)
	return vector.LocalDateTime{Sec: l.Sec + d.Seconds + ns/vector.NanosPerSecond, Nanos: int32(ns % vector.NanosPerSecond)}
}

func checkDate(d vector.Date) (vector.Value, error) {
	if y := d.Year(); y < vector.MinYear || y > vector.MaxYear {
		return nil, temporalErr(vector.RangeErr("year", y, vector.MinYear, vector.MaxYear))
	}
	return d, nil
}
