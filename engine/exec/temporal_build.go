package exec

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
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

// temporalErr maps a vector parse/range error to an engine error.
func temporalErr(err error) error {
	if err == nil {
		return nil
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, vector.ErrTemporalRange) || errors.Is(err, vector.ErrDurationOverflow) {
		return errs.DataCode(errs.CodeDatetimeOverflow, "%s", err.Error())
	}
	return errs.DataCode(errs.CodeInvalidDatetime, "%s", err.Error())
}

func badTemporal(format string, args ...any) error {
	return errs.DataCode(errs.CodeInvalidDatetime, format, args...)
}

// construct is the body of the constructor for kind, with 0 or 1 argument.
func construct(c *Context, k temporalKind, args []vector.Value) (vector.Value, error) {
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
	if vector.IsTemporal(args[0]) {
		return fromMap(c, k, map[string]vector.Value{selectKey(args[0]): args[0]})
	}
	return nil, errs.Data("%s() expects a string, a map or a temporal value, got %s", kindNames[k], typeName(args[0]))
}

// selectKey is the map key under which a temporal value is selected whole.
func selectKey(v vector.Value) string {
	switch v.(type) {
	case vector.Date:
		return "date"
	case vector.LocalTime, vector.Time:
		return "time"
	}
	return "datetime"
}

func parseTemporal(c *Context, k temporalKind, s string) (vector.Value, error) {
	var v vector.Value
	var err error
	switch k {
	case kDate:
		v, err = vector.ParseDate(s)
	case kLocalTime:
		v, err = vector.ParseLocalTime(s)
	case kTime:
		v, err = vector.ParseTime(s, c.Now())
	case kLocalDateTime:
		v, err = vector.ParseLocalDateTime(s)
	case kDateTime:
		v, err = vector.ParseDateTime(s)
	}
	if err != nil {
		return nil, temporalErr(err)
	}
	return v, nil
}

// current is the statement's clock read as kind, in zone (UTC when "").
func current(c *Context, k temporalKind, zone string) (vector.Value, error) {
	now := c.Now()
	off, name := int32(0), ""
	if zone != "" {
		var err error
		if off, name, err = vector.ParseZone(zone); err != nil {
			return nil, temporalErr(err)
		}
	}
	dt, err := vector.AtInstant(now.Unix(), int32(now.Nanosecond()), off, name)
	if err != nil {
		return nil, temporalErr(err)
	}
	return convert(k, dt), nil
}

// convert narrows a DateTime to kind k.
func convert(k temporalKind, dt vector.DateTime) vector.Value {
	l := dt.Local()
	switch k {
	case kDate:
		return l.Date()
	case kLocalTime:
		return vector.LocalTime{Nanos: l.TimeOfDay()}
	case kTime:
		return vector.Time{Nanos: l.TimeOfDay(), Offset: dt.Offset}
	case kLocalDateTime:
		return l
	}
	return dt
}

// temporalMap is a constructor map with lower-cased keys.
type temporalMap map[string]vector.Value

var mapKeys = map[string]bool{
	"year": true, "month": true, "day": true, "week": true, "dayofweek": true, "ordinalday": true,
	"quarter": true, "dayofquarter": true, "hour": true, "minute": true, "second": true,
	"millisecond": true, "microsecond": true, "nanosecond": true, "timezone": true,
	"date": true, "time": true, "datetime": true, "epochseconds": true, "epochmillis": true,
}

// int reads an integer field; ok is false when absent.
func (m temporalMap) int(key string) (int64, bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	switch x := v.(type) {
	case int64:
		return x, true, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e18 {
			return int64(x), true, nil
		}
	}
	return 0, false, badTemporal("temporal field %s must be an integer, got %s", key, typeName(v))
}

func (m temporalMap) has(keys ...string) bool {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return true
		}
	}
	return false
}

// baseParts are what a selected base value contributes.
type baseParts struct {
	hasDate, hasTime bool
	date             vector.Date
	tod              int64 // nanoseconds since midnight
	zoned            bool
	offset           int32
	zone             string
}

func fromMap(c *Context, k temporalKind, raw map[string]vector.Value) (vector.Value, error) {
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
	var date vector.Date
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
		return vector.LocalTime{Nanos: tod}, nil
	case kLocalDateTime:
		return vector.MakeLocalDateTime(date, tod), nil
	}
	if !k.zoned() {
		panic("BUG: exec: unhandled temporal kind")
	}
	var tzOff int32
	var tzName string
	tzGiven := false
	if tz, ok := m["timezone"]; ok && tz != nil {
		s, isStr := tz.(string)
		if !isStr {
			return nil, badTemporal("timezone must be a string, got %s", typeName(tz))
		}
		var err error
		if tzOff, tzName, err = vector.ParseZone(s); err != nil {
			return nil, temporalErr(err)
		}
		tzGiven = true
	}
	if k == kTime {
		return makeTime(c, tod, base, tzGiven, tzOff, tzName)
	}
	local := vector.MakeLocalDateTime(date, tod)
	var dt vector.DateTime
	var err error
	switch {
	case base.zoned && base.zone != "":
		dt, err = vector.InZone(local, base.zone)
	case base.zoned:
		dt = vector.InOffset(local, base.offset)
	case tzName != "":
		dt, err = vector.InZone(local, tzName)
	default:
		dt = vector.InOffset(local, tzOff)
	}
	if err == nil && base.zoned && tzGiven {
		dt, err = vector.AtInstant(dt.Sec, dt.Nanos, tzOff, tzName)
	}
	if err != nil {
		return nil, temporalErr(err)
	}
	return dt, nil
}

// makeTime builds a TIME; a zoned base given a new timezone is shifted to
// it, a local one just takes it on.
func makeTime(c *Context, tod int64, base baseParts, tzGiven bool, tzOff int32, tzName string) (vector.Value, error) {
	if tzName != "" {
		loc, err := vector.LoadZone(tzName)
		if err != nil {
			return nil, temporalErr(err)
		}
		_, o := c.Now().In(loc).Zone()
		tzOff = int32(o)
	}
	off := tzOff
	if base.zoned {
		off = base.offset
		if base.zone != "" {
			if dt, err := vector.InZone(vector.MakeLocalDateTime(base.date, tod), base.zone); err == nil {
				off = dt.Offset
			}
		}
		if tzGiven {
			tod = vector.FloorMod(tod+int64(tzOff-off)*vector.NanosPerSecond, vector.NanosPerDay)
			off = tzOff
		}
	}
	return vector.Time{Nanos: tod, Offset: off}, nil
}

// take reads the date:, time: and datetime: selections.
func (b *baseParts) take(m temporalMap) error {
	if v, ok := m["datetime"]; ok && v != nil {
		if err := b.takeDate(v, "datetime"); err != nil {
			return err
		}
		if err := b.takeTime(v, "datetime"); err != nil {
			return err
		}
	}
	if v, ok := m["date"]; ok && v != nil {
		if err := b.takeDate(v, "date"); err != nil {
			return err
		}
	}
	if v, ok := m["time"]; ok && v != nil {
		b.zoned = false
		if err := b.takeTime(v, "time"); err != nil {
			return err
		}
	}
	return nil
}

func (b *baseParts) takeDate(v vector.Value, key string) error {
	switch x := v.(type) {
	case vector.Date:
		b.date = x
	case vector.LocalDateTime:
		b.date = x.Date()
	case vector.DateTime:
		b.date = x.Local().Date()
	default:
		return badTemporal("%s: must be a value with a date, got %s", key, typeName(v))
	}
	b.hasDate = true
	return nil
}

func (b *baseParts) takeTime(v vector.Value, key string) error {
	switch x := v.(type) {
	case vector.LocalTime:
		b.tod = x.Nanos
	case vector.Time:
		b.tod, b.zoned, b.offset, b.zone = x.Nanos, true, x.Offset, ""
	case vector.LocalDateTime:
		b.tod = x.TimeOfDay()
	case vector.DateTime:
		b.tod, b.zoned, b.offset, b.zone = x.Local().TimeOfDay(), true, x.Offset, x.Zone
		if !b.hasDate {
			b.date = x.Local().Date()
		}
	default:
		return badTemporal("%s: must be a value with a time, got %s", key, typeName(v))
	}
	b.hasTime = true
	return nil
}

// dateFields resolves the calendar fields against the base date.
func dateFields(m temporalMap, base baseParts) (vector.Date, error) {
	get := func(key string, def int64) (int64, error) {
		v, ok, err := m.int(key)
		if !ok {
			return def, err
		}
		return v, err
	}
	if !base.hasDate && !m.has("year") {
		return vector.Date{}, badTemporal("a date needs a year")
	}
	var err error
	var d vector.Date
	switch {
	case m.has("week", "dayofweek"):
		var wy, w, dow int64 = 0, 1, 1
		if base.hasDate {
			wy, w = vector.IsoWeek(base.date.Days)
			dow = vector.DayOfWeek(base.date.Days)
		}
		if wy, err = get("year", wy); err != nil {
			return d, err
		}
		if w, err = get("week", w); err != nil {
			return d, err
		}
		if dow, err = get("dayofweek", dow); err != nil {
			return d, err
		}
		d, err = vector.MakeWeekDate(wy, w, dow)
	case m.has("ordinalday"):
		var y, od int64 = 0, 1
		if base.hasDate {
			y, od = base.date.Year(), base.date.OrdinalDay()
		}
		if y, err = get("year", y); err != nil {
			return d, err
		}
		if od, err = get("ordinalday", od); err != nil {
			return d, err
		}
		d, err = vector.MakeOrdinalDate(y, od)
	case m.has("quarter", "dayofquarter"):
		var y, q, dq int64 = 0, 1, 1
		if base.hasDate {
			y, q, dq = base.date.Year(), base.date.Quarter(), base.date.DayOfQuarter()
		}
		if y, err = get("year", y); err != nil {
			return d, err
		}
		if q, err = get("quarter", q); err != nil {
			return d, err
		}
		if dq, err = get("dayofquarter", dq); err != nil {
			return d, err
		}
		d, err = vector.MakeQuarterDate(y, q, dq)
	default:
		var y, mo, dd int64 = 0, 1, 1
		if base.hasDate {
			y, mo, dd = vector.CivilFromDays(base.date.Days)
		}
		if y, err = get("year", y); err != nil {
			return d, err
		}
		if mo, err = get("month", mo); err != nil {
			return d, err
		}
		if dd, err = get("day", dd); err != nil {
			return d, err
		}
		if m.has("day") && !m.has("month") && !base.hasDate {
			return d, badTemporal("a day needs a month")
		}
		d, err = vector.MakeDate(y, mo, dd)
	}
	return d, temporalErr(err)
}

// timeFields resolves the clock fields against the base time.
func timeFields(m temporalMap, base baseParts) (int64, error) {
	var h, mi, s, ns int64
	if base.hasTime {
		sec := base.tod / vector.NanosPerSecond
		h, mi, s, ns = sec/3600, sec/60%60, sec%60, base.tod%vector.NanosPerSecond
	}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"hour", &h}, {"minute", &mi}, {"second", &s}} {
		v, ok, err := m.int(f.key)
		if err != nil {
			return 0, err
		}
		if ok {
			*f.dst = v
		}
	}
	if m.has("millisecond", "microsecond", "nanosecond") {
		var err error
		if ns, err = subSecond(m, ns); err != nil {
			return 0, err
		}
	}
	if !base.hasTime && m.has("second", "millisecond", "microsecond", "nanosecond") && !m.has("minute") {
		return 0, badTemporal("a second needs a minute")
	}
	if !base.hasTime && m.has("minute") && !m.has("hour") {
		return 0, badTemporal("a minute needs an hour")
	}
	tod, err := vector.MakeTimeOfDay(h, mi, s, ns)
	return tod, temporalErr(err)
}

// subSecond applies millisecond, microsecond and nanosecond to the
// fraction of a second frac. Given together, each names its own three
// digits ({millisecond: 123, microsecond: 456, nanosecond: 789} is
// .123456789); alone, microsecond is the microsecond of the second and
// nanosecond below 1000 replaces only the last three digits of the base
// (truncating to milliseconds and setting nanosecond: 2 gives .645000002).
func subSecond(m temporalMap, frac int64) (int64, error) {
	ms, hasMs, err := m.int("millisecond")
	if err != nil {
		return 0, err
	}
	us, hasUs, err := m.int("microsecond")
	if err != nil {
		return 0, err
	}
	n, hasNs, err := m.int("nanosecond")
	if err != nil {
		return 0, err
	}
	if hasMs {
		if ms < 0 || ms > 999 {
			return 0, temporalErr(vector.RangeErr("millisecond", ms, 0, 999))
		}
		frac = ms*1_000_000 + frac%1_000_000
	}
	if hasUs {
		switch {
		case hasMs && (us < 0 || us > 999):
			return 0, temporalErr(vector.RangeErr("microsecond", us, 0, 999))
		case us < 0 || us > 999_999:
			return 0, temporalErr(vector.RangeErr("microsecond", us, 0, 999_999))
		case hasMs:
			frac = frac/1_000_000*1_000_000 + us*1000 + frac%1000
		default:
			frac = us*1000 + frac%1000
		}
	}
	if hasNs {
		switch {
		case (hasMs || hasUs) && (n < 0 || n > 999):
			return 0, temporalErr(vector.RangeErr("nanosecond", n, 0, 999))
		case n < 0 || n > 999_999_999:
			return 0, temporalErr(vector.RangeErr("nanosecond", n, 0, 999_999_999))
		case n < 1000:
			frac = frac/1000*1000 + n
		default:
			frac = n
		}
	}
	return frac, nil
}

// fromEpoch builds datetime({epochSeconds | epochMillis, nanosecond, timezone}).
func fromEpoch(m temporalMap) (vector.Value, error) {
	var sec, ns int64
	if v, ok, err := m.int("epochseconds"); err != nil {
		return nil, err
	} else if ok {
		sec = v
	}
	if v, ok, err := m.int("epochmillis"); err != nil {
		return nil, err
	} else if ok {
		sec += vector.FloorDiv(v, 1000)
		ns += vector.FloorMod(v, 1000) * 1_000_000
	}
	if v, ok, err := m.int("nanosecond"); err != nil {
		return nil, err
	} else if ok {
		ns += v
	}
	var off int32
	var name string
	if tz, ok := m["timezone"].(string); ok {
		var err error
		if off, name, err = vector.ParseZone(tz); err != nil {
			return nil, temporalErr(err)
		}
	}
	sec += vector.FloorDiv(ns, vector.NanosPerSecond)
	const maxSec = (vector.MaxYear - 1970) * 366 * 86400
	if sec > maxSec || sec < -maxSec {
		return nil, errs.DataCode(errs.CodeDatetimeOverflow, "epoch seconds %d out of range", sec)
	}
	dt, err := vector.AtInstant(sec, int32(vector.FloorMod(ns, vector.NanosPerSecond)), off, name)
	if err != nil {
		return nil, temporalErr(err)
	}
	return checkDateTime(dt)
}

func checkDateTime(dt vector.DateTime) (vector.Value, error) {
	if _, err := checkDate(dt.Local().Date()); err != nil {
		return nil, err
	}
	return dt, nil
}

// fromEpochArgs is datetime.fromepoch(seconds, nanoseconds) and
// datetime.fromepochmillis(millis).
func fromEpochArgs(millis bool, args []vector.Value) (vector.Value, error) {
	for _, a := range args {
		if a == nil {
			return nil, nil
		}
	}
	m := temporalMap{}
	if millis {
		m["epochmillis"] = args[0]
	} else {
		m["epochseconds"] = args[0]
		m["nanosecond"] = args[1]
	}
	return fromEpoch(m)
}

// Now is the statement's clock: read once, so every current-time function
// of a statement agrees.
func (c *Context) Now() time.Time {
	if c.now.IsZero() {
		c.now = time.Now()
	}
	return c.now
}
