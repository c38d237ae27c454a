package jsonio

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzFastObject checks that every message FastObject takes decodes to
// exactly what encoding/json makes of it.
func FuzzFastObject(f *testing.F) {
	for _, s := range fastObjectCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameObject(t, body)
		obj, err := DecodeObject(body, "")
		if (obj == nil) == (err == nil) {
			t.Fatalf("exactly one of object and error must be set: %v %v", obj, err)
		}
	})
}

// sameObject checks that a body FastObject takes decodes to exactly what
// encoding/json makes of it.
func sameObject(t *testing.T, body []byte) (taken bool) {
	t.Helper()
	fast, ok := FastObject(body)
	if !ok {
		return false
	}
	std, err := StdObject(body, "")
	if err != nil {
		t.Fatalf("FastObject took %q, encoding/json refuses it: %s", body, err)
	}
	if !reflect.DeepEqual(fast, std) {
		t.Fatalf("%q: FastObject %#v, encoding/json %#v", body, fast, std)
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

// FastObject takes the ordinary bodies and agrees with encoding/json on
// every one it takes; the rest go to encoding/json.
func TestFastObject(t *testing.T) {
	taken := 0
	for _, c := range fastObjectCases {
		if sameObject(t, []byte(c)) {
			taken++
		}
	}
	for _, c := range []string{fastObjectCases[0], fastObjectCases[1], fastObjectCases[2], fastObjectCases[5], fastObjectCases[8]} {
		if _, ok := FastObject([]byte(c)); !ok {
			t.Errorf("FastObject does not take the ordinary body %q", c)
		}
	}
	for _, i := range []int{3, 4, 6, 7, 9, 11, 12, 13, 14, 15} {
		if _, ok := FastObject([]byte(fastObjectCases[i])); ok {
			t.Errorf("FastObject takes %q, which encoding/json must decide", fastObjectCases[i])
		}
	}
	if taken == 0 {
		t.Fatal("FastObject took no body")
	}
}
