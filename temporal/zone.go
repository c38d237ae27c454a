package temporal

import (
	"fmt"
	"time"
)

// Time zones: fixed offsets and IANA zone names, resolved through the
// system's zoneinfo by package time. A DateTime keeps the zone's name so
// that arithmetic can re-resolve the offset (across DST changes) and
// rendering can show it.

// InOffset places a local date-time at a fixed offset.
func InOffset(l LocalDateTime, off int32) DateTime {
	return DateTime{Sec: l.Sec - int64(off), Nanos: l.Nanos, Offset: off}
}

// LoadZone loads a time zone by IANA name; fixed offsets are not names.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%w: unknown time zone %q", ErrFormat, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%w: unknown time zone %q", ErrFormat, name)
	}
	return loc, nil
}

// InZone resolves a wall-clock reading in a named zone the way java.time
// does: in an overlap (clocks set back) the earlier offset wins, in a gap
// (clocks set forward) the reading moves forward by the gap's length.
func InZone(l LocalDateTime, name string) (DateTime, error) {
	loc, err := LoadZone(name)
	if err != nil {
		return DateTime{}, err
	}
	offAt := func(u int64) int64 {
		_, o := time.Unix(u, 0).In(loc).Zone()
		return int64(o)
	}
	// The offsets in force a day either side bracket any transition at
	// this reading; each that maps the reading onto itself is a valid
	// resolution, and the largest offset is the earliest instant.
	guess := l.Sec - offAt(l.Sec)
	best, found := int64(0), false
	for _, off := range [...]int64{offAt(guess - SecondsPerDay), offAt(guess), offAt(guess + SecondsPerDay)} {
		if offAt(l.Sec-off) == off && (!found || off > best) {
			best, found = off, true
		}
	}
	if !found {
		// A gap: read the wall clock with the offset before it, which
		// lands after the gap.
		before := offAt(guess - SecondsPerDay)
		u := l.Sec - before
		return DateTime{Sec: u, Nanos: l.Nanos, Offset: int32(offAt(u)), Zone: name}, nil
	}
	return DateTime{Sec: l.Sec - best, Nanos: l.Nanos, Offset: int32(best), Zone: name}, nil
}

// AtInstant builds a DateTime for UTC epoch seconds shown in a zone name
// or, when name is "", at the fixed offset.
func AtInstant(sec int64, nanos int32, off int32, name string) (DateTime, error) {
	if name == "" {
		return DateTime{Sec: sec, Nanos: nanos, Offset: off}, nil
	}
	loc, err := LoadZone(name)
	if err != nil {
		return DateTime{}, err
	}
	_, o := time.Unix(sec, 0).In(loc).Zone()
	return DateTime{Sec: sec, Nanos: nanos, Offset: int32(o), Zone: name}, nil
}

// ParseZone parses a timezone value as given in a map: an offset (Z,
// +01:00, -0130, +02) or a zone name.
func ParseZone(s string) (off int32, name string, err error) {
	c := &cursor{s: s}
	if ch := c.peek(); ch == 'Z' || ch == '+' || ch == '-' {
		z, err := c.zone("time zone")
		if err != nil {
			return 0, "", err
		}
		if !c.done() || z.name != "" {
			return 0, "", formatErr("time zone", s)
		}
		return z.offset, "", nil
	}
	if _, err := LoadZone(s); err != nil {
		return 0, "", err
	}
	return 0, s, nil
}
