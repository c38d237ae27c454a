package jsonio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/quiverdb/quiver/engine"
)

// FuzzFastObject checks that DecodeObject, on every body it takes,
// decodes exactly what encoding/json makes of it, on both its paths
// (fastjson and encoding/json's tokens), and that it never takes what is
// not I-JSON: invalid UTF-8, a lone surrogate escape (encoding/json
// makes U+FFFD of both), a key twice in one object (encoding/json keeps
// the last).
func FuzzFastObject(f *testing.F) {
	for _, s := range fastObjectCases {
		f.Add([]byte(s))
	}
	for _, s := range refusedCases {
		f.Add([]byte(s.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		obj, err := DecodeObject(body, "the body", "")
		if (obj == nil) == (err == nil) {
			t.Fatalf("exactly one of object and error must be set: %v %v", obj, err)
		}
		if err != nil {
			e, ok := engine.AsError(err)
			if !ok || (e.Code != engine.CodeData && e.Code != CodeBadCharacter) || e.Message == "" || !utf8.ValidString(e.Message) {
				t.Fatalf("%q: error %#v", body, err)
			}
			if e.Code == CodeBadCharacter && utf8.Valid(body) && !strings.Contains(strings.ToLower(string(body)), `\ud`) {
				t.Fatalf("%q: 22021 for UTF-8 without a surrogate escape: %v", body, err)
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("took invalid UTF-8: %q", body)
		}
		if repeatsKey(body) {
			t.Fatalf("took a key twice in one object: %q", body)
		}
		std := sameObject(t, body, obj)
		// encoding/json makes U+FFFD of a lone surrogate escape: a
		// decoded U+FFFD that the body does not spell was one.
		if n, spelled := countFFFD(std), bytes.Count(body, []byte("\uFFFD"))+
			strings.Count(strings.ToLower(string(body)), `\ufffd`); n > spelled {
			t.Fatalf("took a lone surrogate escape: %q", body)
		}
	})
}

// sameObject checks that obj, DecodeObject's tree of body, is what
// encoding/json (UseNumber) and the token path make of it, and returns
// encoding/json's.
func sameObject(t *testing.T, body []byte, obj map[string]any) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var std map[string]any
	if err := dec.Decode(&std); err != nil {
		t.Fatalf("DecodeObject took %q, encoding/json refuses it: %s", body, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("DecodeObject took %q, with data after the object", body)
	}
	if !reflect.DeepEqual(obj, std) {
		t.Fatalf("%q: DecodeObject %#v, encoding/json %#v", body, obj, std)
	}
	tok, err := stdObject(body, "the body", "")
	if err != nil || !reflect.DeepEqual(tok, std) {
		t.Fatalf("%q: the token path %#v %v, encoding/json %#v", body, tok, err, std)
	}
	return std
}

// repeatsKey reports whether valid JSON has a key twice in one object,
// read with encoding/json's tokens (a reference independent of the
// decoders' map sizes).
func repeatsKey(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	var objs []map[string]bool // nil for an array
	wantKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			objs, wantKey = append(objs, map[string]bool{}), true
			continue
		case json.Delim('['):
			objs, wantKey = append(objs, nil), false
			continue
		case json.Delim('}'), json.Delim(']'):
			objs = objs[:len(objs)-1]
		default:
			if wantKey {
				k, _ := tok.(string)
				if objs[len(objs)-1][k] {
					return true
				}
				objs[len(objs)-1][k], wantKey = true, false
				continue
			}
		}
		wantKey = len(objs) > 0 && objs[len(objs)-1] != nil // a value ended
	}
}

// countFFFD counts U+FFFD in the strings and keys of a decoded tree.
func countFFFD(v any) int {
	n := 0
	switch x := v.(type) {
	case string:
		n = strings.Count(x, "\uFFFD")
	case []any:
		for _, e := range x {
			n += countFFFD(e)
		}
	case map[string]any:
		for k, e := range x {
			n += strings.Count(k, "\uFFFD") + countFFFD(e)
		}
	}
	return n
}

// Bodies on which a fast decoder could differ from encoding/json, all
// taken.
var fastObjectCases = []string{
	`{"query":"RETURN $a","parameters":{"a":1,"b":-0,"c":1.5e300,"d":1e999,"e":9223372036854775808,"f":[true,false,null,"x",[],{}]}}`,
	`{"query":"caf\u00e9 \ud83d\ude00 \uD83D\uDE00 \u0000 \ufffd \\ud800"}`, // escapes: pairs, NUL, an escaped backslash
	`{"query":"tab\tquote\"slash\/ caf` + "\u00e9 \U0001F600 \uFFFD" + `"}`,
	` {"query" : "x" } `,
	`{"query":"x","parameters":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`, // past fastjson's depth
	`{"query":"x","parameters":{"deep":` + strings.Repeat(`{"a":`, 350) + `1` + strings.Repeat("}", 350) + `}}`,
	`{"query":"x","timeout":1e2}`,
	`{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":1}]}`, // the same key in different objects
	`{"\u0061":1,"b":2}`,
}

// Bodies DecodeObject refuses, with the code and what the message names.
var refusedCases = []struct {
	body, code, names string
}{
	{"{\"query\":\"\xff\xfe\"}", CodeBadCharacter, "byte 10"},
	{"{\"query\":\"RETURN $p\",\"parameters\":{\"p\":\"a\xc3\"}}", CodeBadCharacter, "UTF-8"},
	{"{\"query\":\"x\",\"parameters\":{\"\xed\xa0\x80\":1}}", CodeBadCharacter, "UTF-8"}, // a surrogate encoded in UTF-8, as a key
	{"{\"query\":\"x\",\"parameters\":{\"m\":{\"k\":[\"ok\",\"\xc0\xaf\"]}}}", CodeBadCharacter, "UTF-8"},
	{`{"query":"\ud800"}`, CodeBadCharacter, `\ud800`},
	{`{"query":"\udc00\ud800"}`, CodeBadCharacter, `\udc00`},
	{`{"query":"x\uD83D\u0041"}`, CodeBadCharacter, `\uD83D`},
	{`{"query":"x","parameters":{"\ud83d":1}}`, CodeBadCharacter, `\ud83d`},
	{`{"query":"a","query":"b"}`, engine.CodeData, `"query" twice in one object (at the top level)`},
	{`{"query":"x","parameters":{"k":{"a":1,"a":[2]}}}`, engine.CodeData, `"a" twice in one object (at parameters.k)`},
	{`{"query":"x","parameters":{"l":[1,{"b":1,"\u0062":2}]}}`, engine.CodeData, `"b" twice in one object (at parameters.l[1])`},
	{`{"query":"x","parameters":{"a b":{"z":1,"z":1}}}`, engine.CodeData, `(at parameters["a b"])`},
	{`{"query":"x","parameters":{"p":` + strings.Repeat(`[`, 400) + `{"k":1,"k":2}` + strings.Repeat(`]`, 400) + `}}`, engine.CodeData, `"k" twice`},
	{`{"query":"x"} {"query":"y"}`, engine.CodeData, "data after its JSON object"},
	{`{"query":"x",}`, engine.CodeData, "not valid JSON"},
	{`{"query":01}`, engine.CodeData, "not valid JSON"},
	{`{"query":NaN}`, engine.CodeData, "not valid JSON"},
	{"{\"query\":\"a\x01b\"}", engine.CodeData, "not valid JSON"},
	{``, engine.CodeData, "not valid JSON"},
	{`[{"query":"x"}]`, engine.CodeData, "must be a JSON object"},
	{`"x"`, engine.CodeData, "must be a JSON object"},
	{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), engine.CodeData, "not valid JSON"},
}

// DecodeObject takes the ordinary bodies as encoding/json reads them.
func TestDecodeObject(t *testing.T) {
	for _, c := range fastObjectCases {
		obj, err := DecodeObject([]byte(c), "the body", "")
		if err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		sameObject(t, []byte(c), obj)
	}
	obj, _ := DecodeObject([]byte(fastObjectCases[1]), "the body", "")
	if want := "café 😀 😀 \x00 \uFFFD \\ud800"; obj["query"] != want {
		t.Errorf("escapes decode to %q, want %q", obj["query"], want)
	}
}

// Text that is not Unicode is 22021, a key given twice 22000 naming the
// key and where its object is; nothing is replaced by U+FFFD or dropped.
func TestDecodeObjectRefuses(t *testing.T) {
	for _, c := range refusedCases {
		obj, err := DecodeObject([]byte(c.body), "the body", "with a field")
		e, ok := engine.AsError(err)
		if obj != nil || !ok || e.Code != c.code || e.Category != engine.CatData || !strings.Contains(e.Message, c.names) {
			t.Errorf("%.80q: got %v %v, want %s naming %s", c.body, obj, err, c.code, c.names)
		}
	}
}

// loneSurrogate finds the escape the message quotes, and only lone ones.
func TestLoneSurrogate(t *testing.T) {
	for body, want := range map[string]int{
		`{"a":"x"}`:                  -1,
		`{"a":"\\ud800"}`:            -1, // an escaped backslash, then text
		`{"a":"\\\ud800"}`:           8,
		`{"a":"\ud83d\ude00\ud800"}`: 18,
		`{"a":"\"\ud83d\ude00"}`:     -1,
		`{"\udfff":1}`:               2,
		`{"a":"\ud800\ud800\udc00"}`: 6,
	} {
		if got := loneSurrogate([]byte(body)); got != want {
			t.Errorf("%s: %d, want %d", body, got, want)
		}
	}
}

// deeperThan agrees with the nesting fastjson refuses: a body it calls
// shallow enough parses.
func TestDeeperThan(t *testing.T) {
	for _, c := range []struct {
		body string
		deep bool
	}{
		{`{"a":"[[[[[[[[[["}`, false},
		{`{"a":"\"[[[[[[","b":[[]]}`, false},
		{`{"a":[[[[1]]]]}`, true},
		{`[{"a":[{}]}]`, true},
		{`[[[]]]`, false},
	} {
		if got := deeperThan([]byte(c.body), 3); got != c.deep {
			t.Errorf("deeperThan(%s, 3) = %v", c.body, got)
		}
	}
	for depth := fastjson.MaxDepth - 3; depth <= fastjson.MaxDepth+3; depth++ {
		body := []byte(`{"p":` + strings.Repeat("[", depth-1) + `1` + strings.Repeat("]", depth-1) + `}`)
		_, err := new(fastjson.Parser).ParseBytes(body)
		if !deeperThan(body, fastjson.MaxDepth-1) && err != nil {
			t.Errorf("depth %d: deeperThan passes it to fastjson, which refuses it: %v", depth, err)
		}
	}
}

// BenchmarkDecodeObject decodes the body of an auto-commit CREATE with
// parameters (fastjson), and a body past fastjson's nesting limit
// (encoding/json's tokens).
func BenchmarkDecodeObject(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"create", `{"query":"CREATE (:W {id: $id, c: $c})","parameters":{"id":123456,"c":"client-7"}}`},
		{"escapes", `{"query":"CREATE (:W {id: $id, c: $c})","parameters":{"id":123456,"c":"caf\u00e9 \ud83d\ude00"}}`},
		{"deep", `{"query":"RETURN $p","parameters":{"p":` + strings.Repeat("[", 320) + strings.Repeat("]", 320) + `}}`},
	} {
		body := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeObject(body, "the body", ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
