package functions

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The fields of a constructor map: calendar and clock fields resolved
// against a selected base value, sub-second digit groups, and the epoch
// forms of datetime().

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
	return 0, false, badTemporal("temporal field %s must be an integer, got %s", key, TypeName(v))
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
	date             temporal.Date
	tod              int64 // nanoseconds since midnight
	zoned            bool
	offset           int32
	zone             string
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
	case temporal.Date:
		b.date = x
	case temporal.LocalDateTime:
		b.date = x.Date()
	case temporal.DateTime:
		b.date = x.Local().Date()
	default:
		return badTemporal("%s: must be a value with a date, got %s", key, TypeName(v))
	}
	b.hasDate = true
	return nil
}

func (b *baseParts) takeTime(v vector.Value, key string) error {
	switch x := v.(type) {
	case temporal.LocalTime:
		b.tod = x.Nanos
	case temporal.Time:
		b.tod, b.zoned, b.offset, b.zone = x.Nanos, true, x.Offset, ""
	case temporal.LocalDateTime:
		b.tod = x.TimeOfDay()
	case temporal.DateTime:
		b.tod, b.zoned, b.offset, b.zone = x.Local().TimeOfDay(), true, x.Offset, x.Zone
		if !b.hasDate {
			b.date = x.Local().Date()
		}
	default:
		return badTemporal("%s: must be a value with a time, got %s", key, TypeName(v))
	}
	b.hasTime = true
	return nil
}

// dateFields resolves the calendar fields against the base date.
func dateFields(m temporalMap, base baseParts) (temporal.Date, error) {
	get := func(key string, def int64) (int64, error) {
		v, ok, err := m.int(key)
		if !ok {
			return def, err
		}
		return v, err
	}
	if !base.hasDate && !m.has("year") {
		return temporal.Date{}, badTemporal("a date needs a year")
	}
	var err error
	var d temporal.Date
	switch {
	case m.has("week", "dayofweek"):
		var wy, w, dow int64 = 0, 1, 1
		if base.hasDate {
			wy, w = temporal.IsoWeek(base.date.Days)
			dow = temporal.DayOfWeek(base.date.Days)
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
		d, err = temporal.MakeWeekDate(wy, w, dow)
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
		d, err = temporal.MakeOrdinalDate(y, od)
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
		d, err = temporal.MakeQuarterDate(y, q, dq)
	default:
		var y, mo, dd int64 = 0, 1, 1
		if base.hasDate {
			y, mo, dd = temporal.CivilFromDays(base.date.Days)
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
		d, err = temporal.MakeDate(y, mo, dd)
	}
	return d, TemporalErr(err)
}

// timeFields resolves the clock fields against the base time.
func timeFields(m temporalMap, base baseParts) (int64, error) {
	var h, mi, s, ns int64
	if base.hasTime {
		sec := base.tod / temporal.NanosPerSecond
		h, mi, s, ns = sec/3600, sec/60%60, sec%60, base.tod%temporal.NanosPerSecond
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
	tod, err := temporal.MakeTimeOfDay(h, mi, s, ns)
	return tod, TemporalErr(err)
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
			return 0, TemporalErr(temporal.RangeErr("millisecond", ms, 0, 999))
		}
		frac = ms*1_000_000 + frac%1_000_000
	}
	if hasUs {
		switch {
		case hasMs && (us < 0 || us > 999):
			return 0, TemporalErr(temporal.RangeErr("microsecond", us, 0, 999))
		case us < 0 || us > 999_999:
			return 0, TemporalErr(temporal.RangeErr("microsecond", us, 0, 999_999))
		case hasMs:
			frac = frac/1_000_000*1_000_000 + us*1000 + frac%1000
		default:
			frac = us*1000 + frac%1000
		}
	}
	if hasNs {
		switch {
		case (hasMs || hasUs) && (n < 0 || n > 999):
			return 0, TemporalErr(temporal.RangeErr("nanosecond", n, 0, 999))
		case n < 0 || n > 999_999_999:
			return 0, TemporalErr(temporal.RangeErr("nanosecond", n, 0, 999_999_999))
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
		sec += temporal.FloorDiv(v, 1000)
		ns += temporal.FloorMod(v, 1000) * 1_000_000
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
		if off, name, err = temporal.ParseZone(tz); err != nil {
			return nil, TemporalErr(err)
		}
	}
	sec += temporal.FloorDiv(ns, temporal.NanosPerSecond)
	const maxSec = (temporal.MaxYear - 1970) * 366 * 86400
	if sec > maxSec || sec < -maxSec {
		return nil, errs.DataCode(errs.CodeDatetimeOverflow, "epoch seconds %d out of range", sec)
	}
	dt, err := temporal.AtInstant(sec, int32(temporal.FloorMod(ns, temporal.NanosPerSecond)), off, name)
	if err != nil {
		return nil, TemporalErr(err)
	}
	return checkDateTime(dt)
}

func checkDateTime(dt temporal.DateTime) (vector.Value, error) {
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
