package arrowio

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// codeDatetimeOverflow is "datetime field overflow": a temporal value
// outside the range of its Arrow type. Package engine does not name it;
// it is spelled as package errs spells its codes.
const codeDatetimeOverflow = "22008"

// maxNanoSeconds bounds the seconds of an instant or duration held in
// int64 nanoseconds: about 292 years either side of 1970 (1677-09-22 to
// 2262-04-11 for timestamps).
const maxNanoSeconds = (1<<63 - 1) / 1_000_000_000

// appendAs appends v to a builder of the Arrow type of typ. A value
// that is not of the declared type is a bug of the engine's typing: the
// schema was written on its word.
func (e *Encoder) appendAs(bld array.Builder, typ string, v vector.Value) error {
	if v == nil {
		bld.AppendNull()
		return nil
	}
	ok := true
	switch typ {
	case "BOOLEAN":
		var x bool
		if x, ok = v.(bool); ok {
			bld.(*array.BooleanBuilder).Append(x)
		}
	case "INTEGER":
		var x int64
		if x, ok = v.(int64); ok {
			bld.(*array.Int64Builder).Append(x)
		}
	case "FLOAT":
		var x float64
		if x, ok = v.(float64); ok {
			bld.(*array.Float64Builder).Append(x)
		}
	case "STRING":
		var x string
		if x, ok = v.(string); ok {
			bld.(*array.StringBuilder).Append(x)
		}
	case "NODE":
		var x vector.NodeRef
		if x, ok = v.(vector.NodeRef); ok {
			e.appendNode(bld.(*array.StructBuilder), uint64(x))
		}
	case "RELATIONSHIP":
		var x vector.RelRef
		if x, ok = v.(vector.RelRef); ok {
			e.appendRel(bld.(*array.StructBuilder), uint64(x))
		}
	case "PATH":
		var x vector.Path
		if x, ok = v.(vector.Path); ok {
			e.appendPath(bld.(*array.StructBuilder), x)
		}
	case "LIST":
		var x []vector.Value
		if x, ok = v.([]vector.Value); ok {
			return e.appendList(bld.(*array.ListBuilder), x)
		}
	case "MAP":
		var x map[string]vector.Value
		if x, ok = v.(map[string]vector.Value); ok {
			return e.appendMap(bld.(*array.MapBuilder), x)
		}
	case "DATE", "LOCALTIME", "TIME", "LOCALDATETIME", "DATETIME", "DURATION":
		if ok = temporal.TypeName(v) == typ; ok {
			return appendTemporal(bld, v)
		}
	default:
		return e.appendValue(bld.(*array.DenseUnionBuilder), v)
	}
	if !ok {
		return mismatch(v, typ)
	}
	return nil
}

// appendValue appends a generic value to a VALUE union.
func (e *Encoder) appendValue(u *array.DenseUnionBuilder, v vector.Value) error {
	code := codeJSON
	switch x := v.(type) {
	case nil:
		u.AppendNull()
		return nil
	case bool:
		u.Append(codeBool)
		u.Child(int(codeBool)).(*array.BooleanBuilder).Append(x)
		return nil
	case int64:
		u.Append(codeInt)
		u.Child(int(codeInt)).(*array.Int64Builder).Append(x)
		return nil
	case float64:
		u.Append(codeFloat)
		u.Child(int(codeFloat)).(*array.Float64Builder).Append(x)
		return nil
	case string:
		u.Append(codeString)
		u.Child(int(codeString)).(*array.StringBuilder).Append(x)
		return nil
	case temporal.Date:
		code = codeDate
	case temporal.LocalTime:
		code = codeLocalTime
	case temporal.Time:
		code = codeTime
	case temporal.LocalDateTime:
		code = codeLocalDateTime
	case temporal.DateTime:
		code = codeDateTime
	case temporal.Duration:
		code = codeDuration
	}
	if code != codeJSON {
		u.Append(code)
		return appendTemporal(u.Child(int(code)), v)
	}
	// A list, map, node, relationship or path inside a generic value:
	// its JSON text, as the JSON result writes it.
	e.buf = e.enc.AppendValue(e.buf[:0], v, 1)
	u.Append(codeJSON)
	u.Child(int(codeJSON)).(*array.StringBuilder).BinaryBuilder.Append(e.buf)
	return nil
}

// appendTemporal appends a temporal value to a builder of its Arrow type.
func appendTemporal(bld array.Builder, v vector.Value) error {
	switch x := v.(type) {
	case temporal.Date:
		if x.Days != int64(int32(x.Days)) {
			return overflow(x, "date32")
		}
		bld.(*array.Date32Builder).Append(arrow.Date32(x.Days))
	case temporal.LocalTime:
		bld.(*array.Time64Builder).Append(arrow.Time64(x.Nanos))
	case temporal.Time:
		sb := bld.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Time64Builder).Append(arrow.Time64(x.Nanos))
		sb.FieldBuilder(1).(*array.Int32Builder).Append(x.Offset)
	case temporal.LocalDateTime:
		ns, ok := nanos(x.Sec, int64(x.Nanos))
		if !ok {
			return overflow(x, "timestamp[ns]")
		}
		bld.(*array.TimestampBuilder).Append(arrow.Timestamp(ns))
	case temporal.DateTime:
		ns, ok := nanos(x.Sec, int64(x.Nanos))
		if !ok {
			return overflow(x, "timestamp[ns]")
		}
		sb := bld.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.TimestampBuilder).Append(arrow.Timestamp(ns))
		sb.FieldBuilder(1).(*array.Int32Builder).Append(x.Offset)
		if x.Zone == "" {
			sb.FieldBuilder(2).AppendNull()
		} else {
			sb.FieldBuilder(2).(*array.StringBuilder).Append(x.Zone)
		}
	case temporal.Duration:
		ns, ok := nanos(x.Seconds, int64(x.Nanos))
		if !ok || x.Months != int64(int32(x.Months)) || x.Days != int64(int32(x.Days)) {
			return overflow(x, "month_day_nano_interval")
		}
		bld.(*array.MonthDayNanoIntervalBuilder).Append(arrow.MonthDayNanoInterval{Months: int32(x.Months), Days: int32(x.Days), Nanoseconds: ns})
	default:
		return fmt.Errorf("BUG: arrowio: %T is not a temporal value", v)
	}
	return nil
}

// date32, time64 and timestamp convert the values of typed temporal
// columns (encode.go, generic).
func date32(v vector.Value) (int32, error) {
	x, ok := v.(temporal.Date)
	switch {
	case !ok:
		return 0, mismatch(v, "DATE")
	case x.Days != int64(int32(x.Days)):
		return 0, overflow(x, "date32")
	}
	return int32(x.Days), nil
}

func time64(v vector.Value) (int64, error) {
	x, ok := v.(temporal.LocalTime)
	if !ok {
		return 0, mismatch(v, "LOCALTIME")
	}
	return x.Nanos, nil
}

func timestamp(v vector.Value) (int64, error) {
	x, ok := v.(temporal.LocalDateTime)
	if !ok {
		return 0, mismatch(v, "LOCALDATETIME")
	}
	ns, ok := nanos(x.Sec, int64(x.Nanos))
	if !ok {
		return 0, overflow(x, "timestamp[ns]")
	}
	return ns, nil
}

func mismatch(v vector.Value, typ string) error {
	return fmt.Errorf("BUG: arrowio: a %T value in a column typed %s", v, typ)
}

// nanos is sec seconds and ns nanoseconds in nanoseconds, when an int64
// holds it.
func nanos(sec, ns int64) (int64, bool) {
	if sec >= maxNanoSeconds || sec <= -maxNanoSeconds {
		return 0, false
	}
	return sec*1_000_000_000 + ns, true
}

func overflow(v vector.Value, arrowType string) error {
	return engine.NewError(codeDatetimeOverflow, engine.CatData,
		"the %s %v is outside the range of Arrow's %s: ask for the result as JSON", temporal.TypeName(v), v, arrowType)
}

// appendList appends a LIST value: its elements as VALUEs.
func (e *Encoder) appendList(lb *array.ListBuilder, x []vector.Value) error {
	lb.Append(true)
	u := lb.ValueBuilder().(*array.DenseUnionBuilder)
	for _, el := range x {
		if err := e.appendValue(u, el); err != nil {
			return err
		}
	}
	return nil
}

// appendMap appends a MAP value, its keys sorted as the JSON result
// sorts them.
func (e *Encoder) appendMap(mb *array.MapBuilder, x map[string]vector.Value) error {
	e.keys = e.keys[:0]
	for k := range x {
		e.keys = append(e.keys, k)
	}
	sort.Strings(e.keys)
	mb.Append(true)
	kb, u := mb.KeyBuilder().(*array.StringBuilder), mb.ItemBuilder().(*array.DenseUnionBuilder)
	for _, k := range e.keys {
		kb.Append(k)
		if err := e.appendValue(u, x[k]); err != nil {
			return err
		}
	}
	return nil
}

// appendNode appends {id, labels, properties}.
func (e *Encoder) appendNode(sb *array.StructBuilder, id uint64) {
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Uint64Builder).Append(id)
	lb := sb.FieldBuilder(1).(*array.ListBuilder)
	lb.Append(true)
	sv := lb.ValueBuilder().(*array.StringBuilder)
	e.labels = e.ents.NodeLabels(e.labels[:0], id)
	for _, l := range e.labels {
		sv.Append(l)
	}
	e.appendProps(sb.FieldBuilder(2).(*array.StringBuilder), func(fn func(string, vector.Value)) { e.ents.NodeProperties(id, fn) })
}

// appendRel appends {id, type, start, end, properties}.
func (e *Encoder) appendRel(sb *array.StructBuilder, id uint64) {
	typ, start, end := e.ents.Relationship(id)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Uint64Builder).Append(id)
	sb.FieldBuilder(1).(*array.StringBuilder).Append(typ)
	sb.FieldBuilder(2).(*array.Uint64Builder).Append(start)
	sb.FieldBuilder(3).(*array.Uint64Builder).Append(end)
	e.appendProps(sb.FieldBuilder(4).(*array.StringBuilder), func(fn func(string, vector.Value)) { e.ents.RelationshipProperties(id, fn) })
}

// appendPath appends {nodes, relationships}.
func (e *Encoder) appendPath(sb *array.StructBuilder, p vector.Path) {
	sb.Append(true)
	nl := sb.FieldBuilder(0).(*array.ListBuilder)
	nl.Append(true)
	for _, n := range p.Nodes {
		e.appendNode(nl.ValueBuilder().(*array.StructBuilder), n)
	}
	rl := sb.FieldBuilder(1).(*array.ListBuilder)
	rl.Append(true)
	for _, r := range p.Rels {
		e.appendRel(rl.ValueBuilder().(*array.StructBuilder), r)
	}
}

// appendProps writes an entity's properties as one JSON object. Arrow
// would need a union per value (the properties of a label need not share
// types), which neither pandas nor polars reads; JSON text is read by
// every dataframe library (polars' str.json_decode, pyarrow's
// pyarrow.json, JSON.parse), and keeps each value as the JSON result
// gives it.
func (e *Encoder) appendProps(sb *array.StringBuilder, each func(func(string, vector.Value))) {
	b := append(e.buf[:0], '{')
	first := true
	each(func(k string, v vector.Value) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonio.AppendString(b, k)
		b = append(b, ':')
		b = e.enc.AppendValue(b, v, 1)
	})
	e.buf = append(b, '}')
	sb.BinaryBuilder.Append(e.buf)
}
