package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// queryRequest is a decoded query request.
type queryRequest struct {
	query   string
	params  engine.Params
	timeout time.Duration
	explain bool
	profile bool
}

// decodeQueryRequest decodes a query request body. paramsKey is the name of
// the parameter map: "parameters" on /api/v1/query, "params" on /query.
// Every malformed body gets a 400 with a message that says what is wrong.
func decodeQueryRequest(body []byte, paramsKey string) (*queryRequest, *apiError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("the request body is empty; send a JSON object with a \"query\" field")
	}
	obj, e := decodeObject(body, `with a "query" field`)
	if e != nil {
		return nil, e
	}
	req := &queryRequest{}
	if req.query, e = queryField(obj); e != nil {
		return nil, e
	}
	if req.params, e = paramsField(obj, paramsKey); e != nil {
		return nil, e
	}
	if req.timeout, e = millisField(obj, "timeout"); e != nil {
		return nil, e
	}
	for _, flag := range []struct {
		name string
		dst  *bool
	}{{"explain", &req.explain}, {"profile", &req.profile}} {
		if *flag.dst, e = boolField(obj, flag.name); e != nil {
			return nil, e
		}
	}
	return req, nil
}

// decodeObject decodes a body holding one JSON object; what completes
// the message of a body that is another JSON value ("with a … field").
func decodeObject(body []byte, what string) (map[string]any, *apiError) {
	if obj, ok := fastObject(body); ok {
		return obj, nil
	}
	return stdObject(body, what)
}

// stdObject is decodeObject through encoding/json, for every body
// fastObject does not take (json_object.go).
func stdObject(body []byte, what string) (map[string]any, *apiError) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, badRequest("the request body is not valid JSON: " + err.Error())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badRequest("the request body has data after the JSON object")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, badRequest("the request body must be a JSON object " + what)
	}
	return obj, nil
}

// decodeOptionalObject is decodeObject for endpoints whose body may be
// left out: an empty body is an empty object.
func decodeOptionalObject(body []byte) (map[string]any, *apiError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]any{}, nil
	}
	return decodeObject(body, "(or no body)")
}

// queryField reads the required "query" string.
func queryField(obj map[string]any) (string, *apiError) {
	q, present := obj["query"]
	if !present {
		return "", badRequest("the request has no \"query\" field")
	}
	text, ok := q.(string)
	if !ok {
		return "", badRequest("\"query\" must be a string")
	}
	if text == "" {
		return "", badRequest("\"query\" is empty")
	}
	return text, nil
}

// paramsField reads the optional parameter map under key.
func paramsField(obj map[string]any, key string) (engine.Params, *apiError) {
	params := engine.Params{}
	p, present := obj[key]
	if !present || p == nil {
		return params, nil
	}
	m, ok := p.(map[string]any)
	if !ok {
		return nil, badRequest("\"" + key + "\" must be a JSON object")
	}
	for k, v := range m {
		pv, ok := paramValue(v, 0)
		if !ok {
			return nil, badRequest(fmt.Sprintf("parameter %q nests lists and maps deeper than %d levels", k, vector.MaxValueDepth))
		}
		params[k] = pv
	}
	return params, nil
}

// millisField reads an optional positive whole number of milliseconds;
// zero when absent.
func millisField(obj map[string]any, key string) (time.Duration, *apiError) {
	t, present := obj[key]
	if !present || t == nil {
		return 0, nil
	}
	n, ok := t.(json.Number)
	ms, err := strconv.ParseInt(string(n), 10, 64)
	if !ok || err != nil || ms <= 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return 0, badRequest("\"" + key + "\" must be a positive whole number of milliseconds")
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// boolField reads an optional boolean; false when absent.
func boolField(obj map[string]any, key string) (bool, *apiError) {
	v, present := obj[key]
	if !present || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, badRequest("\"" + key + "\" must be true or false")
	}
	return b, nil
}

// stringField reads an optional string; "" when absent.
func stringField(obj map[string]any, key string) (string, *apiError) {
	v, present := obj[key]
	if !present || v == nil {
		return "", nil
	}
	str, ok := v.(string)
	if !ok {
		return "", badRequest("\"" + key + "\" must be a string")
	}
	return str, nil
}

// paramValue converts decoded JSON to an engine value: integers that fit
// in 64 bits become INTEGER, other numbers FLOAT. ok is false when lists
// and maps nest deeper than vector.MaxValueDepth (the JSON decoder alone
// allows 10000 levels).
func paramValue(v any, depth int) (_ vector.Value, ok bool) {
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
			if out[i], ok = paramValue(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]vector.Value, len(x))
		for k, e := range x {
			if out[k], ok = paramValue(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return v, true // nil, bool, string
}
