package jsonio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// The request bodies of a write-heavy load are small JSON objects decoded
// once each; encoding/json's decoder into map[string]any cost ~8 µs of
// the ~75 µs of server CPU an auto-commit CREATE takes at 32 clients.
// FastObject builds the same tree (objects as map[string]any, arrays as
// []any, numbers as json.Number, the last of duplicate keys) with
// fastjson, for the bodies on which the two agree by construction:
// syntactically valid JSON (json.Valid, the standard scanner, so every
// error still comes from encoding/json), valid UTF-8, no \u escape
// (fastjson keeps an unpaired surrogate escape as text; encoding/json
// reads it as U+FFFD), and nesting within fastjson's limit. Any other
// body takes the encoding/json path. FuzzDecodeRequest checks the
// agreement.

var jsonParsers fastjson.ParserPool

// FastObject decodes body as DecodeObject would; ok is false when body is
// not a JSON object FastObject can take (see above).
func FastObject(body []byte) (obj map[string]any, ok bool) {
	if !utf8.Valid(body) || bytes.Contains(body, []byte(`\u`)) || !json.Valid(body) {
		return nil, false
	}
	p := jsonParsers.Get()
	defer jsonParsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil || v.Type() != fastjson.TypeObject {
		return nil, false // too deep for fastjson, or not an object
	}
	m, _ := fastValue(v).(map[string]any)
	return m, true
}

// fastValue converts a parsed value to the tree encoding/json builds with
// UseNumber. It copies every string: the parser's memory is reused.
func fastValue(v *fastjson.Value) any {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		m := make(map[string]any, o.Len())
		o.Visit(func(k []byte, e *fastjson.Value) { m[string(k)] = fastValue(e) })
		return m
	case fastjson.TypeArray:
		a, _ := v.Array()
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = fastValue(e)
		}
		return out
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return string(b)
	case fastjson.TypeNumber:
		return json.Number(v.MarshalTo(nil))
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeFalse:
		return false
	}
	return nil
}

// DecodeObject decodes a message holding one JSON object, as
// encoding/json with UseNumber would (FastObject where it applies). what
// completes the error of a message that is another JSON value ("with a
// … field"). Every error says what is wrong, for the client to read.
func DecodeObject(body []byte, what string) (map[string]any, error) {
	if obj, ok := FastObject(body); ok {
		return obj, nil
	}
	return StdObject(body, what)
}

// StdObject is DecodeObject through encoding/json, for every message
// FastObject does not take.
func StdObject(body []byte, what string) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("the request body is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("the request body has data after the JSON object")
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("the request body must be a JSON object " + what)
	}
	return obj, nil
}

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
