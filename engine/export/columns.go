package export

import (
	"fmt"
	"math"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// kind is a property column's type in the files: one per column, as the
// import layout has it.
type kind uint8

const (
	kindInt kind = iota + 1
	kindFloat
	kindBool
	kindString
	kindDate
	kindLocalTime
	kindLocalDateTime
	kindDateTime // an instant in UTC (no other offset or zone)
	kindList     // a LIST of scalars of one kind (column.elem)
	// DATETIMEs in other zones than UTC, and TIMEs (with their offset),
	// have no Parquet type: they are written as their text, named in the
	// file's metadata (TypesKey), which the importer parses back.
	kindZonedDateTime
	kindTime
	kindDuration
	// kindJSON is a COPY … TO column of values the files have no type
	// for (maps, nodes, relationships, paths, mixed values): their JSON
	// text, a STRING to any reader.
	kindJSON
)

func (k kind) String() string {
	return [...]string{"", "INTEGER", "FLOAT", "BOOLEAN", "STRING", "DATE", "LOCAL TIME", "LOCAL DATETIME", "DATETIME", "LIST", "DATETIME", "TIME", "DURATION", "JSON"}[k]
}

// csvType is the type a CSV header names; "" when the importer's CSV
// has none for k.
func (k kind) csvType() string {
	switch k {
	case kindInt:
		return "INT64"
	case kindJSON:
		return "STRING"
	case kindFloat:
		return "DOUBLE"
	case kindBool:
		return "BOOLEAN"
	case kindString:
		return "STRING"
	case kindDate:
		return "DATE"
	case kindLocalTime:
		return "LOCALTIME"
	case kindLocalDateTime:
		return "LOCALDATETIME"
	case kindDateTime, kindZonedDateTime:
		return "DATETIME"
	case kindTime:
		return "TIME"
	case kindDuration:
		return "DURATION"
	}
	return "" // LIST
}

// kindOf is the column kind of a stored value, or an explanation of why
// the import layout cannot hold it.
func kindOf(v vector.Value) (kind, string) {
	switch x := v.(type) {
	case int64:
		return kindInt, ""
	case float64:
		return kindFloat, ""
	case bool:
		return kindBool, ""
	case string:
		return kindString, ""
	case temporal.Date:
		if x.Days < math.MinInt32 || x.Days > math.MaxInt32 {
			return 0, fmt.Sprintf("the DATE %s is outside the range of a Parquet DATE", x)
		}
		return kindDate, ""
	case temporal.LocalTime:
		return kindLocalTime, ""
	case temporal.LocalDateTime:
		return kindLocalDateTime, ""
	case temporal.DateTime:
		if x.Offset != 0 || x.Zone != "" {
			return kindZonedDateTime, ""
		}
		return kindDateTime, ""
	case []vector.Value:
		return kindList, ""
	case map[string]vector.Value:
		return 0, "a MAP (the importer reads scalars and lists of scalars only)"
	case temporal.Duration:
		return kindDuration, ""
	case temporal.Time:
		return kindTime, ""
	}
	return 0, fmt.Sprintf("a value of Go type %T", v)
}

// column is one property column of a file.
type column struct {
	key  catalog.KeyID
	name string
	kind kind
	// elem is a LIST column's elements' kind (0 while none was seen).
	elem kind
	// micros: the column's timestamps are written in microseconds, as
	// one of them lies outside the years 1677–2262 that nanoseconds
	// since 1970 reach in 64 bits.
	micros bool
	// outNanos and subMicro are what pass one saw of the timestamps.
	outNanos, subMicro bool
}

// timestampNanos is a LOCAL DATETIME or DATETIME as seconds and
// nanoseconds since 1970.
func timestampParts(v vector.Value) (sec int64, nanos int32) {
	switch x := v.(type) {
	case temporal.LocalDateTime:
		return x.Sec, x.Nanos
	case temporal.DateTime:
		return x.Sec, x.Nanos
	}
	return 0, 0
}

// observe notes a timestamp's range and precision (pass one); "" when
// some unit can hold it.
func (c *column) observe(v vector.Value) string {
	sec, nanos := timestampParts(v)
	const nsLimit, usLimit = math.MaxInt64/1_000_000_000 - 1, math.MaxInt64/1_000_000 - 1
	if sec < -usLimit || sec > usLimit {
		return fmt.Sprintf("a %s too far from 1970 for a Parquet timestamp", c.kind)
	}
	c.outNanos = c.outNanos || sec < -nsLimit || sec > nsLimit
	c.subMicro = c.subMicro || nanos%1000 != 0
	return ""
}

// settle picks the column's unit once every value was observed.
func (c *column) settle() string {
	if c.outNanos && c.subMicro {
		return fmt.Sprintf("%ss both outside the years 1677–2262 and with nanoseconds (a Parquet timestamp holds nanoseconds only within those years)", c.kind)
	}
	c.micros = c.outNanos
	if c.kind == kindList && c.elem == 0 {
		c.elem = kindInt // lists of nulls only: any element type reads them back
	}
	return ""
}

// fromTimestamp is a timestamp of the column's unit as seconds and
// nanoseconds since 1970 (the inverse of timestamp).
func (c *column) fromTimestamp(x int64) (sec int64, nanos int32) {
	per := int64(1_000_000_000)
	if c.micros {
		per = 1_000_000
	}
	sec = temporal.FloorDiv(x, per)
	return sec, int32((x - sec*per) * (1_000_000_000 / per))
}

// timestamp is v in the column's unit.
func (c *column) timestamp(v vector.Value) int64 {
	sec, nanos := timestampParts(v)
	if c.micros {
		return sec*1_000_000 + int64(nanos)/1000
	}
	return sec*1_000_000_000 + int64(nanos)
}

// TypesKey is the key of a Parquet file's metadata naming the columns
// written as text of a Quiver type ("DATETIME", "TIME" or "DURATION": a JSON object
// from column name to type), which the importer parses back.
const TypesKey = "quiver.types"

// textType is the type name TypesKey gives a column of kind k ("" for a
// column of a Parquet type).
func textType(k kind) string {
	switch k {
	case kindZonedDateTime:
		return "DATETIME"
	case kindTime:
		return "TIME"
	case kindDuration:
		return "DURATION"
	}
	return ""
}

// durationText writes a DURATION exactly, as P<months>M<days>DT<seconds>S
// with the seconds a signed decimal of up to nine places (the importer
// parses this form without rounding; temporal's own text, in years,
// hours and minutes, goes through a float when read back).
func durationText(d temporal.Duration) string {
	sec := fmt.Sprintf("%d.%09d", d.Seconds, d.Nanos)
	if d.Seconds < 0 && d.Nanos > 0 {
		sec = fmt.Sprintf("-%d.%09d", -(d.Seconds + 1), 1_000_000_000-int64(d.Nanos))
	}
	return fmt.Sprintf("P%dM%dDT%sS", d.Months, d.Days, sec)
}

// merge is the kind of a column holding values of kinds a and b, false
// when no one column holds both: DATETIMEs in UTC join the zoned ones'
// text.
func merge(a, b kind) (kind, bool) {
	switch {
	case a == b:
		return a, true
	case a == kindDateTime && b == kindZonedDateTime, a == kindZonedDateTime && b == kindDateTime:
		return kindZonedDateTime, true
	}
	return 0, false
}
