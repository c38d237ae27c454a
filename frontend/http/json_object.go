package http

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// The request bodies of a write-heavy load are small JSON objects decoded
// once each; encoding/json's decoder into map[string]any cost ~8 µs of
// the ~75 µs of server CPU an auto-commit CREATE takes at 32 clients.
// fastObject builds the same tree (objects as map[string]any, arrays as
// []any, numbers as json.Number, the last of duplicate keys) with
// fastjson, for the bodies on which the two agree by construction:
// syntactically valid JSON (json.Valid, the standard scanner, so every
// error still comes from encoding/json), valid UTF-8, no \u escape
// (fastjson keeps an unpaired surrogate escape as text; encoding/json
// reads it as U+FFFD), and nesting within fastjson's limit. Any other
// body takes the encoding/json path. FuzzDecodeRequest checks the
// agreement.

var jsonParsers fastjson.ParserPool

// fastObject decodes body as decodeObject would; ok is false when body is
// not a JSON object fastObject can take (see above).
func fastObject(body []byte) (obj map[string]any, ok bool) {
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
