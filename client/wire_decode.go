package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// Rows arrive a thousand to a BINDINGS line, so decoding lines is the
// client's hot loop: encoding/json into map[string]any and a second pass
// over the numbers took about 1.4 µs a row, five times what the server
// spends producing it. decodeMessage parses with fastjson and builds the
// same values in one pass (integers as int64, other numbers float64);
// what fastjson refuses (nesting deeper than its limit) takes the
// encoding/json path.

// decodeMessage decodes one message line into its JSON object.
func (s *WireSession) decodeMessage(line []byte) (map[string]any, error) {
	if !fastTakes(line) {
		return slowMessage(line)
	}
	v, err := s.parser.ParseBytes(line)
	if err == nil && v.Type() == fastjson.TypeObject {
		m, _ := s.fastValue(v).(map[string]any)
		return m, nil
	}
	return slowMessage(line)
}

// fastTakes reports whether fastjson decodes line as encoding/json
// does: it keeps invalid UTF-8 and an unpaired surrogate escape as they
// are, where encoding/json reads U+FFFD. The server writes neither (it
// escapes only control characters, U+2028 and U+2029), so its lines are
// taken, but one that holds them goes the standard way.
func fastTakes(line []byte) bool {
	return utf8.Valid(line) && !bytes.Contains(line, []byte(`\u`))
}

// slowMessage is decodeMessage through encoding/json.
func slowMessage(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("the line is %s", bytes.TrimSpace(line))
	}
	return wireValue(m).(map[string]any), nil
}

// fastValue converts a parsed value, copying strings (the parser's
// memory is reused) and sharing key strings the session has seen, such
// as column names, so a row's map allocates no key.
func (s *WireSession) fastValue(v *fastjson.Value) any {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		m := make(map[string]any, o.Len())
		o.Visit(func(k []byte, e *fastjson.Value) { m[s.key(k)] = s.fastValue(e) })
		return m
	case fastjson.TypeArray:
		a, _ := v.Array()
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = s.fastValue(e)
		}
		return out
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return string(b)
	case fastjson.TypeNumber:
		raw := v.MarshalTo(s.num[:0])
		s.num = raw
		if !bytes.ContainsAny(raw, ".eE") {
			if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
				return i
			}
		}
		f, _ := strconv.ParseFloat(string(raw), 64)
		return f
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeFalse:
		return false
	}
	return nil
}

// maxKeys bounds the session's table of shared key strings.
const maxKeys = 4096

// key returns k as a string, shared with earlier equal keys.
func (s *WireSession) key(k []byte) string {
	if str, ok := s.keys[string(k)]; ok {
		return str
	}
	str := string(k)
	if len(s.keys) < maxKeys {
		if s.keys == nil {
			s.keys = map[string]string{}
		}
		s.keys[str] = str
	}
	return str
}

// decodeRows reads the rows of a parsed BINDINGS message into vals, a
// row's values in cols' order one after another (no map per row), and
// returns them with the message's has_more. A key that names no column
// is ignored, a column missing from a row is nil.
func (s *WireSession) decodeRows(v *fastjson.Value, cols []WireColumn, vals []any) ([]any, int, bool) {
	data := v.GetArray("data")
	nc := len(cols)
	clear(vals)
	vals = vals[:0]
	for _, row := range data {
		base := len(vals)
		for range nc {
			vals = append(vals, nil)
		}
		o, err := row.Object()
		if err != nil {
			continue
		}
		j := 0
		o.Visit(func(k []byte, e *fastjson.Value) {
			// The server writes a row's keys in column order.
			if j >= nc || cols[j].Name != string(k) {
				j = columnIndex(cols, k)
			}
			if j >= 0 {
				vals[base+j] = s.fastValue(e)
				j++
			} else {
				j = nc
			}
		})
	}
	return vals, len(data), v.GetBool("has_more")
}

func columnIndex(cols []WireColumn, k []byte) int {
	for i, c := range cols {
		if c.Name == string(k) {
			return i
		}
	}
	return -1
}

// mapRows is decodeRows for a BINDINGS message decoded into a map.
func mapRows(m map[string]any, cols []WireColumn, vals []any) ([]any, int, bool) {
	data, _ := m["data"].([]any)
	clear(vals)
	vals = vals[:0]
	for _, row := range data {
		obj, _ := row.(map[string]any)
		for _, c := range cols {
			vals = append(vals, obj[c.Name])
		}
	}
	hasMore, _ := m["has_more"].(bool)
	return vals, len(data), hasMore
}
