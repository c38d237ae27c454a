package load

// Typed text columns: Parquet has no type for a DATETIME in a zone other
// than UTC, for a TIME with its offset, nor for a DURATION. `quiver export` writes such
// a column as strings, its text (2020-01-02T03:04:05+01:00[Europe/Paris],
// 12:00:00+02:00), and names it in the file's key-value metadata under
// typesKey, a JSON object from column name to "DATETIME", "TIME" or
// "DURATION" (written exactly: exactDuration); the
// loader parses each string back (a LIST column's elements too). Other
// readers see strings.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// typesKey is the metadata key naming the typed text columns.
const typesKey = "quiver.types"

// textTypes reads the file's typed text columns, by name.
func textTypes(name string, kv metadata.KeyValueMetadata) (map[string]string, error) {
	v := kv.FindValue(typesKey)
	if v == nil {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(*v), &m); err != nil {
		return nil, &Error{File: name, Msg: fmt.Sprintf("the metadata %q is not a JSON object of column types (%v)", typesKey, err)}
	}
	for col, t := range m {
		if t != "DATETIME" && t != "TIME" && t != "DURATION" {
			return nil, &Error{File: name, Name: col, Msg: fmt.Sprintf("the metadata %q gives the type %q: DATETIME, TIME or DURATION", typesKey, t)}
		}
	}
	return m, nil
}

// parseTemporal parses the text of a temporal value of kind k (a CSV
// column declared DATETIME, LOCALDATETIME, LOCALTIME, TIME or DURATION).
func parseTemporal(k kind, s string) (vector.Value, string) {
	var v vector.Value
	var err error
	switch k {
	case kindLocalDateTime:
		v, err = temporal.ParseLocalDateTime(s)
	case kindLocalTime:
		v, err = temporal.ParseLocalTime(s)
	case kindTime:
		return parseText("TIME", s)
	case kindDuration:
		return parseText("DURATION", s)
	default:
		return parseText("DATETIME", s)
	}
	if err != nil {
		return nil, fmt.Sprintf("%q is not a %s", s, k)
	}
	return v, ""
}

// parseText parses one string of a typed text column.
func parseText(typ, s string) (vector.Value, string) {
	var v vector.Value
	var err error
	if typ == "DURATION" {
		if d, ok := exactDuration(s); ok {
			return d, ""
		}
		v, err = temporal.ParseDuration(s)
	} else if typ == "TIME" {
		// The text carries its offset: the day given for a zone name
		// without one never matters.
		v, err = temporal.ParseTime(s, time.Unix(0, 0))
	} else {
		v, err = temporal.ParseDateTime(s)
	}
	if err != nil {
		return nil, fmt.Sprintf("%q is not a %s (%v)", s, typ, err)
	}
	return v, ""
}

// exactDuration parses the form quiver export writes a DURATION in,
// P<months>M<days>DT<seconds>S with the seconds a signed decimal of up to
// nine places, without the float temporal.ParseDuration reads fractions
// through; false for any other text.
func exactDuration(s string) (temporal.Duration, bool) {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok {
		return temporal.Duration{}, false
	}
	m, rest, ok1 := strings.Cut(rest, "M")
	d, rest, ok2 := strings.Cut(rest, "DT")
	sec, rest, ok3 := strings.Cut(rest, "S")
	if !ok1 || !ok2 || !ok3 || rest != "" {
		return temporal.Duration{}, false
	}
	months, err1 := strconv.ParseInt(m, 10, 64)
	days, err2 := strconv.ParseInt(d, 10, 64)
	neg := strings.HasPrefix(sec, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(sec, "-"), ".")
	secs, err3 := strconv.ParseUint(whole, 10, 63)
	if err1 != nil || err2 != nil || err3 != nil || len(frac) > 9 || strings.HasPrefix(whole, "+") {
		return temporal.Duration{}, false
	}
	nanos := int64(0)
	if frac != "" {
		n, err := strconv.ParseUint(frac+strings.Repeat("0", 9-len(frac)), 10, 32)
		if err != nil {
			return temporal.Duration{}, false
		}
		nanos = int64(n)
	}
	total := int64(secs)
	if neg {
		total, nanos = -total, -nanos
	}
	return temporal.NewDuration(months, days, total, nanos), true
}
