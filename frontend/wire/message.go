package wire

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// msgType is a client message's type.
type msgType uint8

const (
	mHello msgType = iota + 1
	mRun
	mPull
	mDiscard
	mBegin
	mCommit
	mRollback
	mPing
)

var msgTypes = map[string]msgType{
	"HELLO": mHello, "RUN_GQL": mRun, "PULL": mPull, "DISCARD": mDiscard,
	"BEGIN": mBegin, "COMMIT": mCommit, "ROLLBACK": mRollback, "PING": mPing,
}

// message is a decoded client message; only the fields of its type are
// set. Fields the protocol does not define are ignored, so that a newer
// client can add some.
type message struct {
	typ  msgType
	name string // the type as sent

	version string     // HELLO
	auth    *helloAuth // HELLO: its auth object, nil when absent

	query        string        // RUN_GQL
	params       engine.Params // RUN_GQL
	txID         string        // RUN_GQL, COMMIT, ROLLBACK
	timeout      time.Duration // RUN_GQL options.timeout_ms, BEGIN timeout_ms
	includeStats bool          // RUN_GQL options.include_stats

	n int64 // PULL: rows asked for, -1 for all

	isolation engine.IsolationLevel // BEGIN

	graph string // RUN_GQL and BEGIN: the graph it runs on ("": the session's)

	// A cluster member's fields (cluster.go): RUN_GQL and BEGIN.
	bookmark    uint64
	consistency string
	readOnly    bool
}

// decodeMessage decodes one line. Its errors are 22000 errors for the
// client; a query text over maxQuery bytes is one too.
func decodeMessage(line []byte, maxQuery int) (*message, *wireError) {
	obj, werr := decodeObject(line)
	if werr != nil {
		return nil, werr
	}
	name, werr := stringField(obj, "type", true)
	if werr != nil {
		return nil, werr
	}
	typ, ok := msgTypes[name]
	if !ok {
		return nil, dataError("unknown message type %q: the client messages are HELLO, RUN_GQL, PULL, DISCARD, BEGIN, COMMIT, ROLLBACK and PING", cut(name))
	}
	m := &message{typ: typ, name: name}
	switch typ {
	case mHello:
		werr = m.decodeHello(obj)
	case mRun:
		werr = m.decodeRun(obj, maxQuery)
	case mPull:
		werr = m.decodePull(obj)
	case mBegin:
		werr = m.decodeBegin(obj)
	case mCommit, mRollback:
		m.txID, werr = stringField(obj, "transaction_id", false)
	}
	if werr != nil {
		return nil, werr
	}
	return m, nil
}

func (m *message) decodeHello(obj map[string]any) (werr *wireError) {
	if m.version, werr = stringField(obj, "version", true); werr != nil {
		return werr
	}
	if _, werr = stringField(obj, "client", false); werr != nil {
		return werr
	}
	if _, werr = objectField(obj, "capabilities", "HELLO"); werr != nil {
		return werr
	}
	a, werr := objectField(obj, "auth", "HELLO")
	if werr != nil || a == nil {
		return werr
	}
	// The fields' shape is checked here, the credentials themselves by
	// the session once authentication is known to be on (auth.go).
	m.auth = &helloAuth{}
	for _, f := range []struct {
		key string
		dst *string
	}{{"username", &m.auth.username}, {"password", &m.auth.password}, {"method", &m.auth.method}} {
		switch v := a[f.key].(type) {
		case string:
			*f.dst = v
		case nil:
		default:
			return dataError("the field %q of HELLO auth must be a string", f.key)
		}
	}
	return nil
}

func (m *message) decodeRun(obj map[string]any, maxQuery int) (werr *wireError) {
	if m.query, werr = stringField(obj, "query", true); werr != nil {
		return werr
	}
	if len(m.query) > maxQuery {
		return dataError("the query text is %d bytes, more than max_query_size (%d)", len(m.query), maxQuery)
	}
	raw, werr := objectField(obj, "params", "RUN_GQL")
	if werr != nil {
		return werr
	}
	if raw != nil {
		p, err := jsonio.Params(raw)
		if err != nil {
			return dataError("%v", err)
		}
		m.params = p
	}
	if m.txID, werr = stringField(obj, "transaction_id", false); werr != nil {
		return werr
	}
	if m.graph, werr = stringField(obj, "graph", false); werr != nil {
		return werr
	}
	if werr = m.decodeCluster(obj); werr != nil {
		return werr
	}
	opts, werr := objectField(obj, "options", "RUN_GQL")
	if werr != nil || opts == nil {
		return werr
	}
	ms, werr := intField(opts, "timeout_ms", "RUN_GQL options")
	if werr != nil {
		return werr
	}
	if ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return dataError("options.timeout_ms must be a number of milliseconds, 0 (the session's limit) or more")
	}
	m.timeout = time.Duration(ms) * time.Millisecond
	switch v := opts["include_stats"].(type) {
	case nil:
	case bool:
		m.includeStats = v
	default:
		return dataError("options.include_stats must be a boolean")
	}
	return nil
}

func (m *message) decodePull(obj map[string]any) *wireError {
	if _, present := obj["n"]; !present || obj["n"] == nil {
		return dataError("PULL needs n: the number of rows to send next (1 or more), or -1 for all")
	}
	n, werr := intField(obj, "n", "PULL")
	if werr != nil {
		return werr
	}
	if n == 0 || n < -1 {
		return dataError("PULL n must be 1 or more, or -1 for all rows; got %d", n)
	}
	m.n = n
	return nil
}

func (m *message) decodeBegin(obj map[string]any) *wireError {
	level, werr := stringField(obj, "isolation_level", false)
	if werr != nil {
		return werr
	}
	l, err := engine.ParseIsolationLevel(level)
	if err != nil {
		if e, ok := fromEngine(err); ok {
			return e
		}
		return dataError("%v", err)
	}
	m.isolation = l
	if m.graph, werr = stringField(obj, "graph", false); werr != nil {
		return werr
	}
	if werr := m.decodeCluster(obj); werr != nil {
		return werr
	}
	ms, werr := intField(obj, "timeout_ms", "BEGIN")
	if werr != nil {
		return werr
	}
	if ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return dataError("timeout_ms must be a number of milliseconds, 0 (the default) or more")
	}
	m.timeout = time.Duration(ms) * time.Millisecond
	return nil
}

// decodeObject decodes a line holding one JSON object
// (jsonio.DecodeObject): a line that is not UTF-8 is a 22021 error, a key
// given twice a 22000 one.
func decodeObject(line []byte) (map[string]any, *wireError) {
	obj, err := jsonio.DecodeObject(line, "the message", `with a "type" field`)
	if err != nil {
		e, _ := fromEngine(err)
		return nil, e
	}
	return obj, nil
}

// stringField reads a string field; a missing or null one is "" (an
// error when required).
func stringField(obj map[string]any, key string, required bool) (string, *wireError) {
	switch v := obj[key].(type) {
	case string:
		return v, nil
	case nil:
		if required {
			if key == "type" {
				return "", dataError("the message has no \"type\" field")
			}
			return "", dataError("%s needs the field %q (a string)", typeName(obj), key)
		}
		return "", nil
	}
	return "", dataError("the field %q of %s must be a string", key, typeName(obj))
}

// objectField reads an optional object field (nil when missing or null).
func objectField(obj map[string]any, key, what string) (map[string]any, *wireError) {
	switch v := obj[key].(type) {
	case map[string]any:
		return v, nil
	case nil:
		return nil, nil
	}
	return nil, dataError("the field %q of %s must be an object", key, what)
}

// intField reads an optional integer field (0 when missing or null).
func intField(obj map[string]any, key, what string) (int64, *wireError) {
	switch v := obj[key].(type) {
	case nil:
		return 0, nil
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, dataError("the field %q of %s must be an integer", key, what)
}

// typeName names a message in errors by its type field.
func typeName(obj map[string]any) string {
	if s, ok := obj["type"].(string); ok {
		return cut(s)
	}
	return "the message"
}

// cut shortens a client's string quoted in an error.
func cut(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}
