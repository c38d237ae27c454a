package http

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/quiverdb/quiver/vector"
)

func TestDecodeQueryRequest(t *testing.T) {
	req, err := decodeQueryRequest([]byte(`{"query":"RETURN $a","parameters":{"a":1,"b":1.5,"c":[1,"x",{"k":null}],"d":9007199254740993,"e":1e3,"f":true},"timeout":250,"profile":false}`), "parameters")
	if err != nil {
		t.Fatal(err.message)
	}
	if req.query != "RETURN $a" || req.timeout != 250*time.Millisecond || req.profile || req.explain {
		t.Fatalf("decoded %+v", req)
	}
	want := map[string]vector.Value{"a": int64(1), "b": 1.5, "d": int64(9007199254740993), "e": 1000.0, "f": true}
	for k, w := range want {
		if req.params[k] != w {
			t.Errorf("param %s = %#v, want %#v", k, req.params[k], w)
		}
	}
	c := req.params["c"].([]vector.Value)
	if c[0] != int64(1) || c[1] != "x" || c[2].(map[string]vector.Value)["k"] != nil {
		t.Errorf("param c = %#v", c)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"query":"RETURN 1"}`, `{"query":"x","parameters":{"a":[1,{"b":2.5}]}}`, `[]`, `{"query":1}`, `{"timeout":1e999}`, ``, `{"query":"q"} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeQueryRequest(body, "parameters")
		if (req == nil) == (err == nil) {
			t.Fatalf("exactly one of request and error must be set: %v %v", req, err)
		}
		if err != nil {
			if err.status != 400 || err.code != "22000" || err.message == "" {
				t.Fatalf("bad error shape %+v", err)
			}
			if !json.Valid(appendError(nil, err)) {
				t.Fatalf("error body is not JSON: %s", appendError(nil, err))
			}
			return
		}
		if req.query == "" {
			t.Fatal("accepted an empty query")
		}
	})
}
