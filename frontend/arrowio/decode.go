package arrowio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/temporal"
)

// JSONValue reads row i of a column of a Quiver stream back as the value
// its JSON result holds, decoded by encoding/json with UseNumber and
// then normalised by Normalize: nil, bool, int64, float64, string,
// []any, map[string]any. Temporal values become their ISO 8601 text, a
// node or relationship its JSON object, and a float without a JSON form
// (NaN, ±Inf) null, as the JSON result writes them. It is the reading
// side of the format, for tests and tools that compare the two answers.
func JSONValue(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Null:
		return nil, nil
	case *array.Boolean:
		return x.Value(i), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Uint64:
		return int64(x.Value(i)), nil
	case *array.Float64:
		f := x.Value(i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return f, nil
	case *array.String:
		return x.Value(i), nil
	case *array.Date32:
		return temporal.Date{Days: int64(x.Value(i))}.String(), nil
	case *array.Time64:
		return temporal.LocalTime{Nanos: int64(x.Value(i))}.String(), nil
	case *array.Timestamp:
		ns := int64(x.Value(i))
		sec, n := floorDiv(ns, 1_000_000_000)
		return temporal.LocalDateTime{Sec: sec, Nanos: int32(n)}.String(), nil
	case *array.MonthDayNanoInterval:
		v := x.Value(i)
		return temporal.NewDuration(int64(v.Months), int64(v.Days), 0, v.Nanoseconds).String(), nil
	case *array.List:
		start, end := x.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := JSONValue(x.ListValues(), int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *array.Map:
		start, end := x.ValueOffsets(i)
		keys, items := x.Keys().(*array.String), x.Items()
		out := make(map[string]any, end-start)
		for j := start; j < end; j++ {
			v, err := JSONValue(items, int(j))
			if err != nil {
				return nil, err
			}
			out[keys.Value(int(j))] = v
		}
		return out, nil
	case *array.DenseUnion:
		child := x.Field(x.ChildID(i))
		off := int(x.ValueOffset(i))
		if x.TypeCode(i) == codeJSON {
			return decodeJSON(child.(*array.String).Value(off))
		}
		return JSONValue(child, off)
	case *array.Struct:
		return structValue(x, i)
	}
	return nil, fmt.Errorf("arrowio: no JSON form for Arrow type %s", a.DataType())
}

// structValue reads the struct types of the format, told apart by their
// fields.
func structValue(x *array.Struct, i int) (any, error) {
	st := x.DataType().(*arrow.StructType)
	switch {
	case arrow.TypeEqual(st, timeType):
		return temporal.Time{Nanos: int64(x.Field(0).(*array.Time64).Value(i)), Offset: x.Field(1).(*array.Int32).Value(i)}.String(), nil
	case arrow.TypeEqual(st, dateTimeType):
		sec, n := floorDiv(int64(x.Field(0).(*array.Timestamp).Value(i)), 1_000_000_000)
		zone := x.Field(2).(*array.String)
		dt := temporal.DateTime{Sec: sec, Nanos: int32(n), Offset: x.Field(1).(*array.Int32).Value(i)}
		if zone.IsValid(i) {
			dt.Zone = zone.Value(i)
		}
		return dt.String(), nil
	}
	out := make(map[string]any, st.NumFields())
	for f := range st.Fields() {
		name := st.Field(f).Name
		v, err := JSONValue(x.Field(f), i)
		if err != nil {
			return nil, err
		}
		if name == "properties" {
			v, err = decodeJSON(v.(string))
			if err != nil {
				return nil, err
			}
		}
		out[name] = v
	}
	return out, nil
}

func floorDiv(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r < 0 {
		q, r = q-1, r+b
	}
	return q, r
}

// decodeJSON decodes JSON text and normalises it.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arrowio: bad JSON text in a stream: %w", err)
	}
	return Normalize(v), nil
}

// Normalize turns a value decoded by encoding/json with UseNumber into
// the form JSONValue returns: a number with a fraction or an exponent
// (Quiver writes every FLOAT so) becomes a float64, any other an int64.
func Normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if bytes.ContainsAny([]byte(s), ".eE") {
			f, _ := strconv.ParseFloat(s, 64)
			return f
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			f, _ := strconv.ParseFloat(s, 64)
			return f
		}
		return n
	case []any:
		for i := range x {
			x[i] = Normalize(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = Normalize(x[k])
		}
	}
	return v
}

// Canonical renders a value Normalize gave with its types told apart
// (an INTEGER 3 is not the FLOAT 3.0), maps with their keys sorted: two
// results compare as the strings of their rows.
func Canonical(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Canonical(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ":" + Canonical(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprintf("?%T(%v)", v, v)
}
