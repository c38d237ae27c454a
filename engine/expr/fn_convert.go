package expr

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
	register(map[string]scalarFunc{
		"tointeger":       fnToInteger,
		"tofloat":         fnToFloat,
		"tostring":        fnToString,
		"toboolean":       fnToBoolean,
		"tointegerornull": orNull(fnToInteger),
		"tofloatornull":   orNull(fnToFloat),
		"tostringornull":  orNull(fnToString),
		"tobooleanornull": orNull(fnToBoolean),
	})
}

func orNull(f scalarFunc) scalarFunc {
	return func(c *Env, a []vector.Value) (vector.Value, error) {
		v, err := f(c, a)
		if err != nil {
			return nil, nil
		}
		return v, nil
	}
}

// floatToInt truncates toward zero; ok is false outside INTEGER's range.
func floatToInt(f float64) (int64, bool) {
	t := math.Trunc(f)
	if math.IsNaN(t) || t < -9.223372036854775808e18 || t >= 9.223372036854775808e18 {
		return 0, false
	}
	return int64(t), true
}

func fnToInteger(_ *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		return x, nil
	case float64:
		i, ok := floatToInt(x)
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
		if i, err := strconv.ParseInt(x, 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return nil, nil
		}
		if i, ok := floatToInt(f); ok {
			return i, nil
		}
		return nil, nil
	}
	return nil, argError("toInteger", a[0])
}

func fnToFloat(_ *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return nil, nil
		}
		return f, nil
	}
	return nil, argError("toFloat", a[0])
}

func fnToBoolean(_ *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case string:
		switch strings.ToLower(x) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, nil
	}
	return nil, argError("toBoolean", a[0])
}

func fnToString(_ *Env, a []vector.Value) (vector.Value, error) {
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
		return formatFloat(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []vector.Value, map[string]vector.Value, vector.NodeRef, vector.RelRef, vector.Path:
	case fmt.Stringer: // temporal values render as ISO text
		return x.String(), nil
	}
	return nil, argError("toString", a[0])
}
