package functions

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The type predicate and CAST, as operator functions of two arguments:
// the value and the canonical text of the type, a constant.
const (
	// OpIsType is x IS :: T: never null.
	OpIsType = "#istype"
	// OpCast is CAST(x AS T).
	OpCast = "#cast"
)

// Status codes of CAST.
const (
	// CodeInvalidCast: a string that is no literal of the target type.
	CodeInvalidCast = "22018"
	// CodeInvalidValueType: a value of a type that does not cast to the
	// target type (a list to INTEGER).
	CodeInvalidValueType = "22G03"
	// CodeNullNotAllowed: a null cast to a NOT NULL type.
	CodeNullNotAllowed = "22004"
)

func init() {
	register(map[string]Func{
		OpIsType: {Min: 2, Max: 2, Result: vector.Bool, Kernel: fnIsType},
		OpCast:   {Min: 2, Max: 2, Result: vector.Any, Kernel: fnCast},
	})
}

// valueTypes caches compiled types by text for the row path; the texts
// are the few types queries write.
var valueTypes sync.Map

// CompiledType is the compiled type of a canonical text; an error for a
// text the parser does not print (a broken plan).
func CompiledType(arg vector.Value) (*ValueType, error) {
	text, ok := arg.(string)
	if !ok {
		return nil, bug("type argument %v is not a type's text", arg)
	}
	if t, ok := valueTypes.Load(text); ok {
		return t.(*ValueType), nil
	}
	t, ok := ParseValueType(text)
	if !ok {
		return nil, bug("type text %q does not compile", text)
	}
	valueTypes.Store(text, t)
	return t, nil
}

func fnIsType(_ Env, a []vector.Value) (vector.Value, error) {
	t, err := CompiledType(a[1])
	if err != nil {
		return nil, err
	}
	return t.Matches(a[0]), nil
}

func fnCast(c Env, a []vector.Value) (vector.Value, error) {
	t, err := CompiledType(a[1])
	if err != nil {
		return nil, err
	}
	return Cast(c, a[0], t)
}

// CastResult is the static result type of a CAST to t.
func CastResult(t *ValueType) (vector.Type, string) {
	switch t.Target {
	case TagBool:
		return vector.Bool, ""
	case TagInt:
		return vector.Int64, ""
	case TagFloat:
		return vector.Float64, ""
	case TagString:
		return vector.String, ""
	case TagList:
		return vector.Any, "LIST"
	case TagMap:
		return vector.Any, "MAP"
	case TagPath:
		return vector.Any, "PATH"
	case TagDate:
		return vector.Any, "DATE"
	case TagLocalTime:
		return vector.Any, "LOCALTIME"
	case TagZonedTime:
		return vector.Any, "TIME"
	case TagLocalDateTime:
		return vector.Any, "LOCALDATETIME"
	case TagZonedDateTime:
		return vector.Any, "DATETIME"
	case TagDuration:
		return vector.Any, "DURATION"
	case TagNode:
		return vector.Node, ""
	case TagRel:
		return vector.Rel, ""
	}
	return vector.Any, ""
}

// Cast converts v to type t as GQL's CAST does. Where toInteger() and
// its kin give null, CAST fails: 22018 for a string that is no literal
// of the type, 22003 for a number out of the type's range, 22G03 for a
// value of a type that does not convert, 22004 for a null cast to a NOT
// NULL type. A union is not a target (the binder refuses it).
func Cast(c Env, v vector.Value, t *ValueType) (vector.Value, error) {
	if v == nil {
		if t.NotNull {
			return nil, errs.DataCode(CodeNullNotAllowed, "CAST: null is not a value of %s", t.Text)
		}
		return nil, nil
	}
	switch t.Target {
	case TagBool:
		return castBool(v, t)
	case TagInt:
		return castInt(v, t)
	case TagFloat:
		return castFloat(v, t)
	case TagString:
		return castString(v, t)
	case TagDate, TagLocalTime, TagZonedTime, TagLocalDateTime, TagZonedDateTime:
		return castTemporal(c, v, t)
	case TagDuration:
		return castDuration(v, t)
	case TagList:
		return castList(c, v, t)
	case numTags:
		if t.Matches(v) { // ANY
			return v, nil
		}
	default:
		if t.Has(TagOf(v)) { // MAP, NODE, RELATIONSHIP, PATH: as they are
			return v, nil
		}
	}
	return nil, badCast(v, t)
}

func badCast(v vector.Value, t *ValueType) error {
	return errs.DataCode(CodeInvalidValueType, "CAST: a %s cannot be cast to %s", TypeName(v), t.Text)
}

func badChars(s string, t *ValueType) error {
	return errs.DataCode(CodeInvalidCast, "CAST: %q is not a literal of %s", s, t.Text)
}

func castBool(v vector.Value, t *ValueType) (vector.Value, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		return CastStringToBool(x, t)
	}
	return nil, badCast(v, t)
}

// CastStringToBool is CAST of a STRING to BOOLEAN: true or false in any
// case, spaces around it trimmed.
func CastStringToBool(x string, t *ValueType) (bool, error) {
	if b, ok := ParseBoolean(strings.TrimSpace(x)); ok {
		return b, nil
	}
	return false, badChars(x, t)
}

// CastInt is CAST of an INTEGER to INTEGER (bits 0) or a narrow INT32,
// INT16, INT8: 22003 outside its range.
func CastInt(i int64, bits uint8, text string) (int64, error) {
	if bits != 0 && !IntFits(i, bits) {
		return 0, errs.DataCode(errs.CodeOverflow, "CAST: %d is out of the range of %s", i, text)
	}
	return i, nil
}

// CastFloatToInt is CAST of a FLOAT to an integer type: truncated toward
// zero, 22003 when out of range or not a number.
func CastFloatToInt(f float64, bits uint8, text string) (int64, error) {
	i, ok := FloatToInt(f)
	if !ok {
		return 0, errs.DataCode(errs.CodeOverflow, "CAST: %v is out of the range of %s", f, text)
	}
	return CastInt(i, bits, text)
}

func castInt(v vector.Value, t *ValueType) (vector.Value, error) {
	switch x := v.(type) {
	case int64:
		return CastInt(x, t.IntBits, t.Text)
	case float64:
		return CastFloatToInt(x, t.IntBits, t.Text)
	case string:
		return CastStringToInt(x, t)
	}
	return nil, badCast(v, t)
}

// CastStringToInt is CAST of a STRING to t, an integer type: a number,
// spaces around it trimmed, a decimal one truncated toward zero.
func CastStringToInt(x string, t *ValueType) (int64, error) {
	s := strings.TrimSpace(x)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return CastInt(i, t.IntBits, t.Text)
	} else if e, ok := err.(*strconv.NumError); ok && e.Err == strconv.ErrRange {
		return 0, errs.DataCode(errs.CodeOverflow, "CAST: %s is out of the range of %s", s, t.Text)
	}
	f, ok := numericLiteral(s)
	if !ok {
		return 0, badChars(x, t)
	}
	return CastFloatToInt(f, t.IntBits, t.Text)
}

// numericLiteral reads s as a signed decimal number, 1.5e3 or -.5, and
// not as the words strconv also takes (NaN, Inf, hexadecimal floats).
func numericLiteral(s string) (float64, bool) {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil || err.(*strconv.NumError).Err == strconv.ErrRange
}

// CastFloat is CAST of a FLOAT to FLOAT or FLOAT32, rounded to FLOAT32's
// precision and 22003 outside its range.
func CastFloat(f float64, single bool, text string) (float64, error) {
	if !single {
		return f, nil
	}
	if !Float32Fits(f) {
		return 0, errs.DataCode(errs.CodeOverflow, "CAST: %v is out of the range of %s", f, text)
	}
	return float64(float32(f)), nil
}

func castFloat(v vector.Value, t *ValueType) (vector.Value, error) {
	switch x := v.(type) {
	case int64:
		return CastFloat(float64(x), t.Float32, t.Text)
	case float64:
		return CastFloat(x, t.Float32, t.Text)
	case string:
		return CastStringToFloat(x, t)
	}
	return nil, badCast(v, t)
}

// CastStringToFloat is CAST of a STRING to t, FLOAT or FLOAT32: a
// decimal number, spaces around it trimmed.
func CastStringToFloat(x string, t *ValueType) (float64, error) {
	f, ok := numericLiteral(strings.TrimSpace(x))
	if !ok {
		return 0, badChars(x, t)
	}
	if math.IsInf(f, 0) {
		return 0, errs.DataCode(errs.CodeOverflow, "CAST: %s is out of the range of %s", x, t.Text)
	}
	return CastFloat(f, t.Float32, t.Text)
}

// CastBoolText is a BOOLEAN cast to STRING: the standard's TRUE and
// FALSE.
func CastBoolText(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

func castString(v vector.Value, t *ValueType) (vector.Value, error) {
	switch x := v.(type) {
	case bool:
		return CastBoolText(x), nil
	case []vector.Value, map[string]vector.Value, vector.NodeRef, vector.RelRef, vector.Path:
		return nil, badCast(v, t)
	}
	s, err := fnToString(nil, []vector.Value{v})
	if err != nil {
		return nil, badCast(v, t)
	}
	return s, nil
}

// temporalKinds are the constructors of the temporal targets.
var temporalKinds = map[Tag]temporalKind{
	TagDate: kDate, TagLocalTime: kLocalTime, TagZonedTime: kTime,
	TagLocalDateTime: kLocalDateTime, TagZonedDateTime: kDateTime,
}

// castTemporal converts a string (its ISO text: 22007 when it is none)
// or another temporal value as the constructor of the target does:
// CAST(x AS DATE) is date(x).
func castTemporal(c Env, v vector.Value, t *ValueType) (vector.Value, error) {
	switch x := v.(type) {
	case string:
		return parseTemporal(c, temporalKinds[t.Target], strings.TrimSpace(x))
	default:
		if !temporal.Is(v) {
			return nil, badCast(v, t)
		}
		if _, isDur := v.(temporal.Duration); isDur {
			return nil, badCast(v, t)
		}
		if TagOf(v) == t.Target {
			return v, nil
		}
		out, err := construct(c, temporalKinds[t.Target], []vector.Value{v})
		if err != nil {
			return nil, badCast(v, t)
		}
		return out, nil
	}
}

func castDuration(v vector.Value, t *ValueType) (vector.Value, error) {
	switch x := v.(type) {
	case temporal.Duration:
		return x, nil
	case string:
		d, err := temporal.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return nil, TemporalErr(err)
		}
		return d, nil
	}
	return nil, badCast(v, t)
}

// castList casts every element of a list to the element type.
func castList(c Env, v vector.Value, t *ValueType) (vector.Value, error) {
	l, ok := v.([]vector.Value)
	if !ok {
		return nil, badCast(v, t)
	}
	if t.Elem == nil || t.Elem.Union || t.Elem.Target == numTags {
		if t.Matches(l) {
			return l, nil
		}
		return nil, badCast(v, t)
	}
	if err := c.Reserve(int64(len(l)) * 16); err != nil {
		return nil, err
	}
	out := make([]vector.Value, len(l))
	for i, e := range l {
		x, err := Cast(c, e, t.Elem)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}
