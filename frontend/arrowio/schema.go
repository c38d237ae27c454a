package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/engine"
)

// MediaType is the media type of an Arrow IPC stream (IANA registered).
const MediaType = "application/vnd.apache.arrow.stream"

// MetaType is the field metadata key holding a column's Quiver type, as
// schema.fields[].type of the JSON result names it.
const MetaType = "quiver.type"

// MetaElem is the field metadata key holding a typed LIST column's
// element type (engine.Column.Elem); a LIST column without it is
// list<VALUE>.
const MetaElem = "quiver.elem"

// The Arrow types of Quiver's types (docs/arrow.md, Types):
//
//	BOOLEAN        bool
//	INTEGER        int64
//	FLOAT          float64
//	STRING         utf8
//	NULL           null
//	DATE           date32 (days since 1970-01-01)
//	LOCALTIME      time64[ns]
//	TIME           struct<time: time64[ns], offset_seconds: int32>
//	LOCALDATETIME  timestamp[ns] (no zone)
//	DATETIME       struct<instant: timestamp[ns, UTC], offset_seconds: int32, zone: utf8>
//	DURATION       month_day_nano_interval
//	NODE           struct<id: uint64, labels: list<utf8>, properties: utf8 (JSON object)>
//	RELATIONSHIP   struct<id: uint64, type: utf8, start: uint64, end: uint64, properties: utf8 (JSON object)>
//	PATH           struct<nodes: list<NODE>, relationships: list<RELATIONSHIP>>
//	LIST           list<VALUE>, or list<bool|int64|float64|utf8> when the
//	               plan knows the elements' type (engine.Column.Elem, lists.go)
//	MAP            map<utf8, VALUE> (keys sorted)
//	ANY            VALUE
//
// VALUE is the dense union of valueFields: a generic value keeps its type
// when it is a scalar or a temporal; a list, map, node, relationship or
// path nested in it travels as its JSON text (the "json" member), the
// form the JSON result gives it. Arrow has no recursive type, and a
// union of every nesting depth would be a schema no reader handles.
//
// A time with an offset and a zoned date-time keep their offset (and
// zone name) beside the instant: Arrow's timestamp carries one zone per
// column, and the values of a column may each have their own.
var (
	utf8Type     = arrow.BinaryTypes.String
	timeType     = arrow.StructOf(field("time", arrow.FixedWidthTypes.Time64ns), field("offset_seconds", arrow.PrimitiveTypes.Int32))
	dateTimeType = arrow.StructOf(field("instant", &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}),
		field("offset_seconds", arrow.PrimitiveTypes.Int32), field("zone", utf8Type))
	localDateTimeType = &arrow.TimestampType{Unit: arrow.Nanosecond}
	durationType      = arrow.FixedWidthTypes.MonthDayNanoInterval
	nodeType          = arrow.StructOf(field("id", arrow.PrimitiveTypes.Uint64), field("labels", arrow.ListOf(utf8Type)),
		field("properties", utf8Type))
	relType = arrow.StructOf(field("id", arrow.PrimitiveTypes.Uint64), field("type", utf8Type),
		field("start", arrow.PrimitiveTypes.Uint64), field("end", arrow.PrimitiveTypes.Uint64), field("properties", utf8Type))
	pathType = arrow.StructOf(field("nodes", arrow.ListOf(nodeType)), field("relationships", arrow.ListOf(relType)))
)

// The members of VALUE, by type code. The codes are part of the format:
// a reader may switch on them.
const (
	codeNull arrow.UnionTypeCode = iota
	codeBool
	codeInt
	codeFloat
	codeString
	codeDate
	codeLocalTime
	codeTime
	codeLocalDateTime
	codeDateTime
	codeDuration
	codeJSON
)

var valueFields = []arrow.Field{
	field("null", arrow.Null), field("bool", arrow.FixedWidthTypes.Boolean), field("int", arrow.PrimitiveTypes.Int64),
	field("float", arrow.PrimitiveTypes.Float64), field("string", utf8Type), field("date", arrow.FixedWidthTypes.Date32),
	field("localtime", arrow.FixedWidthTypes.Time64ns), field("time", timeType), field("localdatetime", localDateTimeType),
	field("datetime", dateTimeType), field("duration", durationType), field("json", utf8Type),
}

var valueType = arrow.DenseUnionOf(valueFields, []arrow.UnionTypeCode{
	codeNull, codeBool, codeInt, codeFloat, codeString, codeDate, codeLocalTime, codeTime,
	codeLocalDateTime, codeDateTime, codeDuration, codeJSON,
})

func field(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// ArrowType is the Arrow type of a column of Quiver type typ (a
// schema.fields[].type name); a name it does not know is ANY's.
func ArrowType(typ string) arrow.DataType {
	switch typ {
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean
	case "INTEGER":
		return arrow.PrimitiveTypes.Int64
	case "FLOAT":
		return arrow.PrimitiveTypes.Float64
	case "STRING":
		return utf8Type
	case "NULL":
		return arrow.Null
	case "DATE":
		return arrow.FixedWidthTypes.Date32
	case "LOCALTIME":
		return arrow.FixedWidthTypes.Time64ns
	case "TIME":
		return timeType
	case "LOCALDATETIME":
		return localDateTimeType
	case "DATETIME":
		return dateTimeType
	case "DURATION":
		return durationType
	case "NODE":
		return nodeType
	case "RELATIONSHIP":
		return relType
	case "PATH":
		return pathType
	case "LIST":
		return arrow.ListOf(valueType)
	case "MAP":
		return arrow.MapOf(utf8Type, valueType)
	}
	return valueType
}

// ColumnType is the Arrow type of a result's column: its type's, but a
// typed list for a LIST column whose element type the plan knows.
func ColumnType(c engine.Column) arrow.DataType {
	if et := typedElemType(c.Elem); c.Type == "LIST" && et != nil {
		return arrow.ListOf(et)
	}
	return ArrowType(c.Type)
}

// Schema is the Arrow schema of a result: one field per column, named
// and ordered as the JSON result's schema.fields, each with its Quiver
// type in the field metadata (MetaType).
func Schema(cols []engine.Column) *arrow.Schema {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		md := arrow.NewMetadata([]string{MetaType}, []string{c.Type})
		if c.Type == "LIST" && typedElemType(c.Elem) != nil {
			md = arrow.NewMetadata([]string{MetaType, MetaElem}, []string{c.Type, c.Elem})
		}
		fs[i] = arrow.Field{Name: c.Name, Type: ColumnType(c), Nullable: true, Metadata: md}
	}
	return arrow.NewSchema(fs, nil)
}
