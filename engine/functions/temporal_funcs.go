package functions

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// temporalFuncs are the constructors and helpers of the temporal types.
// Dotted names (datetime.fromepoch) are namespaced calls; Kind names the
// result's schema type.
var temporalFuncs = map[string]Func{
	"date":          {Min: 0, Max: 1, Result: vector.Any, Kind: "DATE", Doc: "date([string | map | temporal]) — today without an argument", Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return construct(c, kDate, a) }},
	"localtime":     {Min: 0, Max: 1, Result: vector.Any, Kind: "LOCALTIME", Doc: "localtime([string | map | temporal])", Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return construct(c, kLocalTime, a) }},
	"time":          {Min: 0, Max: 1, Result: vector.Any, Kind: "TIME", Doc: "time([string | map | temporal])", Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return construct(c, kTime, a) }},
	"localdatetime": {Min: 0, Max: 1, Result: vector.Any, Kind: "LOCALDATETIME", Doc: "localdatetime([string | map | temporal])", Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return construct(c, kLocalDateTime, a) }},
	"datetime":      {Min: 0, Max: 1, Result: vector.Any, Kind: "DATETIME", Doc: "datetime([string | map | temporal])", Kernel: func(c Env, a []vector.Value) (vector.Value, error) { return construct(c, kDateTime, a) }},
	"duration":      {Min: 1, Max: 1, Result: vector.Any, Kind: "DURATION", Doc: "duration(string | map)", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) { return makeDuration(a[0]) }},
	"datetime.fromepoch": {Min: 2, Max: 2, Result: vector.Any, Kind: "DATETIME", Doc: "datetime.fromepoch(seconds, nanoseconds)", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
		return fromEpochArgs(false, a)
	}},
	"datetime.fromepochmillis": {Min: 1, Max: 1, Result: vector.Any, Kind: "DATETIME", Doc: "datetime.fromepochmillis(milliseconds)", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
		return fromEpochArgs(true, a)
	}},
	"duration.between": {Min: 2, Max: 2, Result: vector.Any, Kind: "DURATION", Doc: "duration.between(a, b) — months, days and time from a to b", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
		return durationBetween(betweenAll, a[0], a[1])
	}},
	"duration.inmonths": {Min: 2, Max: 2, Result: vector.Any, Kind: "DURATION", Doc: "duration.inMonths(a, b) — whole months from a to b", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
		return durationBetween(betweenMonths, a[0], a[1])
	}},
	"duration.indays": {Min: 2, Max: 2, Result: vector.Any, Kind: "DURATION", Doc: "duration.inDays(a, b) — whole days from a to b", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
		return durationBetween(betweenDays, a[0], a[1])
	}},
	"duration.inseconds": {Min: 2, Max: 2, Result: vector.Any, Kind: "DURATION", Doc: "duration.inSeconds(a, b) — elapsed time from a to b", Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
		return durationBetween(betweenSeconds, a[0], a[1])
	}},
	"year":      {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "year(temporal)", Kernel: accessor("year")},
	"month":     {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "month(temporal)", Kernel: accessor("month")},
	"day":       {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "day(temporal)", Kernel: accessor("day")},
	"hour":      {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "hour(temporal)", Kernel: accessor("hour")},
	"minute":    {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "minute(temporal)", Kernel: accessor("minute")},
	"second":    {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "second(temporal)", Kernel: accessor("second")},
	"dayofweek": {Min: 1, Max: 1, Result: vector.Any, Kind: "INTEGER", Doc: "dayOfWeek(temporal) — 1 = Monday … 7 = Sunday", Kernel: accessor("dayOfWeek")},
}

// init adds the truncation and current-time variants of each temporal
// type: date.truncate(…), date.statement(), datetime.realtime('Europe/Paris') …
func init() {
	for i, name := range kindNames {
		k := temporalKind(i)
		kind := strings.ToUpper(name)
		temporalFuncs[name+".truncate"] = Func{Min: 2, Max: 3, Result: vector.Any, Kind: kind,
			Doc: name + ".truncate(unit, value[, map]) — value cut down to unit, then map's fields set",
			Kernel: func(c Env, a []vector.Value) (vector.Value, error) {
				return truncateTemporal(c, k, a)
			}}
		for _, clock := range []string{"statement", "transaction", "realtime"} {
			temporalFuncs[name+"."+clock] = Func{Min: 0, Max: 1, Result: vector.Any, Kind: kind,
				Doc: name + "." + clock + "([timezone]) — the current " + kind,
				Kernel: func(c Env, a []vector.Value) (vector.Value, error) {
					if len(a) == 0 {
						return current(c, k, "")
					}
					switch tz := a[0].(type) {
					case nil:
						return nil, nil
					case string:
						return current(c, k, tz)
					}
					return nil, errs.Data("%s.%s() expects a time zone string, got %s", name, clock, TypeName(a[0]))
				}}
		}
	}
	register(temporalFuncs)
}

// accessor is a function form of a temporal field: year(d) = d.year.
func accessor(field string) Kernel {
	return func(_ Env, a []vector.Value) (vector.Value, error) {
		if a[0] == nil {
			return nil, nil
		}
		if !temporal.Is(a[0]) {
			return nil, errs.Data("%s() expects a temporal value, got %s", field, TypeName(a[0]))
		}
		return TemporalProperty(a[0], field)
	}
}

// durationUnits are the keys of a duration map, with their length in
// nanoseconds (0 for months-based and days-based units, handled apart).
var durationUnits = map[string]int64{
	"years": 0, "quarters": 0, "months": 0, "weeks": 0, "days": 0,
	"hours": 3600 * temporal.NanosPerSecond, "minutes": 60 * temporal.NanosPerSecond, "seconds": temporal.NanosPerSecond,
	"milliseconds": 1_000_000, "microseconds": 1000, "nanoseconds": 1,
}

// unitMonths and unitDays give the months-based and days-based units.
var (
	unitMonths = map[string]int64{"years": 12, "quarters": 3, "months": 1}
	unitDays   = map[string]int64{"weeks": 7, "days": 1}
)

// makeDuration is duration(string | map | duration).
func makeDuration(arg vector.Value) (vector.Value, error) {
	switch x := arg.(type) {
	case nil:
		return nil, nil
	case temporal.Duration:
		return x, nil
	case string:
		d, err := temporal.ParseDuration(x)
		if err != nil {
			return nil, TemporalErr(err)
		}
		return d, nil
	case map[string]vector.Value:
		var b temporal.DurationBuilder
		for key, v := range x {
			k := lowerASCII(key)
			unitNanos, ok := durationUnits[k]
			if !ok {
				return nil, errs.DataCode(errs.CodeInvalidDatetime, "duration() does not take the key %q", key)
			}
			var f float64
			var iv int64
			isInt := false
			switch n := v.(type) {
			case nil:
				continue
			case int64:
				iv, f, isInt = n, float64(n), true
			case float64:
				f = n
			default:
				return nil, errs.DataCode(errs.CodeInvalidDatetime, "duration field %s must be a number, got %s", key, TypeName(v))
			}
			monthsPer, daysPer := unitMonths[k], unitDays[k]
			switch {
			case monthsPer > 0 && isInt:
				if err := addIntMonths(&b, iv, monthsPer); err != nil {
					return nil, err
				}
			case monthsPer > 0:
				b.AddMonths(f * float64(monthsPer))
			case daysPer > 0 && isInt:
				if err := addIntDays(&b, iv, daysPer); err != nil {
					return nil, err
				}
			case daysPer > 0:
				b.AddDays(f * float64(daysPer))
			case isInt:
				b.AddInt(iv, unitNanos)
			default:
				b.AddFloat(f, unitNanos)
			}
		}
		d, err := b.Duration()
		if err != nil {
			return nil, TemporalErr(err)
		}
		return d, nil
	}
	return nil, errs.Data("duration() expects a string or a map, got %s", TypeName(arg))
}

func addIntMonths(b *temporal.DurationBuilder, v, k int64) error {
	if v > 0 && v > (1<<62)/k || v < 0 && v < -(1<<62)/k {
		return TemporalErr(temporal.ErrDurationOverflow)
	}
	b.AddIntMonths(v * k)
	return nil
}

func addIntDays(b *temporal.DurationBuilder, v, k int64) error {
	if v > 0 && v > (1<<62)/k || v < 0 && v < -(1<<62)/k {
		return TemporalErr(temporal.ErrDurationOverflow)
	}
	b.AddIntDays(v * k)
	return nil
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
