package http

import (
	"encoding/json"
	"reflect"
	"strings"
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
	for _, s := range fastObjectCases {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"query":"RETURN 1"}`, `{"query":"x","parameters":{"a":[1,{"b":2.5}]}}`, `[]`, `{"query":1}`, `{"timeout":1e999}`, ``, `{"query":"q"} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameObject(t, body)
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

// sameObject checks that a body fastObject takes decodes to exactly what
// encoding/json makes of it.
func sameObject(t *testing.T, body []byte) (taken bool) {
	t.Helper()
	fast, ok := fastObject(body)
	if !ok {
		return false
	}
	std, err := stdObject(body, "")
	if err != nil {
		t.Fatalf("fastObject took %q, encoding/json refuses it: %s", body, err.message)
	}
	if !reflect.DeepEqual(fast, std) {
		t.Fatalf("%q: fastObject %#v, encoding/json %#v", body, fast, std)
	}
	return true
}

// Bodies on which a fast decoder could differ from encoding/json.
var fastObjectCases = []string{
	`{"query":"RETURN $a","parameters":{"a":1,"b":-0,"c":1.5e300,"d":1e999,"e":9223372036854775808,"f":[true,false,null,"x",[],{}]}}`,
	`{"query":"a","query":"b"}`, // duplicate keys: the last wins
	`{"query":"x","parameters":{"k":{"a":1,"a":[2]}}}`,
	`{"query":"caf\u00e9 \ud83d\ude00 \ud800"}`, // escapes, an unpaired surrogate
	"{\"query\":\"\xff\xfe\"}",                  // invalid UTF-8
	`{"query":"tab\tquote\"slash\/"}`,
	`{"query":"x"} {"query":"y"}`,
	`{"query":"x",}`,
	` {"query" : "x" } `,
	`{"query":"x","parameters":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`,
	`{"query":"x","timeout":1e2}`,
	`{"query":01}`,
	`{"query":NaN}`,
	"{\"query\":\"a\x01b\"}",
	`[{"query":"x"}]`,
	`"x"`,
}

// fastObject takes the ordinary bodies and agrees with encoding/json on
// every one it takes; the rest go to encoding/json.
func TestFastObject(t *testing.T) {
	taken := 0
	for _, c := range fastObjectCases {
		if sameObject(t, []byte(c)) {
			taken++
		}
	}
	for _, c := range []string{fastObjectCases[0], fastObjectCases[1], fastObjectCases[2], fastObjectCases[5], fastObjectCases[8]} {
		if _, ok := fastObject([]byte(c)); !ok {
			t.Errorf("fastObject does not take the ordinary body %q", c)
		}
	}
	for _, i := range []int{3, 4, 6, 7, 9, 11, 12, 13, 14, 15} {
		if _, ok := fastObject([]byte(fastObjectCases[i])); ok {
			t.Errorf("fastObject takes %q, which encoding/json must decide", fastObjectCases[i])
		}
	}
	if taken == 0 {
		t.Fatal("fastObject took no body")
	}
}
