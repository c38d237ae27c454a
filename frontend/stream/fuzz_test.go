package stream

import (
	"testing"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// FuzzStreamMessage: the client-message decoder and the pattern parser
// take any bytes without a panic; an error always has a code and a
// message, and a SUBSCRIBE that decodes has its patterns parsed. A
// message jsonio.DecodeObject refuses (not I-JSON: invalid UTF-8, a lone
// surrogate escape, a key given twice; FuzzFastObject holds it to that)
// is refused with its code, never taken.
func FuzzStreamMessage(f *testing.F) {
	for _, seed := range []string{
		`{"type":"AUTH","token":"Bearer abc"}`,
		`{"type":"SUBSCRIBE","id":"x","patterns":["(:Person {name: 'Ann', age: 3, s: 1.5, ok: true})","(:A)-[r:R|S {w: -1}]->(:B)","()<--()"]}`,
		`{"type":"SUBSCRIBE","patterns":["(:` + "`a``b`" + `)", "()-[]-()"],"from_lsn":12}`,
		`{"type":"UNSUBSCRIBE","subscription_id":"x"}`,
		`{"type":"PING"}`,
		`{"type":"SUBSCRIBE","patterns":["(n"]}`,
		`{"type":"SUBSCRIBE","patterns":["(:A {x: 'unterminated})"]}`,
		`{"type":"SUBSCRIBE","patterns":[1]}`,
		`[]`, `nope`, "\xff", `{"type":"\u0000"}`,
		`{"type":"SUBSCRIBE","patterns":["(:P {n: '\ud800'})"]}`, `{"type":"PING","type":"PING"}`,
		"{\"type\":\"SUBSCRIBE\",\"patterns\":[\"(:P {n: '\xe2\x82')\"]}",
		`{"type":"SUBSCRIBE","patterns":["\n"]}`, // an error on the pattern's second line
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeClientMessage(data, limits{maxPatterns: 4})
		_, derr := jsonio.DecodeObject(data, "the message", "")
		switch e, _ := engine.AsError(derr); {
		case derr != nil && err == nil:
			t.Fatalf("took %q, which DecodeObject refuses: %v", data, derr)
		case derr != nil && err.code != e.Code:
			t.Fatalf("%q: code %s, DecodeObject's %s", data, err.code, e.Code)
		case err == nil && !utf8.Valid(data):
			t.Fatalf("took invalid UTF-8: %q", data)
		}
		if err != nil {
			if err.code == "" || err.message == "" || !utf8.ValidString(err.message) {
				t.Fatalf("error without a code or message: %+v", err)
			}
			// A position is in a pattern's text, which may hold line
			// breaks: never before its start, never past the message.
			if p := err.position; p != nil && (p.Line < 1 || p.Column < 1 || p.Line > len(data) || p.Column > len(data)) {
				t.Fatalf("position %+v", *p)
			}
			b := appendError(nil, err)
			if !utf8.Valid(b) {
				t.Fatalf("ERROR message is not UTF-8: %q", b)
			}
			return
		}
		switch m.Type {
		case msgAuth, msgPing:
		case msgUnsubscribe:
			if m.ID == "" {
				t.Fatal("UNSUBSCRIBE without an id decoded")
			}
		case msgSubscribe:
			if len(m.Patterns) == 0 || len(m.Patterns) > 4 || len(m.Parsed) != len(m.Patterns) {
				t.Fatalf("SUBSCRIBE with %d patterns, %d parsed", len(m.Patterns), len(m.Parsed))
			}
			for i, p := range m.Parsed {
				if p.String() != m.Patterns[i] {
					t.Fatalf("pattern %d: %q parsed as %q", i, m.Patterns[i], p.String())
				}
			}
		default:
			t.Fatalf("message of type %q decoded", m.Type)
		}
	})
}
