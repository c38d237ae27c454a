package client

import (
	"reflect"
	"testing"
)

// FuzzWireMessage feeds arbitrary server lines to the client's decoder:
// never a panic; a line both decoders take decodes to the same values;
// a BINDINGS line's rows land in their columns.
func FuzzWireMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"BINDINGS","data":[{"i":1},{"i":2.5,"j":"x"}],"has_more":true}`,
		`{"type":"SUCCESS","summary":{"rows":2,"time_ms":0.5}}`,
		`{"type":"ERROR","code":"42000","message":"m","position":{"line":1,"column":2}}`,
		`{"a":[1,{"b":null}],"n":9007199254740993,"f":1e400,"s":"\u00e9"}`,
		`{"type":"BINDINGS","data":[[1],"x",{"i":{"j":[[[]]]}}]}`,
		`{"type":"BINDINGS","data":[{"i":"\ud800 \u2028"}]}`,
		`[1]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	cols := []WireColumn{{Name: "i"}, {Name: "j"}}
	f.Fuzz(func(t *testing.T, line []byte) {
		s := &WireSession{}
		fast, err := s.decodeMessage(line)
		if err == nil {
			if slow, serr := slowMessage(line); serr == nil && !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q: fastjson %#v, encoding/json %#v", line, fast, slow)
			}
		}
		if v, err := s.parser.ParseBytes(line); err == nil && fastTakes(line) {
			vals, n, more := s.decodeRows(v, cols, nil)
			if len(vals) != n*len(cols) {
				t.Fatalf("%q: %d values for %d rows of %d columns", line, len(vals), n, len(cols))
			}
			// The map path reads the same rows, of objects.
			if m, err := slowMessage(line); err == nil && isObjectRows(m) {
				mvals, mn, mmore := mapRows(m, cols, nil)
				if mn != n || mmore != more || !reflect.DeepEqual(mvals, vals) {
					t.Fatalf("%q: rows %v %d %v, from the map %v %d %v", line, vals, n, more, mvals, mn, mmore)
				}
			}
		}
	})
}

// isObjectRows reports whether m's data is an array of objects only
// (decodeRows leaves other rows' values nil, as mapRows does).
func isObjectRows(m map[string]any) bool {
	data, ok := m["data"].([]any)
	if !ok {
		return false
	}
	for _, r := range data {
		if _, ok := r.(map[string]any); !ok {
			return false
		}
	}
	return true
}
