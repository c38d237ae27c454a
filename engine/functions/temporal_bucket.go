package functions

import (
	"math/big"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// quiver.ts.bucket(t, duration[, origin]) floors a DATE, LOCAL DATETIME or
// ZONED DATETIME to the start of its bucket (docs/time-series.md). A
// zoned value is bucketed on its wall-clock reading and keeps its offset
// (or zone), as date.truncate does. Buckets count from an origin:
// 2000-01-03T00:00, a Monday, for fixed-length durations (weekly buckets
// start on Mondays, as ISO weeks and TimescaleDB's time_bucket do), and
// 2000-01-01 for month-based ones (monthly, quarterly and yearly buckets
// start on the first of a month, quarters on Jan/Apr/Jul/Oct).

// Default origins, days since 1970-01-01.
var (
	DefaultFixedOrigin = temporal.DaysFromCivil(2000, 1, 3)
	DefaultMonthOrigin = temporal.DaysFromCivil(2000, 1, 1)
)

func init() {
	register(map[string]Func{
		"quiver.ts.bucket": {Min: 2, Max: 3, Result: vector.Any,
			Doc:    "quiver.ts.bucket(t, duration[, origin]) — start of t's bucket of the given width",
			Args:   []ArgKind{ArgOther, ArgOther, ArgOther},
			Kernel: bucketKernel},
	})
}

func bucketKernel(_ Env, a []vector.Value) (vector.Value, error) {
	for _, v := range a {
		if v == nil {
			return nil, nil
		}
	}
	var origin vector.Value
	if len(a) > 2 {
		origin = a[2]
	}
	b, err := NewBucketer("quiver.ts.bucket()", a[0], a[1], origin)
	if err != nil {
		return nil, err
	}
	return b.Floor(a[0])
}

// Bucketer floors temporal values of one type to buckets of one width
// counted from one origin: the prepared form of quiver.ts.bucket that
// quiver.ts.aggregate runs per value.
type Bucketer struct {
	name   string // the caller, for messages
	date   bool   // DATE values (else LOCAL or ZONED DATETIME)
	months int64  // >0: calendar-month buckets
	length int64  // >0: fixed-length buckets, nanoseconds
	origin temporal.LocalDateTime
	oy, om int64 // origin's year and month (month buckets)
}

// NewBucketer checks a width and an origin (nil: the default) for values
// of sample's type. A zero, negative or mixed months-and-time duration, a
// duration with a time part for a DATE, or an origin of another type is a
// 22023 error naming caller.
func NewBucketer(caller string, sample, width, origin vector.Value) (*Bucketer, error) {
	b := &Bucketer{name: caller}
	switch sample.(type) {
	case temporal.Date:
		b.date = true
	case temporal.LocalDateTime, temporal.DateTime:
	default:
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s expects a DATE, LOCAL DATETIME or ZONED DATETIME to bucket, got %s", caller, TypeName(sample))
	}
	d, ok := width.(temporal.Duration)
	if !ok {
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s expects a DURATION as the bucket width, got %s", caller, TypeName(width))
	}
	timePart := d.Seconds != 0 || d.Nanos != 0
	switch {
	case d.Months < 0 || d.Days < 0 || d.Seconds < 0:
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s: the bucket width %s is negative", caller, d)
	case d.Months > 0 && (d.Days != 0 || timePart):
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s: the bucket width %s mixes months with days or time; use a width of months only or of days and time only", caller, d)
	case d.Months > 0:
		b.months = d.Months
	case b.date && timePart:
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s: the bucket width %s has a time part, which a DATE cannot be bucketed by", caller, d)
	default:
		l, over := fixedLength(d)
		if over {
			return nil, errs.DataCode(errs.CodeInvalidParam, "%s: the bucket width %s is too long", caller, d)
		}
		if l <= 0 {
			return nil, errs.DataCode(errs.CodeInvalidParam, "%s: the bucket width %s is zero", caller, d)
		}
		b.length = l
	}
	days := DefaultFixedOrigin
	if b.months > 0 {
		days = DefaultMonthOrigin
	}
	b.origin = temporal.MakeLocalDateTime(temporal.Date{Days: days}, 0)
	if origin != nil {
		o, ok := b.local(origin)
		if !ok {
			return nil, errs.DataCode(errs.CodeInvalidParam, "%s expects an origin of the same type as the value (%s), got %s", caller, TypeName(sample), TypeName(origin))
		}
		b.origin = o
	}
	b.oy, b.om, _ = temporal.CivilFromDays(b.origin.Date().Days)
	return b, nil
}

// fixedLength is a days-and-time duration in nanoseconds; over when that
// leaves int64.
func fixedLength(d temporal.Duration) (int64, bool) {
	n := new(big.Int).SetInt64(d.Days)
	n.Mul(n, big.NewInt(temporal.NanosPerDay))
	n.Add(n, new(big.Int).Mul(big.NewInt(d.Seconds), big.NewInt(temporal.NanosPerSecond)))
	n.Add(n, big.NewInt(int64(d.Nanos)))
	if !n.IsInt64() {
		return 0, true
	}
	return n.Int64(), false
}

// local is the wall-clock reading of a value of the bucketer's type
// (a ZONED DATETIME origin also serves LOCAL DATETIME values and back:
// both are read on the wall clock).
func (b *Bucketer) local(v vector.Value) (temporal.LocalDateTime, bool) {
	switch x := v.(type) {
	case temporal.Date:
		return temporal.MakeLocalDateTime(x, 0), b.date
	case temporal.LocalDateTime:
		return x, !b.date
	case temporal.DateTime:
		return x.Local(), !b.date
	}
	return temporal.LocalDateTime{}, false
}

// Floor is the start of v's bucket, of v's type; v must be of the type the
// bucketer was made for.
func (b *Bucketer) Floor(v vector.Value) (vector.Value, error) {
	l, ok := b.local(v)
	if !ok {
		return nil, errs.DataCode(errs.CodeInvalidParam, "%s expects a value of the origin's type, got %s", b.name, TypeName(v))
	}
	s, err := b.Start(b.Index(l))
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case temporal.Date:
		return s.Date(), nil
	case temporal.DateTime:
		if x.Zone != "" {
			dt, err := temporal.InZone(s, x.Zone)
			return dt, TemporalErr(err)
		}
		return temporal.InOffset(s, x.Offset), nil
	}
	return s, nil
}

// Index is the number of l's bucket counted from the origin's (0), which
// may be negative.
func (b *Bucketer) Index(l temporal.LocalDateTime) int64 {
	if b.months > 0 {
		y, m, _ := temporal.CivilFromDays(l.Date().Days)
		k := temporal.FloorDiv((y-b.oy)*12+(m-b.om), b.months)
		// The origin's day and time of day shift each month's bucket
		// start: step back when l is before its bucket's start.
		if s, err := b.Start(k); err == nil && less(l, s) {
			k--
		}
		return k
	}
	ds, dn := l.Sec-b.origin.Sec, int64(l.Nanos)-int64(b.origin.Nanos)
	if b.length%temporal.NanosPerSecond == 0 {
		if dn < 0 {
			ds, dn = ds-1, dn+temporal.NanosPerSecond
		}
		_ = dn // within a second: below every bucket's width
		return temporal.FloorDiv(ds, b.length/temporal.NanosPerSecond)
	}
	const safe = 9_000_000_000 // seconds whose nanoseconds fit in int64
	if ds > -safe && ds < safe {
		return temporal.FloorDiv(ds*temporal.NanosPerSecond+dn, b.length)
	}
	n := new(big.Int).Mul(big.NewInt(ds), big.NewInt(temporal.NanosPerSecond))
	n.Add(n, big.NewInt(dn))
	q, m := new(big.Int).DivMod(n, big.NewInt(b.length), new(big.Int)) // Euclidean: floor for a positive divisor
	_ = m
	return q.Int64()
}

// Start is the wall-clock start of bucket k. Month buckets keep the
// origin's day of month, clamped to the month's last day.
func (b *Bucketer) Start(k int64) (temporal.LocalDateTime, error) {
	if b.months > 0 {
		total := b.oy*12 + (b.om - 1) + k*b.months
		y, m := temporal.FloorDiv(total, 12), temporal.FloorMod(total, 12)+1
		if y < -999_999_999 || y > 999_999_999 {
			return temporal.LocalDateTime{}, errs.DataCode(errs.CodeDatetimeOverflow, "%s: a bucket start leaves the supported year range", b.name)
		}
		_, _, od := temporal.CivilFromDays(b.origin.Date().Days)
		day := min(od, temporal.DaysInMonth(y, m))
		return temporal.MakeLocalDateTime(temporal.Date{Days: temporal.DaysFromCivil(y, m, day)}, b.origin.TimeOfDay()), nil
	}
	if lim := (1 << 62) / b.length; k > -lim && k < lim {
		off := k*b.length + int64(b.origin.Nanos)
		return temporal.LocalDateTime{Sec: b.origin.Sec + temporal.FloorDiv(off, temporal.NanosPerSecond),
			Nanos: int32(temporal.FloorMod(off, temporal.NanosPerSecond))}, nil
	}
	off := new(big.Int).Mul(big.NewInt(k), big.NewInt(b.length))
	off.Add(off, big.NewInt(int64(b.origin.Nanos)))
	sec, nanos := new(big.Int).DivMod(off, big.NewInt(temporal.NanosPerSecond), new(big.Int))
	if !sec.IsInt64() {
		return temporal.LocalDateTime{}, errs.DataCode(errs.CodeDatetimeOverflow, "%s: a bucket start leaves the supported range", b.name)
	}
	return temporal.LocalDateTime{Sec: b.origin.Sec + sec.Int64(), Nanos: int32(nanos.Int64())}, nil
}

// less orders wall-clock readings.
func less(a, b temporal.LocalDateTime) bool {
	return a.Sec < b.Sec || a.Sec == b.Sec && a.Nanos < b.Nanos
}
