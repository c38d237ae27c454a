package functions

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// date.truncate(unit, value[, map]) and its siblings for localtime, time,
// localdatetime and datetime: value with every field below unit reset to
// its smallest value, then the map's fields applied as in a constructor
// map. A zoned result keeps the value's zone (or UTC) unless the map names
// a timezone, in which case the truncated wall-clock reading is placed in
// that zone, not converted to it.

// dateUnits truncate the date (and reset the time); the others truncate
// only the time of day, to a multiple of their length in nanoseconds.
var timeUnits = map[string]int64{
	"hour": 3600 * temporal.NanosPerSecond, "minute": 60 * temporal.NanosPerSecond, "second": temporal.NanosPerSecond,
	"millisecond": 1_000_000, "microsecond": 1000,
}

// TruncateDate is date.truncate(unit, d) for a lower-cased date unit;
// false for another unit.
func TruncateDate(unit string, d temporal.Date) (temporal.Date, bool) {
	y, m, _ := temporal.CivilFromDays(d.Days)
	switch unit {
	case "millennium":
		return temporal.Date{Days: temporal.DaysFromCivil(temporal.FloorDiv(y, 1000)*1000, 1, 1)}, true
	case "century":
		return temporal.Date{Days: temporal.DaysFromCivil(temporal.FloorDiv(y, 100)*100, 1, 1)}, true
	case "decade":
		return temporal.Date{Days: temporal.DaysFromCivil(temporal.FloorDiv(y, 10)*10, 1, 1)}, true
	case "year":
		return temporal.Date{Days: temporal.DaysFromCivil(y, 1, 1)}, true
	case "weekyear":
		wy, _ := temporal.IsoWeek(d.Days)
		return temporal.Date{Days: temporal.WeekYearStart(wy)}, true
	case "quarter":
		return temporal.Date{Days: temporal.DaysFromCivil(y, (m-1)/3*3+1, 1)}, true
	case "month":
		return temporal.Date{Days: temporal.DaysFromCivil(y, m, 1)}, true
	case "week":
		return temporal.Date{Days: d.Days - temporal.DayOfWeek(d.Days) + 1}, true
	case "day":
		return d, true
	}
	return d, false
}

func truncateTemporal(c Env, k temporalKind, args []vector.Value) (vector.Value, error) {
	if args[0] == nil || args[1] == nil {
		return nil, nil
	}
	unitName, ok := args[0].(string)
	if !ok {
		return nil, errs.Data("%s.truncate() expects a unit string, got %s", kindNames[k], TypeName(args[0]))
	}
	unit := strings.ToLower(unitName)
	p, ok := toPoint(args[1])
	if !ok {
		return nil, errs.Data("%s.truncate() expects a temporal instant, got %s", kindNames[k], TypeName(args[1]))
	}
	if k.hasDate() && !p.hasDate {
		return nil, errs.Data("%s.truncate() needs a value with a date, got %s", kindNames[k], TypeName(args[1]))
	}
	date, tod := p.local.Date(), p.local.TimeOfDay()
	if size, isTime := timeUnits[unit]; isTime {
		tod -= tod % size
	} else if d, isDate := TruncateDate(unit, date); isDate && (k.hasDate() || unit == "day") {
		date, tod = d, 0
	} else {
		return nil, errs.DataCode(errs.CodeInvalidDatetime, "%s.truncate() does not know the unit %q", kindNames[k], unitName)
	}
	over := map[string]vector.Value{}
	var tz vector.Value
	if len(args) > 2 && args[2] != nil {
		m, isMap := args[2].(map[string]vector.Value)
		if !isMap {
			return nil, errs.Data("%s.truncate() expects a map of fields, got %s", kindNames[k], TypeName(args[2]))
		}
		for key, v := range m {
			if strings.EqualFold(key, "timezone") {
				tz = v
				continue
			}
			over[key] = v
		}
	}
	local := kLocalDateTime
	switch k {
	case kDate:
		local = kDate
	case kLocalTime, kTime:
		local = kLocalTime
	}
	if local != kLocalTime {
		over["date"] = date
	}
	if local != kDate {
		over["time"] = temporal.LocalTime{Nanos: tod}
	}
	v, err := fromMap(c, local, over)
	if err != nil || !k.zoned() {
		return v, err
	}
	// Attach the zone: the map's, else the value's, else UTC.
	off, name := int32(0), ""
	switch {
	case tz != nil:
		s, isStr := tz.(string)
		if !isStr {
			return nil, badTemporal("timezone must be a string, got %s", TypeName(tz))
		}
		if off, name, err = temporal.ParseZone(s); err != nil {
			return nil, TemporalErr(err)
		}
	case p.zoned:
		off, name = p.offset, p.zone
	}
	if k == kTime {
		if name != "" {
			loc, err := temporal.LoadZone(name)
			if err != nil {
				return nil, TemporalErr(err)
			}
			_, o := c.Now().In(loc).Zone()
			off = int32(o)
		}
		return temporal.Time{Nanos: v.(temporal.LocalTime).Nanos, Offset: off}, nil
	}
	l := v.(temporal.LocalDateTime)
	if name != "" {
		dt, err := temporal.InZone(l, name)
		return dt, TemporalErr(err)
	}
	return temporal.InOffset(l, off), nil
}
