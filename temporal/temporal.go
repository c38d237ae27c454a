package temporal

import (
	"strconv"
	"strings"
)

// Temporal values: the five instant types of Cypher and DURATION. They are
// small comparable structs held in Any vectors (and as property values);
// String renders the ISO 8601 form the openCypher TCK expects.
//
//	Date           days since 1970-01-01 (proleptic Gregorian)
//	LocalTime      nanoseconds since midnight, [0, 86400e9)
//	Time           LocalTime plus a fixed UTC offset in seconds
//	LocalDateTime  seconds since 1970-01-01T00:00 plus nanoseconds, no zone
//	DateTime       UTC epoch seconds plus nanoseconds, the offset in force
//	               there and, when built from a zone name, that name
//
// Calendar arithmetic is done on integers (days from civil dates and back),
// not through package time, so the whole Cypher year range round-trips.

// Date is a calendar date.
type Date struct{ Days int64 }

// LocalTime is a time of day without a zone.
type LocalTime struct{ Nanos int64 }

// Time is a time of day with a UTC offset (seconds east of UTC).
type Time struct {
	Nanos  int64
	Offset int32
}

// LocalDateTime is a date and time of day without a zone.
type LocalDateTime struct {
	Sec   int64 // seconds since 1970-01-01T00:00 local
	Nanos int32
}

// DateTime is an instant with the offset (and zone name, if any) it is
// shown in. Zone is "" for a fixed offset.
type DateTime struct {
	Sec    int64 // UTC seconds since the epoch
	Nanos  int32
	Offset int32
	Zone   string
}

// Time constants.
const (
	NanosPerSecond = int64(1_000_000_000)
	SecondsPerDay  = int64(86400)
	NanosPerDay    = SecondsPerDay * NanosPerSecond
)

// Is reports whether v is one of the temporal value types.
func Is(v any) bool {
	switch v.(type) {
	case Date, LocalTime, Time, LocalDateTime, DateTime, Duration:
		return true
	}
	return false
}

// TypeName is the schema type name of a temporal value, "" for
// anything else. Local types have names of their own (LOCAL TIME and
// LOCAL DATETIME in GQL); schemas spell them LOCALTIME and LOCALDATETIME.
func TypeName(v any) string {
	switch v.(type) {
	case Date:
		return "DATE"
	case LocalTime:
		return "LOCALTIME"
	case Time:
		return "TIME"
	case LocalDateTime:
		return "LOCALDATETIME"
	case DateTime:
		return "DATETIME"
	case Duration:
		return "DURATION"
	}
	return ""
}

// FloorDiv and FloorMod divide rounding toward negative infinity.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorMod is a - FloorDiv(a, b)*b, with the sign of b.
func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

// DaysFromCivil counts days from 1970-01-01 to the given proleptic
// Gregorian date (H. Hinnant's algorithm).
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := FloorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays is the inverse of DaysFromCivil.
func CivilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := FloorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// IsLeap reports a Gregorian leap year.
func IsLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// DaysInMonth is the length of month m of year y.
func DaysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if IsLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DayOfWeek is the ISO day of the week, 1 = Monday … 7 = Sunday.
func DayOfWeek(days int64) int64 { return FloorMod(days+3, 7) + 1 }

// WeekYearStart is the Monday starting ISO week 1 of week-based year y
// (the week holding January 4th).
func WeekYearStart(y int64) int64 {
	jan4 := DaysFromCivil(y, 1, 4)
	return jan4 - (DayOfWeek(jan4) - 1)
}

// WeeksInYear is 52 or 53, the number of ISO weeks of week-based year y.
func WeeksInYear(y int64) int64 { return (WeekYearStart(y+1) - WeekYearStart(y)) / 7 }

// IsoWeek returns the week-based year and week number of a day.
func IsoWeek(days int64) (weekYear, week int64) {
	y, _, _ := CivilFromDays(days)
	switch {
	case days < WeekYearStart(y):
		y--
	case days >= WeekYearStart(y+1):
		y++
	}
	return y, (days-WeekYearStart(y))/7 + 1
}

// Year, Month, Day and the other calendar fields of a Date.
func (d Date) Year() int64    { y, _, _ := CivilFromDays(d.Days); return y }
func (d Date) Month() int64   { _, m, _ := CivilFromDays(d.Days); return m }
func (d Date) Day() int64     { _, _, dd := CivilFromDays(d.Days); return dd }
func (d Date) Quarter() int64 { return (d.Month()-1)/3 + 1 }

// OrdinalDay is the day of the year, 1-based.
func (d Date) OrdinalDay() int64 { return d.Days - DaysFromCivil(d.Year(), 1, 1) + 1 }

// DayOfQuarter is the day of the quarter, 1-based.
func (d Date) DayOfQuarter() int64 {
	return d.Days - DaysFromCivil(d.Year(), (d.Quarter()-1)*3+1, 1) + 1
}

func (d Date) String() string {
	var b strings.Builder
	appendDate(&b, d.Days)
	return b.String()
}

func appendDate(b *strings.Builder, days int64) {
	y, m, d := CivilFromDays(days)
	switch {
	case y < 0:
		b.WriteByte('-')
		pad(b, -y, 4)
	case y > 9999:
		b.WriteByte('+')
		b.WriteString(strconv.FormatInt(y, 10))
	default:
		pad(b, y, 4)
	}
	b.WriteByte('-')
	pad(b, m, 2)
	b.WriteByte('-')
	pad(b, d, 2)
}

func pad(b *strings.Builder, v int64, width int) {
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(s)
}

// appendTimeOfDay renders HH:MM[:SS[.fff|.ffffff|.fffffffff]] the way
// java.time does: seconds only when not zero, the fraction in groups of
// three digits.
func appendTimeOfDay(b *strings.Builder, nanos int64) {
	sec := nanos / NanosPerSecond
	frac := nanos % NanosPerSecond
	pad(b, sec/3600, 2)
	b.WriteByte(':')
	pad(b, sec/60%60, 2)
	if sec%60 == 0 && frac == 0 {
		return
	}
	b.WriteByte(':')
	pad(b, sec%60, 2)
	if frac == 0 {
		return
	}
	b.WriteByte('.')
	switch {
	case frac%1_000_000 == 0:
		pad(b, frac/1_000_000, 3)
	case frac%1000 == 0:
		pad(b, frac/1000, 6)
	default:
		pad(b, frac, 9)
	}
}

// appendOffset renders Z or ±HH:MM[:SS].
func appendOffset(b *strings.Builder, off int32) {
	b.WriteString(FormatOffset(off))
}

// FormatOffset renders a UTC offset in seconds as Z or ±HH:MM[:SS].
func FormatOffset(off int32) string {
	if off == 0 {
		return "Z"
	}
	var b strings.Builder
	o := int64(off)
	if o < 0 {
		b.WriteByte('-')
		o = -o
	} else {
		b.WriteByte('+')
	}
	pad(&b, o/3600, 2)
	b.WriteByte(':')
	pad(&b, o/60%60, 2)
	if o%60 != 0 {
		b.WriteByte(':')
		pad(&b, o%60, 2)
	}
	return b.String()
}

func (t LocalTime) String() string {
	var b strings.Builder
	appendTimeOfDay(&b, t.Nanos)
	return b.String()
}

func (t Time) String() string {
	var b strings.Builder
	appendTimeOfDay(&b, t.Nanos)
	appendOffset(&b, t.Offset)
	return b.String()
}

// Date and TimeOfDay split a LocalDateTime.
func (t LocalDateTime) Date() Date { return Date{FloorDiv(t.Sec, SecondsPerDay)} }

// TimeOfDay is the nanoseconds since midnight.
func (t LocalDateTime) TimeOfDay() int64 {
	return FloorMod(t.Sec, SecondsPerDay)*NanosPerSecond + int64(t.Nanos)
}

func (t LocalDateTime) String() string {
	var b strings.Builder
	appendDate(&b, t.Date().Days)
	b.WriteByte('T')
	appendTimeOfDay(&b, t.TimeOfDay())
	return b.String()
}

// Local is the wall-clock reading of a DateTime in its own offset.
func (t DateTime) Local() LocalDateTime {
	return LocalDateTime{Sec: t.Sec + int64(t.Offset), Nanos: t.Nanos}
}

func (t DateTime) String() string {
	var b strings.Builder
	l := t.Local()
	appendDate(&b, l.Date().Days)
	b.WriteByte('T')
	appendTimeOfDay(&b, l.TimeOfDay())
	appendOffset(&b, t.Offset)
	if t.Zone != "" {
		b.WriteByte('[')
		b.WriteString(t.Zone)
		b.WriteByte(']')
	}
	return b.String()
}

// MakeLocalDateTime combines a date and a time of day.
func MakeLocalDateTime(d Date, nanos int64) LocalDateTime {
	return LocalDateTime{Sec: d.Days*SecondsPerDay + nanos/NanosPerSecond, Nanos: int32(nanos % NanosPerSecond)}
}
