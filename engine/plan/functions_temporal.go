package plan

import "github.com/quiverdb/quiver/vector"

// temporalFunctions are the constructors and helpers of the temporal
// types, merged into Functions. Dotted names (datetime.fromepoch) are
// namespaced calls. Kind names the result's schema type.
var temporalFunctions = map[string]FuncSig{
	"date":                     {0, 1, vector.Any, "DATE", "date([string | map | temporal]) — today without an argument"},
	"localtime":                {0, 1, vector.Any, "LOCALTIME", "localtime([string | map | temporal])"},
	"time":                     {0, 1, vector.Any, "TIME", "time([string | map | temporal])"},
	"localdatetime":            {0, 1, vector.Any, "LOCALDATETIME", "localdatetime([string | map | temporal])"},
	"datetime":                 {0, 1, vector.Any, "DATETIME", "datetime([string | map | temporal])"},
	"duration":                 {1, 1, vector.Any, "DURATION", "duration(string | map)"},
	"datetime.fromepoch":       {2, 2, vector.Any, "DATETIME", "datetime.fromepoch(seconds, nanoseconds)"},
	"datetime.fromepochmillis": {1, 1, vector.Any, "DATETIME", "datetime.fromepochmillis(milliseconds)"},
	"duration.between":         {2, 2, vector.Any, "DURATION", "duration.between(a, b) — months, days and time from a to b"},
	"duration.inmonths":        {2, 2, vector.Any, "DURATION", "duration.inMonths(a, b) — whole months from a to b"},
	"duration.indays":          {2, 2, vector.Any, "DURATION", "duration.inDays(a, b) — whole days from a to b"},
	"duration.inseconds":       {2, 2, vector.Any, "DURATION", "duration.inSeconds(a, b) — elapsed time from a to b"},
	"year":                     {1, 1, vector.Any, "INTEGER", "year(temporal)"},
	"month":                    {1, 1, vector.Any, "INTEGER", "month(temporal)"},
	"day":                      {1, 1, vector.Any, "INTEGER", "day(temporal)"},
	"hour":                     {1, 1, vector.Any, "INTEGER", "hour(temporal)"},
	"minute":                   {1, 1, vector.Any, "INTEGER", "minute(temporal)"},
	"second":                   {1, 1, vector.Any, "INTEGER", "second(temporal)"},
	"dayofweek":                {1, 1, vector.Any, "INTEGER", "dayOfWeek(temporal) — 1 = Monday … 7 = Sunday"},
}

// The current-time variants: date.statement(), datetime.realtime('Europe/Paris') …
func init() {
	kinds := map[string]string{"date": "DATE", "localtime": "LOCALTIME", "time": "TIME", "localdatetime": "LOCALDATETIME", "datetime": "DATETIME"}
	for name, kind := range kinds {
		temporalFunctions[name+".truncate"] = FuncSig{2, 3, vector.Any, kind, name + ".truncate(unit, value[, map]) — value cut down to unit, then map's fields set"}
		for _, clock := range []string{"statement", "transaction", "realtime"} {
			temporalFunctions[name+"."+clock] = FuncSig{0, 1, vector.Any, kind, name + "." + clock + "([timezone]) — the current " + kind}
		}
	}
	for name, sig := range temporalFunctions {
		Functions[name] = sig
	}
}
