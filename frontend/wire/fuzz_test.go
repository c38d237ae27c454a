package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// boundedWriter keeps a session's output up to max bytes and fails
// writes past it.
type boundedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

var errTooMuchOutput = errors.New("too much output")

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len()+len(p) > w.max {
		return 0, errTooMuchOutput
	}
	return w.buf.Write(p)
}

// serverTypes are the messages a server sends.
var serverTypes = map[string]bool{"WELCOME": true, "SCHEMA": true, "BINDINGS": true, "SUCCESS": true,
	"ERROR": true, "EXPLAIN": true, "PROFILE": true}

// FuzzWireSession feeds arbitrary bytes to a session as its client's
// input and checks that it ends without a panic, writing only whole
// lines of valid JSON objects of the server's message types, and a
// bounded amount of them. Each line is decoded as the session decodes
// it: one that jsonio.DecodeObject refuses (not I-JSON: invalid UTF-8, a
// lone surrogate escape, a key given twice; FuzzFastObject holds it to
// that) is refused with its code, never taken.
func FuzzWireSession(f *testing.F) {
	hello := `{"type":"HELLO","version":"1.0"}` + "\n"
	for _, s := range []string{
		hello,
		hello + `{"type":"RUN_GQL","query":"RETURN 1 AS x","params":{}}` + "\n",
		hello + `{"type":"RUN_GQL","query":"UNWIND range(1, 3000) AS i RETURN i"}` + "\n" + `{"type":"PULL","n":5}` + "\n" + `{"type":"DISCARD"}` + "\n",
		hello + `{"type":"RUN_GQL","query":"UNWIND range(1, 3000) AS i RETURN i"}` + "\n" + `{"type":"PULL","n":-1}` + "\n",
		hello + `{"type":"BEGIN","isolation_level":"SERIALIZABLE"}` + "\n" + `{"type":"RUN_GQL","query":"CREATE (:F {x: $x})","params":{"x":[1,2.5,"s",null,{"k":true}]}}` + "\n" + `{"type":"COMMIT"}` + "\n",
		hello + `{"type":"BEGIN"}` + "\n" + `{"type":"ROLLBACK"}` + "\n" + `{"type":"PING"}` + "\r\n",
		hello + `{"type":"RUN_GQL","query":"EXPLAIN MATCH (n:F) RETURN n"}` + "\n" + `{"type":"RUN_GQL","query":"PROFILE MATCH (n:F) RETURN n"}` + "\n",
		hello + `{"type":"RUN_GQL","query":"MATCH (n) RETURN m"}` + "\n" + `{"type":"PULL"}` + "\n" + `{"type":` + "\n",
		`{"type":"RUN_GQL"}` + "\n",
		"\n\n  \n" + hello + `[]` + "\n" + `{"type":"HELLO","version":"1.0"}`,
		hello + "{\"type\":\"\xff\\u0000\"}\n",
		hello + `{"type":"RUN_GQL","query":"CREATE (:F {x: $x})","params":{"x":"\ud800"}}` + "\n",
		hello + `{"type":"RUN_GQL","query":"CREATE (:F {x: $x})","params":{"x":{"k":1,"k":2}}}` + "\n",
		hello + "{\"type\":\"RUN_GQL\",\"query\":\"RETURN '\xe2\x82'\"}\n",
		`{"type":"HELLO","version":"1.0","auth":{"username":"u","password":"p","method":"bearer"}}` + "\n",
		`{"type":"HELLO","version":"1.0","auth":{"username":1}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	db, err := engine.Open("", engine.Options{Logger: quietLogger(), QueryTimeout: 2 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	srv := New(Config{Logger: quietLogger(), Version: "fuzz", MaxQuerySize: 4096, Window: 50}, db)
	f.Fuzz(func(t *testing.T, input []byte) {
		out := &boundedWriter{max: 4 << 20}
		tr := transport{r: bytes.NewReader(input), w: out, remote: nil,
			setWriteDeadline: func(time.Time) error { return nil },
			hangUp:           func(time.Duration) {}, close: func() {}}
		srv.serveSession(tr, nil)
		for _, line := range bytes.Split(input, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			m, werr := decodeMessage(line, 4096)
			_, derr := jsonio.DecodeObject(line, "the message", "")
			switch e, _ := engine.AsError(derr); {
			case derr != nil && werr == nil:
				t.Fatalf("took %q, which DecodeObject refuses: %v", line, derr)
			case derr != nil && werr.code != e.Code:
				t.Fatalf("%q: code %s, DecodeObject's %s", line, werr.code, e.Code)
			case m != nil && !utf8.Valid(line):
				t.Fatalf("took invalid UTF-8: %q", line)
			}
		}
		b := out.buf.Bytes()
		if out.buf.Len() >= out.max-64<<10 {
			t.Fatalf("%d bytes of output for %d of input", out.buf.Len(), len(input))
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Fatalf("the output ends in the middle of a line: %q", b[max(0, len(b)-80):])
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if len(b) == 0 {
				break
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("output line is not a JSON object: %v: %q", err, line)
			}
			if typ, _ := m["type"].(string); !serverTypes[typ] {
				t.Fatalf("output line of unknown type: %q", line)
			}
		}
	})
}
