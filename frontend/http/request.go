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
		return nil, badRequest("the request body must be a JSON object with a \"query\" field")
	}
	req := &queryRequest{params: engine.Params{}}
	q, present := obj["query"]
	if !present {
		return nil, badRequest("the request has no \"query\" field")
	}
	if req.query, ok = q.(string); !ok {
		return nil, badRequest("\"query\" must be a string")
	}
	if req.query == "" {
		return nil, badRequest("\"query\" is empty")
	}
	if p, present := obj[paramsKey]; present && p != nil {
		m, ok := p.(map[string]any)
		if !ok {
			return nil, badRequest("\"" + paramsKey + "\" must be a JSON object")
		}
		for k, v := range m {
			pv, ok := paramValue(v, 0)
			if !ok {
				return nil, badRequest(fmt.Sprintf("parameter %q nests lists and maps deeper than %d levels", k, vector.MaxValueDepth))
			}
			req.params[k] = pv
		}
	}
	if t, present := obj["timeout"]; present && t != nil {
		n, ok := t.(json.Number)
		ms, err := strconv.ParseInt(string(n), 10, 64)
		if !ok || err != nil || ms <= 0 || ms > math.MaxInt64/int64(time.Millisecond) {
			return nil, badRequest("\"timeout\" must be a positive whole number of milliseconds")
		}
		req.timeout = time.Duration(ms) * time.Millisecond
	}
	for _, flag := range []struct {
		name string
		dst  *bool
	}{{"explain", &req.explain}, {"profile", &req.profile}} {
		if v, present := obj[flag.name]; present && v != nil {
			b, ok := v.(bool)
			if !ok {
				return nil, badRequest("\"" + flag.name + "\" must be true or false")
			}
			*flag.dst = b
		}
	}
	return req, nil
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
