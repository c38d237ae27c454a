package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Conversion functions. A string that does not parse gives null; a value
// of a type that cannot convert at all is an error, which the ...OrNull
// variants turn into null.
func init() {
	register(map[string]Func{
		"tointeger":       {Min: 1, Max: 1, Result: vector.Int64, Doc: "toInteger(x)", Args: args(ArgBool | ArgNum | ArgString), Kernel: fnToInteger},
		"tofloat":         {Min: 1, Max: 1, Result: vector.Float64, Doc: "toFloat(x)", Args: args(ArgNum | ArgString), Kernel: fnToFloat},
		"tostring":        {Min: 1, Max: 1, Result: vector.String, Doc: "toString(x)", Args: args(ArgScalar), Kernel: fnToString},
		"toboolean":       {Min: 1, Max: 1, Result: vector.Bool, Doc: "toBoolean(x)", Args: args(ArgBool | ArgInt | ArgString), Kernel: fnToBoolean},
		"tointegerornull": {Min: 1, Max: 1, Result: vector.Int64, Doc: "toIntegerOrNull(x) — null where toInteger fails", Kernel: orNull(fnToInteger)},
		"tofloatornull":   {Min: 1, Max: 1, Result: vector.Float64, Doc: "toFloatOrNull(x) — null where toFloat fails", Kernel: orNull(fnToFloat)},
		"tostringornull":  {Min: 1, Max: 1, Result: vector.String, Doc: "toStringOrNull(x) — null where toString fails", Kernel: orNull(fnToString)},
		"tobooleanornull": {Min: 1, Max: 1, Result: vector.Bool, Doc: "toBooleanOrNull(x) — null where toBoolean fails", Kernel: orNull(fnToBoolean)},
	})
}

func orNull(f Kernel) Kernel {
	return func(c Env, a []vector.Value) (vector.Value, error) {
		v, err := f(c, a)
		if err != nil {
			return nil, nil
		}
		return v, nil
	}
}

// FloatToInt truncates toward zero; ok is false outside INTEGER's range.
func FloatToInt(f float64) (int64, bool) {
	t := math.Trunc(f)
	if math.IsNaN(t) || t < -9.223372036854775808e18 || t >= 9.223372036854775808e18 {
		return 0, false
	}
	return int64(t), true
}

func fnToInteger(_ Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		return x, nil
	case float64:
		i, ok := FloatToInt(x)
		if !ok {
			return nil, errs.DataCode(errs.CodeOverflow, "toInteger(): %v is out of the INTEGER range", x)
		}
		return i, nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case string:
		if i, ok := ParseInteger(x); ok {
			return i, nil
		}
		return nil, nil
	}
	return nil, argError("toInteger", a[0])
}

// ParseInteger is toInteger of a string: an integer, or a float
// truncated toward zero; false (null) when it does not parse or is out
// of range.
func ParseInteger(s string) (int64, bool) {
	if v, neg, ok := shortDecimal(s); ok {
		if neg {
			v = -v
		}
		return v, true
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return FloatToInt(f)
}

// ParseFloat is toFloat of a string; false (null) when it does not parse.
func ParseFloat(s string) (float64, bool) {
	if v, neg, ok := shortDecimal(s); ok && v < 1<<53 {
		// Exact as a float64, which is what parsing rounds to.
		f := float64(v)
		if neg {
			f = -f // -0 stays negative, as strconv has it
		}
		return f, true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// shortDecimal reads s when it is an optional sign and 1 to 18 decimal
// digits, the common form of a number in text, without strconv (which
// also takes other forms: the callers fall back to it when ok is false).
// Eighteen digits cannot overflow.
func shortDecimal(s string) (v int64, neg, ok bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || len(s) > 18 {
		return 0, false, false
	}
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false, false
		}
		v = v*10 + int64(d)
	}
	return v, neg, true
}

// ParseBoolean is toBoolean of a string: true or false in any case;
// false (null) otherwise.
func ParseBoolean(s string) (v, ok bool) {
	switch strings.ToLower(s) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func fnToFloat(_ Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		if f, ok := ParseFloat(x); ok {
			return f, nil
		}
		return nil, nil
	}
	return nil, argError("toFloat", a[0])
}

func fnToBoolean(_ Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case string:
		if v, ok := ParseBoolean(x); ok {
			return v, nil
		}
		return nil, nil
	}
	return nil, argError("toBoolean", a[0])
}

func fnToString(_ Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		switch {
		case math.IsInf(x, 1):
			return "Infinity", nil
		case math.IsInf(x, -1):
			return "-Infinity", nil
		}
		return FormatFloat(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []vector.Value, map[string]vector.Value, vector.NodeRef, vector.RelRef, vector.Path:
	case fmt.Stringer: // temporal values render as ISO text
		return x.String(), nil
	}
	return nil, argError("toString", a[0])
}
