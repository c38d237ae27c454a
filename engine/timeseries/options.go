package timeseries

import (
	"slices"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The aggregates a call may ask for, in output order.
const (
	aggCount = 1 << iota
	aggSum
	aggAvg
	aggMin
	aggMax
	aggAll = aggCount | aggSum | aggAvg | aggMin | aggMax
)

var aggNames = map[string]int{"count": aggCount, "sum": aggSum, "avg": aggAvg, "min": aggMin, "max": aggMax}

// The gap fillings.
const (
	fillNone = iota
	fillNull
	fillZero
	fillPrevious
	fillLinear
)

var fillNames = map[string]int{"none": fillNone, "null": fillNull, "zero": fillZero, "previous": fillPrevious, "linear": fillLinear}

// options is one call's configuration map, checked.
type options struct {
	label, typ  string // exactly one is set
	time, value string // value "": count the elements
	bucket      *functions.Bucketer
	from, to    vector.Value // of one type: DATE, LOCAL or ZONED DATETIME
	lo, hi      temporal.LocalDateTime
	offset      int32 // a zoned range's offset, the one values are bucketed in
	aggregates  int
	fill        int
}

func optErr(format string, args ...any) error {
	return errs.DataCode(errs.CodeInvalidParam, "quiver.ts.aggregate: "+format, args...)
}

// parseOptions reads the map; every key is known, of its type, and the
// required ones are there.
func parseOptions(arg vector.Value) (*options, error) {
	m, ok := arg.(map[string]vector.Value)
	if !ok {
		return nil, optErr("expects a map of options, got %s", functions.TypeName(arg))
	}
	o := &options{aggregates: aggAll}
	str := func(k string) (string, error) {
		v, ok := m[k]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok || s == "" {
			return "", optErr("the option %s is a non-empty string, got %s", k, functions.TypeName(v))
		}
		return s, nil
	}
	var width, origin vector.Value
	for k, v := range m {
		var err error
		switch k {
		case "label":
			o.label, err = str(k)
		case "type":
			o.typ, err = str(k)
		case "time":
			o.time, err = str(k)
		case "value":
			o.value, err = str(k)
		case "bucket":
			width = v
		case "from":
			o.from = v
		case "to":
			o.to = v
		case "origin":
			origin = v
		case "aggregates":
			o.aggregates, err = parseAggregates(v)
		case "fill":
			o.fill, err = parseFill(v)
		default:
			keys := []string{"label", "type", "time", "value", "bucket", "from", "to", "origin", "aggregates", "fill"}
			return nil, optErr("unknown option %q (the options are: %s)", k, strings.Join(keys, ", "))
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case (o.label == "") == (o.typ == ""):
		return nil, optErr("give exactly one of the options label and type")
	case o.time == "":
		return nil, optErr("the option time (the time property's name) is required")
	case width == nil:
		return nil, optErr("the option bucket (a DURATION) is required")
	case o.from == nil || o.to == nil:
		return nil, optErr("the options from and to (the range [from, to)) are required")
	case o.value == "" && o.aggregates&^aggCount != 0:
		return nil, optErr("the option value is required for sum, avg, min and max (without it only count is computed: aggregates: ['count'])")
	}
	if !sameKind(o.from, o.to) {
		return nil, optErr("the options from and to are a DATE, LOCAL DATETIME or ZONED DATETIME, both of one type; got %s and %s", functions.TypeName(o.from), functions.TypeName(o.to))
	}
	b, err := functions.NewBucketer("quiver.ts.aggregate (options bucket, origin)", o.from, width, origin)
	if err != nil {
		return nil, err
	}
	o.bucket = b
	if dt, ok := o.from.(temporal.DateTime); ok {
		o.offset = dt.Offset
	}
	o.lo, _ = o.localOf(o.from)
	o.hi, _ = o.localOf(o.to)
	if !less(o.lo, o.hi) {
		return nil, optErr("the option from (%v) must be before to (%v)", o.from, o.to)
	}
	return o, nil
}

func sameKind(a, b vector.Value) bool {
	switch a.(type) {
	case temporal.Date:
		_, ok := b.(temporal.Date)
		return ok
	case temporal.LocalDateTime:
		_, ok := b.(temporal.LocalDateTime)
		return ok
	case temporal.DateTime:
		_, ok := b.(temporal.DateTime)
		return ok
	}
	return false
}

// localOf is a value's reading on the range's clock: a DATE at midnight, a
// LOCAL DATETIME as it is, a ZONED DATETIME in from's offset (zoned values
// compare as instants, so every value is moved to one offset). false for a
// value of another type, which no comparison with from and to holds for.
func (o *options) localOf(v vector.Value) (temporal.LocalDateTime, bool) {
	switch x := v.(type) {
	case temporal.Date:
		if _, ok := o.from.(temporal.Date); ok {
			return temporal.MakeLocalDateTime(x, 0), true
		}
	case temporal.LocalDateTime:
		if _, ok := o.from.(temporal.LocalDateTime); ok {
			return x, true
		}
	case temporal.DateTime:
		if _, ok := o.from.(temporal.DateTime); ok {
			return temporal.LocalDateTime{Sec: x.Sec + int64(o.offset), Nanos: x.Nanos}, true
		}
	}
	return temporal.LocalDateTime{}, false
}

// bucketValue is bucket start s as a value of the range's type.
func (o *options) bucketValue(s temporal.LocalDateTime) vector.Value {
	switch o.from.(type) {
	case temporal.Date:
		return s.Date()
	case temporal.DateTime:
		return temporal.InOffset(s, o.offset)
	}
	return s
}

func parseAggregates(v vector.Value) (int, error) {
	l, ok := v.([]vector.Value)
	if !ok || len(l) == 0 {
		return 0, optErr("the option aggregates is a non-empty list of names (count, sum, avg, min, max), got %s", functions.TypeName(v))
	}
	set := 0
	for _, x := range l {
		s, _ := x.(string)
		a, ok := aggNames[strings.ToLower(s)]
		if !ok {
			return 0, optErr("the option aggregates names %v, not one of count, sum, avg, min, max", x)
		}
		set |= a
	}
	return set, nil
}

func parseFill(v vector.Value) (int, error) {
	s, _ := v.(string)
	f, ok := fillNames[strings.ToLower(s)]
	if !ok {
		names := make([]string, 0, len(fillNames))
		for n := range fillNames {
			names = append(names, "'"+n+"'")
		}
		slices.Sort(names)
		return 0, optErr("the option fill is one of %s, got %v", strings.Join(names, ", "), v)
	}
	return f, nil
}

func less(a, b temporal.LocalDateTime) bool {
	return a.Sec < b.Sec || a.Sec == b.Sec && a.Nanos < b.Nanos
}
