package http

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
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

// badBodies are query requests that are not I-JSON: text that is not
// Unicode (22021) and keys given twice (22000, naming the key).
var badBodies = []struct {
	name, body, code, names string
}{
	{"invalid UTF-8 in the query", "{\"query\":\"CREATE (:T {s: '\xff'})\"}", "22021", "UTF-8"},
	{"invalid UTF-8 in a parameter", "{\"query\":\"CREATE (:T {s: $s})\",\"parameters\":{\"s\":\"a\xc3(\"}}", "22021", "UTF-8"},
	{"invalid UTF-8 in a map key", "{\"query\":\"CREATE (:T {s: $m.k})\",\"parameters\":{\"m\":{\"\xe2\x82\":1}}}", "22021", "UTF-8"},
	{"invalid UTF-8 nested", "{\"query\":\"CREATE (:T {s: $l})\",\"parameters\":{\"l\":[[\"x\",\"\xed\xa0\x80\"]]}}", "22021", "UTF-8"},
	{"a lone surrogate escape", `{"query":"CREATE (:T {s: '\ud800'})"}`, "22021", `\ud800`},
	{"a lone surrogate in a parameter", `{"query":"CREATE (:T {s: $s})","parameters":{"s":"\udc00"}}`, "22021", `\udc00`},
	{"the query twice", `{"query":"CREATE (:T {s: 1})","query":"CREATE (:T {s: 2})"}`, "22000", `"query"`},
	{"a parameter twice", `{"query":"CREATE (:T {s: $s})","parameters":{"s":"a","s":"b"}}`, "22000", `"s" twice`},
	{"a nested key twice", `{"query":"CREATE (:T {s: $m.k})","parameters":{"m":{"k":1,"\u006b":2}}}`, "22000", `"k" twice`},
}

// Decoding refuses what is not I-JSON instead of storing U+FFFD or the
// last of two keys.
func TestDecodeQueryRequestRefusesNonIJSON(t *testing.T) {
	for _, c := range badBodies {
		req, err := decodeQueryRequest([]byte(c.body), "parameters")
		if req != nil || err == nil || err.status != 400 || err.code != c.code || !strings.Contains(err.message, c.names) {
			t.Errorf("%s: got %+v %+v, want 400 %s naming %s", c.name, req, err, c.code, c.names)
		}
	}
}

// Every endpoint that takes a JSON body refuses what is not I-JSON,
// with nothing written.
func TestEndpointsRefuseNonIJSON(t *testing.T) {
	db := openDB(t, engine.Options{})
	base := startServer(t, Config{}, db)
	status, out, _ := call(t, "POST", base+"/api/v1/transaction/begin", "")
	if status != 200 {
		t.Fatalf("begin: %d %v", status, out)
	}
	tx := base + "/api/v1/transaction/" + out["transaction_id"].(string)
	batch := func(body string) string { return `{"queries":[` + body + `]}` }
	for _, c := range badBodies {
		for _, ep := range []struct {
			path string
			wrap func(string) string
		}{
			{"/api/v1/query", nil}, {"/query", nil}, {"/api/v1/query/explain", nil}, {"/api/v1/query/profile", nil},
			{"/api/v1/batch", batch}, {"/api/v1/transaction/begin", nil},
			{tx[len(base):] + "/query", nil}, {tx[len(base):] + "/commit", nil}, {tx[len(base):] + "/rollback", nil},
		} {
			body := c.body
			if ep.wrap != nil {
				body = ep.wrap(body)
			}
			if ep.path == "/query" {
				body = strings.Replace(body, `"parameters"`, `"params"`, 1)
			}
			status, out, _ := call(t, "POST", base+ep.path, body)
			e, _ := out["error"].(map[string]any)
			if status != 400 || e["code"] != c.code || e["category"] != engine.CatData || !strings.Contains(fmt.Sprint(e["message"]), c.names) {
				t.Errorf("%s, %s: %d %v, want 400 %s naming %s", c.name, ep.path, status, out, c.code, c.names)
			}
		}
	}
	if status, out, _ := call(t, "POST", tx+"/commit", ""); status != 200 {
		t.Fatalf("commit: %d %v", status, out)
	}
	_, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (n:T) RETURN count(n) AS c"}`)
	if got := jsonString(out["data"]); got != `[{"c":0}]` {
		t.Errorf("refused requests wrote: %s", got)
	}
}

// The token endpoints refuse what is not I-JSON too, before the login
// limiter or a password is involved.
func TestAuthEndpointsRefuseNonIJSON(t *testing.T) {
	f := newAuthFixture(t, Config{})
	for _, c := range []struct{ path, body, code string }{
		{"/api/v1/auth/token", "{\"username\":\"ed\",\"password\":\"ed-password\xff\"}", "22021"},
		{"/api/v1/auth/token", `{"username":"ed","password":"\ud800"}`, "22021"},
		{"/api/v1/auth/token", `{"username":"mallory","username":"ed","password":"ed-password"}`, "22000"},
		{"/api/v1/auth/refresh", `{"refresh_token":"a","refresh_token":"b"}`, "22000"},
	} {
		if a := f.send("POST", c.path, c.body); a.status != 400 || a.errorCode() != c.code {
			t.Errorf("%s %q: %d %s, want 400 %s", c.path, c.body, a.status, a.raw, c.code)
		}
	}
	access, _ := f.login("ed", "ed-password")
	if a := f.send("POST", "/api/v1/auth/logout", `{"a":1,"a":2}`, bearer(access)); a.status != 400 || a.errorCode() != "22000" {
		t.Errorf("logout: %d %s", a.status, a.raw)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"query":"RETURN 1"}`, `{"query":"x","parameters":{"a":[1,{"b":2.5}]}}`, `[]`, `{"query":1}`, `{"timeout":1e999}`, ``, `{"query":"q"} x`} {
		f.Add([]byte(s))
	}
	for _, c := range badBodies {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeQueryRequest(body, "parameters")
		if (req == nil) == (err == nil) {
			t.Fatalf("exactly one of request and error must be set: %v %v", req, err)
		}
		// jsonio.DecodeObject is the judge of I-JSON (FuzzFastObject):
		// what it refuses is refused here with its code.
		_, derr := jsonio.DecodeObject(body, "the request body", "")
		var want *engine.Error
		if derr != nil && !errors.As(derr, &want) {
			t.Fatalf("DecodeObject's error is not the engine's: %v", derr)
		}
		if err != nil {
			if err.status != 400 || (err.code != "22000" && err.code != jsonio.CodeBadCharacter) || err.message == "" {
				t.Fatalf("bad error shape %+v", err)
			}
			if want != nil && err.code != want.Code {
				t.Fatalf("%q: code %s, DecodeObject's %s", body, err.code, want.Code)
			}
			if !json.Valid(appendError(nil, err)) {
				t.Fatalf("error body is not JSON: %s", appendError(nil, err))
			}
			return
		}
		if derr != nil || !utf8.Valid(body) {
			t.Fatalf("accepted %q, which DecodeObject refuses: %v", body, derr)
		}
		if req.query == "" {
			t.Fatal("accepted an empty query")
		}
	})
}
