package temporal

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Parsing of the ISO 8601 forms Cypher accepts, in extended (2015-07-21,
// 21:40:32) and basic (20150721, 214032) notation, with week dates
// (2015-W30-2), ordinal dates (2015-202), reduced precision (2015-07,
// 21:40), offsets (Z, +01:00, +0100, +01) and zone names in brackets.

// ErrFormat is wrapped by every parse error.
var ErrFormat = errors.New("invalid temporal format")

// ErrRange is wrapped when a field is out of its range.
var ErrRange = errors.New("temporal field out of range")

func formatErr(kind, s string) error {
	return fmt.Errorf("%w: cannot parse %q as %s", ErrFormat, s, kind)
}

// RangeErr reports a field value out of its range.
func RangeErr(field string, v, lo, hi int64) error {
	return fmt.Errorf("%w: %s %d is not in %d..%d", ErrRange, field, v, lo, hi)
}

// cursor scans a string left to right.
type cursor struct {
	s string
	i int
}

func (c *cursor) done() bool { return c.i >= len(c.s) }
func (c *cursor) peek() byte {
	if c.done() {
		return 0
	}
	return c.s[c.i]
}

func (c *cursor) accept(b byte) bool {
	if c.peek() == b {
		c.i++
		return true
	}
	return false
}

// digitRun counts the digits starting at the cursor.
func (c *cursor) digitRun() int {
	n := 0
	for c.i+n < len(c.s) && c.s[c.i+n] >= '0' && c.s[c.i+n] <= '9' {
		n++
	}
	return n
}

// num reads exactly n digits.
func (c *cursor) num(n int) (int64, bool) {
	if c.i+n > len(c.s) {
		return 0, false
	}
	var v int64
	for _, ch := range []byte(c.s[c.i : c.i+n]) {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		v = v*10 + int64(ch-'0')
	}
	c.i += n
	return v, true
}

// ParseDate parses a date string.
func ParseDate(s string) (Date, error) {
	c := &cursor{s: s}
	d, err := c.date()
	if err == nil && !c.done() {
		err = formatErr("DATE", s)
	}
	if err != nil {
		return Date{}, err
	}
	return d, nil
}

// MakeDate validates a calendar date.
func MakeDate(y, m, d int64) (Date, error) {
	if err := checkYear(y); err != nil {
		return Date{}, err
	}
	if m < 1 || m > 12 {
		return Date{}, RangeErr("month", m, 1, 12)
	}
	if dm := DaysInMonth(y, m); d < 1 || d > dm {
		return Date{}, RangeErr("day", d, 1, dm)
	}
	return Date{DaysFromCivil(y, m, d)}, nil
}

// MakeWeekDate validates an ISO week date.
func MakeWeekDate(wy, w, dow int64) (Date, error) {
	if err := checkYear(wy); err != nil {
		return Date{}, err
	}
	if n := WeeksInYear(wy); w < 1 || w > n {
		return Date{}, RangeErr("week", w, 1, n)
	}
	if dow < 1 || dow > 7 {
		return Date{}, RangeErr("dayOfWeek", dow, 1, 7)
	}
	return Date{WeekYearStart(wy) + (w-1)*7 + dow - 1}, nil
}

// MakeOrdinalDate validates a year and day of the year.
func MakeOrdinalDate(y, od int64) (Date, error) {
	if err := checkYear(y); err != nil {
		return Date{}, err
	}
	n := int64(365)
	if IsLeap(y) {
		n = 366
	}
	if od < 1 || od > n {
		return Date{}, RangeErr("ordinalDay", od, 1, n)
	}
	return Date{DaysFromCivil(y, 1, 1) + od - 1}, nil
}

// MakeQuarterDate validates a year, quarter and day of the quarter.
func MakeQuarterDate(y, q, dq int64) (Date, error) {
	if err := checkYear(y); err != nil {
		return Date{}, err
	}
	if q < 1 || q > 4 {
		return Date{}, RangeErr("quarter", q, 1, 4)
	}
	start := DaysFromCivil(y, (q-1)*3+1, 1)
	n := DaysFromCivil(y+q/4, q%4*3+1, 1) - start
	if dq < 1 || dq > n {
		return Date{}, RangeErr("dayOfQuarter", dq, 1, n)
	}
	return Date{start + dq - 1}, nil
}

// Year range of Cypher temporal values.
const (
	MinYear = -999_999_999
	MaxYear = 999_999_999
)

func checkYear(y int64) error {
	if y < MinYear || y > MaxYear {
		return RangeErr("year", y, MinYear, MaxYear)
	}
	return nil
}

func (c *cursor) date() (Date, error) {
	bad := formatErr("DATE", c.s)
	var y int64
	var ok bool
	if ch := c.peek(); ch == '+' || ch == '-' {
		c.i++
		n := c.digitRun()
		if n < 4 || n > 9 {
			return Date{}, bad
		}
		y, _ = c.num(n)
		if ch == '-' {
			y = -y
		}
	} else if y, ok = c.num(4); !ok {
		return Date{}, bad
	}
	if c.done() || c.peek() == 'T' {
		return MakeDate(y, 1, 1)
	}
	ext := c.accept('-')
	if c.accept('W') {
		w, ok := c.num(2)
		if !ok {
			return Date{}, bad
		}
		dow := int64(1)
		if (ext && c.accept('-')) || (!ext && c.digitRun() > 0) {
			if dow, ok = c.num(1); !ok {
				return Date{}, bad
			}
		}
		return MakeWeekDate(y, w, dow)
	}
	n := c.digitRun()
	switch {
	case n == 3:
		od, _ := c.num(3)
		return MakeOrdinalDate(y, od)
	case n == 2:
		m, _ := c.num(2)
		if ext && c.accept('-') {
			d, ok := c.num(2)
			if !ok {
				return Date{}, bad
			}
			return MakeDate(y, m, d)
		}
		return MakeDate(y, m, 1)
	case n == 4 && !ext:
		m, _ := c.num(2)
		d, _ := c.num(2)
		return MakeDate(y, m, d)
	}
	return Date{}, bad
}

// timeOfDay parses HH[:MM[:SS[.f]]] or HH[MM[SS[.f]]].
func (c *cursor) timeOfDay(kind string) (int64, error) {
	bad := formatErr(kind, c.s)
	h, ok := c.num(2)
	if !ok {
		return 0, bad
	}
	var m, s, frac int64
	ext := c.peek() == ':'
	if ext {
		c.i++
	}
	if (ext || c.digitRun() >= 2) && c.digitRun() >= 2 {
		m, _ = c.num(2)
		sep := true
		if ext {
			sep = c.accept(':')
		}
		if sep && c.digitRun() >= 2 {
			s, _ = c.num(2)
			if c.accept('.') || c.accept(',') {
				n := c.digitRun()
				if n == 0 || n > 9 {
					return 0, bad
				}
				frac, _ = c.num(n)
				for ; n < 9; n++ {
					frac *= 10
				}
			}
		} else if ext && sep {
			return 0, bad
		}
	} else if ext {
		return 0, bad
	}
	return MakeTimeOfDay(h, m, s, frac)
}

// MakeTimeOfDay validates clock fields into nanoseconds since midnight.
func MakeTimeOfDay(h, m, s, ns int64) (int64, error) {
	switch {
	case h < 0 || h > 23:
		return 0, RangeErr("hour", h, 0, 23)
	case m < 0 || m > 59:
		return 0, RangeErr("minute", m, 0, 59)
	case s < 0 || s > 59:
		return 0, RangeErr("second", s, 0, 59)
	case ns < 0 || ns >= NanosPerSecond:
		return 0, RangeErr("nanosecond", ns, 0, NanosPerSecond-1)
	}
	return ((h*60+m)*60+s)*NanosPerSecond + ns, nil
}

// zone is a parsed zone suffix: an offset, a name, or both.
type zone struct {
	has, hasOffset bool
	offset         int32
	name           string
}

func (c *cursor) zone(kind string) (zone, error) {
	bad := formatErr(kind, c.s)
	var z zone
	switch ch := c.peek(); ch {
	case 'Z':
		c.i++
		z.has, z.hasOffset = true, true
	case '+', '-':
		c.i++
		h, ok := c.num(2)
		if !ok {
			return z, bad
		}
		var m, s int64
		ext := c.accept(':')
		if c.digitRun() >= 2 {
			m, _ = c.num(2)
			if (ext && c.accept(':')) || (!ext && c.digitRun() >= 2) {
				if s, ok = c.num(2); !ok {
					return z, bad
				}
			}
		} else if ext {
			return z, bad
		}
		off := h*3600 + m*60 + s
		if h > 18 || m > 59 || s > 59 || off > 18*3600 {
			return z, RangeErr("offset seconds", off, -18*3600, 18*3600)
		}
		if ch == '-' {
			off = -off
		}
		z.has, z.hasOffset, z.offset = true, true, int32(off)
	}
	if c.accept('[') {
		end := strings.IndexByte(c.s[c.i:], ']')
		if end <= 0 {
			return z, bad
		}
		z.has, z.name = true, c.s[c.i:c.i+end]
		c.i += end + 1
	}
	return z, nil
}

// ParseLocalTime parses a time of day; a zone suffix is not allowed.
func ParseLocalTime(s string) (LocalTime, error) {
	c := &cursor{s: s}
	ns, err := c.timeOfDay("LOCAL TIME")
	if err != nil {
		return LocalTime{}, err
	}
	if !c.done() {
		return LocalTime{}, formatErr("LOCAL TIME", s)
	}
	return LocalTime{ns}, nil
}

// ParseTime parses a time of day with an optional offset (UTC when
// missing). A zone name resolves to its offset at the instant now.
func ParseTime(s string, now time.Time) (Time, error) {
	c := &cursor{s: s}
	ns, err := c.timeOfDay("TIME")
	if err != nil {
		return Time{}, err
	}
	z, err := c.zone("TIME")
	if err != nil {
		return Time{}, err
	}
	if !c.done() {
		return Time{}, formatErr("TIME", s)
	}
	off := z.offset
	if z.name != "" && !z.hasOffset {
		loc, err := LoadZone(z.name)
		if err != nil {
			return Time{}, err
		}
		_, o := now.In(loc).Zone()
		off = int32(o)
	}
	return Time{Nanos: ns, Offset: off}, nil
}

// ParseLocalDateTime parses date[Ttime].
func ParseLocalDateTime(s string) (LocalDateTime, error) {
	c := &cursor{s: s}
	d, err := c.date()
	if err != nil {
		return LocalDateTime{}, err
	}
	var ns int64
	if c.accept('T') {
		if ns, err = c.timeOfDay("LOCAL DATETIME"); err != nil {
			return LocalDateTime{}, err
		}
	}
	if !c.done() {
		return LocalDateTime{}, formatErr("LOCAL DATETIME", s)
	}
	return MakeLocalDateTime(d, ns), nil
}

// ParseDateTime parses date[Ttime][zone]; UTC when no zone is given.
func ParseDateTime(s string) (DateTime, error) {
	c := &cursor{s: s}
	d, err := c.date()
	if err != nil {
		return DateTime{}, err
	}
	var ns int64
	var z zone
	if c.accept('T') {
		if ns, err = c.timeOfDay("DATETIME"); err != nil {
			return DateTime{}, err
		}
		if z, err = c.zone("DATETIME"); err != nil {
			return DateTime{}, err
		}
	}
	if !c.done() {
		return DateTime{}, formatErr("DATETIME", s)
	}
	local := MakeLocalDateTime(d, ns)
	if z.name != "" {
		return InZone(local, z.name)
	}
	return InOffset(local, z.offset), nil
}
