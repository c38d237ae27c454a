package functions

import (
	"errors"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Construction of temporal values from strings, maps and other temporal
// values: the bodies of date(), localtime(), time(), localdatetime() and
// datetime(). A map names calendar fields ({year, month, day},
// {year, week, dayOfWeek}, {year, ordinalDay}, {year, quarter,
// dayOfQuarter}), clock fields (hour … nanosecond), a timezone, and may
// select a base value to start from (date:, time:, datetime:) whose fields
// the other keys override.

// temporalKind is the type a constructor builds.
type temporalKind uint8

const (
	kDate temporalKind = iota
	kLocalTime
	kTime
	kLocalDateTime
	kDateTime
)

var kindNames = [...]string{"date", "localtime", "time", "localdatetime", "datetime"}

func (k temporalKind) hasDate() bool { return k == kDate || k == kLocalDateTime || k == kDateTime }
func (k temporalKind) hasTime() bool { return k != kDate }
func (k temporalKind) zoned() bool   { return k == kTime || k == kDateTime }

// TemporalErr maps a vector parse/range error to an engine error.
func TemporalErr(err error) error {
	if err == nil {
		return nil
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, temporal.ErrRange) || errors.Is(err, temporal.ErrDurationOverflow) {
		return errs.DataCode(errs.CodeDatetimeOverflow, "%s", err.Error())
	}
	return errs.DataCode(errs.CodeInvalidDatetime, "%s", err.Error())
}

func badTemporal(format string, args ...any) error {
	return errs.DataCode(errs.CodeInvalidDatetime, format, args...)
}

// construct is the body of the constructor for kind, with 0 or 1 argument.
func construct(c Env, k temporalKind, args []vector.Value) (vector.Value, error) {
	if len(args) == 0 {
		return current(c, k, "")
	}
	switch x := args[0].(type) {
	case nil:
		return nil, nil
	case string:
		return parseTemporal(c, k, x)
	case map[string]vector.Value:
		return fromMap(c, k, x)
	}
	if temporal.Is(args[0]) {
		return fromMap(c, k, map[string]vector.Value{selectKey(args[0]): args[0]})
	}
	return nil, errs.Data("%s() expects a string, a map or a temporal value, got %s", kindNames[k], TypeName(args[0]))
}

// selectKey is the map key under which a temporal value is selected whole.
func selectKey(v vector.Value) string {
	switch v.(type) {
	case temporal.Date:
		return "date"
	case temporal.LocalTime, temporal.Time:
		return "time"
	}
	return "datetime"
}

func parseTemporal(c Env, k temporalKind, s string) (vector.Value, error) {
	var v vector.Value
	var err error
	switch k {
	case kDate:
		v, err = temporal.ParseDate(s)
	case kLocalTime:
		v, err = temporal.ParseLocalTime(s)
	case kTime:
		v, err = temporal.ParseTime(s, c.Now())
	case kLocalDateTime:
		v, err = temporal.ParseLocalDateTime(s)
	case kDateTime:
		v, err = temporal.ParseDateTime(s)
	}
	if err != nil {
		return nil, TemporalErr(err)
	}
	return v, nil
}

// current is the statement's clock read as kind, in zone (UTC when "").
func current(c Env, k temporalKind, zone string) (vector.Value, error) {
	now := c.Now()
	off, name := int32(0), ""
	if zone != "" {
		var err error
		if off, name, err = temporal.ParseZone(zone); err != nil {
			return nil, TemporalErr(err)
		}
	}
	dt, err := temporal.AtInstant(now.Unix(), int32(now.Nanosecond()), off, name)
	if err != nil {
		return nil, TemporalErr(err)
	}
	return convert(k, dt), nil
}

// convert narrows a DateTime to kind k.
func convert(k temporalKind, dt temporal.DateTime) vector.Value {
	l := dt.Local()
	switch k {
	case kDate:
		return l.Date()
	case kLocalTime:
		return temporal.LocalTime{Nanos: l.TimeOfDay()}
	case kTime:
		return temporal.Time{Nanos: l.TimeOfDay(), Offset: dt.Offset}
	case kLocalDateTime:
		return l
	}
	return dt
}

func fromMap(c Env, k temporalKind, raw map[string]vector.Value) (vector.Value, error) {
	m := make(temporalMap, len(raw))
	for key, v := range raw {
		lk := strings.ToLower(key)
		if !mapKeys[lk] {
			return nil, badTemporal("%s() does not take the key %q", kindNames[k], key)
		}
		if v != nil { // a null field counts as not given
			m[lk] = v
		}
	}
	if len(m) == 1 && m.has("timezone") {
		tz, ok := m["timezone"].(string)
		if !ok {
			return nil, badTemporal("timezone must be a string")
		}
		return current(c, k, tz)
	}
	if k == kDateTime && m.has("epochseconds", "epochmillis") {
		return fromEpoch(m)
	}
	var base baseParts
	if err := base.take(m); err != nil {
		return nil, err
	}
	var date temporal.Date
	if k.hasDate() {
		var err error
		if date, err = dateFields(m, base); err != nil {
			return nil, err
		}
	} else if m.has("year", "month", "day", "week", "dayofweek", "ordinalday", "quarter", "dayofquarter") {
		return nil, badTemporal("%s() does not take date fields", kindNames[k])
	}
	var tod int64
	if k.hasTime() {
		var err error
		if tod, err = timeFields(m, base); err != nil {
			return nil, err
		}
	} else if m.has("hour", "minute", "second", "millisecond", "microsecond", "nanosecond") {
		return nil, badTemporal("date() does not take time fields")
	}
	switch k {
	case kDate:
		return date, nil
	case kLocalTime:
		return temporal.LocalTime{Nanos: tod}, nil
	case kLocalDateTime:
		return temporal.MakeLocalDateTime(date, tod), nil
	}
	if !k.zoned() {
		panic("BUG: functions: unhandled temporal kind")
	}
	var tzOff int32
	var tzName string
	tzGiven := false
	if tz, ok := m["timezone"]; ok && tz != nil {
		s, isStr := tz.(string)
		if !isStr {
			return nil, badTemporal("timezone must be a string, got %s", TypeName(tz))
		}
		var err error
		if tzOff, tzName, err = temporal.ParseZone(s); err != nil {
			return nil, TemporalErr(err)
		}
		tzGiven = true
	}
	if k == kTime {
		return makeTime(c, tod, base, tzGiven, tzOff, tzName)
	}
	local := temporal.MakeLocalDateTime(date, tod)
	var dt temporal.DateTime
	var err error
	switch {
	case base.zoned && base.zone != "":
		dt, err = temporal.InZone(local, base.zone)
	case base.zoned:
		dt = temporal.InOffset(local, base.offset)
	case tzName != "":
		dt, err = temporal.InZone(local, tzName)
	default:
		dt = temporal.InOffset(local, tzOff)
	}
	if err == nil && base.zoned && tzGiven {
		dt, err = temporal.AtInstant(dt.Sec, dt.Nanos, tzOff, tzName)
	}
	if err != nil {
		return nil, TemporalErr(err)
	}
	return dt, nil
}

// makeTime builds a TIME; a zoned base given a new timezone is shifted to
// it, a local one just takes it on.
func makeTime(c Env, tod int64, base baseParts, tzGiven bool, tzOff int32, tzName string) (vector.Value, error) {
	if tzName != "" {
		loc, err := temporal.LoadZone(tzName)
		if err != nil {
			return nil, TemporalErr(err)
		}
		_, o := c.Now().In(loc).Zone()
		tzOff = int32(o)
	}
	off := tzOff
	if base.zoned {
		off = base.offset
		if base.zone != "" {
			if dt, err := temporal.InZone(temporal.MakeLocalDateTime(base.date, tod), base.zone); err == nil {
				off = dt.Offset
			}
		}
		if tzGiven {
			tod = temporal.FloorMod(tod+int64(tzOff-off)*temporal.NanosPerSecond, temporal.NanosPerDay)
			off = tzOff
		}
	}
	return temporal.Time{Nanos: tod, Offset: off}, nil
}
