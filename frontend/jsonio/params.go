package jsonio

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// Params converts a decoded JSON object of query parameters to engine
// values (see ParamValue).
func Params(m map[string]any) (engine.Params, error) {
	params := make(engine.Params, len(m))
	for k, v := range m {
		pv, ok := ParamValue(v, 0)
		if !ok {
			return nil, fmt.Errorf("parameter %q nests lists and maps deeper than %d levels", k, vector.MaxValueDepth)
		}
		params[k] = pv
	}
	return params, nil
}

// ParamValue converts decoded JSON to an engine value: integers that fit
// in 64 bits become INTEGER, other numbers FLOAT. ok is false when lists
// and maps nest deeper than vector.MaxValueDepth (the JSON decoder alone
// allows 10000 levels).
func ParamValue(v any, depth int) (_ vector.Value, ok bool) {
	if depth > vector.MaxValueDepth {
		return nil, false
	}
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
		// A number beyond the FLOAT range parses as ±Infinity.
		f, _ := strconv.ParseFloat(string(x), 64)
		return f, true
	case []any:
		out := make([]vector.Value, len(x))
		for i, e := range x {
			if out[i], ok = ParamValue(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]vector.Value, len(x))
		for k, e := range x {
			if out[k], ok = ParamValue(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return v, true // nil, bool, string
}
