package http

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// queryRequest is a decoded query request.
type queryRequest struct {
	query   string
	params  engine.Params
	timeout time.Duration
	explain bool
	profile bool
	// graph is the graph the statement runs on ("": the default).
	graph string
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
	if req.graph, e = stringField(obj, "graph"); e != nil {
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
// A body that is not UTF-8 is a 400 22021, a key given twice a 400 22000
// (jsonio.DecodeObject).
func decodeObject(body []byte, what string) (map[string]any, *apiError) {
	obj, err := jsonio.DecodeObject(body, "the request body", what)
	if err != nil {
		e, _ := fromEngine(err, "")
		return nil, e
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
	p, present := obj[key]
	if !present || p == nil {
		return engine.Params{}, nil
	}
	m, ok := p.(map[string]any)
	if !ok {
		return nil, badRequest("\"" + key + "\" must be a JSON object")
	}
	params, err := jsonio.Params(m)
	if err != nil {
		return nil, badRequest(err.Error())
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
