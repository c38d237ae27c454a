package stream

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// Client messages (docs/stream.md):
//
//	{"type":"AUTH","token":"Bearer <access token>"}
//	{"type":"SUBSCRIBE","patterns":["(:Person)", …],"id":"mine","from":"…"}
//	{"type":"UNSUBSCRIBE","subscription_id":"mine"}
//	{"type":"PING"}
//
// Unknown fields are ignored; a message of unknown type, a field of the
// wrong type or a bad pattern is an ERROR and the connection goes on
// (before AUTH, any error closes it).

// Message types.
const (
	msgAuth         = "AUTH"
	msgSubscribe    = "SUBSCRIBE"
	msgUnsubscribe  = "UNSUBSCRIBE"
	msgPing         = "PING"
	msgAuthOK       = "AUTH_OK"
	msgSubscribed   = "SUBSCRIBED"
	msgUnsubscribed = "UNSUBSCRIBED"
	msgPong         = "PONG"
	msgChange       = "CHANGE"
	msgError        = "ERROR"
	msgLagging      = "LAGGING"
)

// maxIDBytes bounds a subscription id a client chooses.
const maxIDBytes = 128

// Error codes of ERROR messages (the spec's ISO/IEC 39075 codes).
const (
	codeData        = engine.CodeData        // 22000: a malformed message
	codeSyntax      = engine.CodeSyntax      // 42000: a bad pattern
	codeAuth        = engine.CodeAuth        // 08001: AUTH missing or refused
	codeNotFound    = engine.CodeNotFound    // 02000: no such subscription
	codeExists      = "42S01"                // a subscription id in use
	codeTooMany     = engine.CodeTooMany     // 53300: too many subscriptions
	codeUnavailable = engine.CodeUnavailable // 08006: the database closed
)

// clientMessage is a decoded client message.
type clientMessage struct {
	Type     string
	Token    string
	Patterns []string
	// Parsed are Patterns parsed, in order.
	Parsed  []*engine.ChangePattern
	ID      string
	FromLSN uint64
	// From resumes after a change position (docs/cdc.md); nil: live
	// changes only.
	From *engine.ChangePosition
	// Graph is the graph whose changes it follows ("": the default).
	Graph string
}

// protoError is an ERROR message on its way to the client.
type protoError struct {
	code     string
	message  string
	position *engine.Position
	subID    string
}

func (e *protoError) Error() string { return e.code + ": " + e.message }

func dataError(format string, args ...any) *protoError {
	return &protoError{code: codeData, message: fmt.Sprintf(format, args...)}
}

// limits are what decodeClientMessage enforces.
type limits struct {
	maxPatterns int
}

// decodeClientMessage decodes and checks one text message, parsing a
// SUBSCRIBE's patterns. Every error says what is wrong.
func decodeClientMessage(data []byte, lim limits) (*clientMessage, *protoError) {
	obj, err := jsonio.DecodeObject(data, "the message", `with a "type" field`)
	if err != nil {
		// 22021 for text that is not UTF-8, 22000 for bad JSON or a key
		// given twice.
		if e, ok := engine.AsError(err); ok {
			return nil, &protoError{code: e.Code, message: e.Message}
		}
		return nil, dataError("%v", err)
	}
	m := &clientMessage{}
	if m.Type, err = stringField(obj, "type", true); err != nil {
		return nil, dataError("%v", err)
	}
	switch m.Type {
	case msgAuth:
		if m.Token, err = stringField(obj, "token", false); err != nil {
			return nil, dataError("%v", err)
		}
	case msgSubscribe:
		return m, decodeSubscribe(m, obj, lim)
	case msgUnsubscribe:
		id, err := stringField(obj, "subscription_id", false)
		if err == nil && id == "" {
			id, err = stringField(obj, "id", false)
		}
		if err != nil {
			return nil, dataError("%v", err)
		}
		if id == "" {
			return nil, dataError(`UNSUBSCRIBE needs the "subscription_id" SUBSCRIBED gave`)
		}
		m.ID = id
	case msgPing:
	default:
		return nil, dataError("unknown message type %q: the client sends AUTH, SUBSCRIBE, UNSUBSCRIBE or PING", clip(m.Type))
	}
	return m, nil
}

func decodeSubscribe(m *clientMessage, obj map[string]any, lim limits) *protoError {
	var err error
	if m.ID, err = stringField(obj, "id", false); err != nil {
		return dataError("%v", err)
	}
	if len(m.ID) > maxIDBytes {
		return dataError("a subscription id is limited to %d bytes", maxIDBytes)
	}
	if m.Graph, err = stringField(obj, "graph", false); err != nil {
		return dataError("%v", err)
	}
	if v, ok := obj["from_lsn"]; ok && v != nil {
		n, isNum := v.(json.Number)
		lsn, perr := strconv.ParseUint(string(n), 10, 64)
		if !isNum || perr != nil {
			return &protoError{code: codeData, message: `"from_lsn" must be a non-negative integer`, subID: m.ID}
		}
		m.FromLSN = lsn
	}
	if v, ok := obj["from"]; ok && v != nil {
		tok, isStr := v.(string)
		if !isStr {
			return &protoError{code: codeData, message: `"from" must be a change position (a string cdc.current() or a CHANGE's "position" gave)`, subID: m.ID}
		}
		pos, err := engine.ParseChangePosition(tok)
		if err != nil {
			pe := &protoError{code: codeData, message: err.Error(), subID: m.ID}
			if e, ok := engine.AsError(err); ok {
				pe.code, pe.message = e.Code, e.Message
			}
			return pe
		}
		m.From = &pos
	}
	raw, ok := obj["patterns"]
	list, isList := raw.([]any)
	switch {
	case !ok || raw == nil:
		return &protoError{code: codeData, message: `SUBSCRIBE needs "patterns": an array of pattern strings such as "(:Person)"`, subID: m.ID}
	case !isList:
		return &protoError{code: codeData, message: `"patterns" must be an array of strings`, subID: m.ID}
	case len(list) == 0:
		return &protoError{code: codeData, message: `"patterns" is empty: give at least one pattern ("(n)" selects every node)`, subID: m.ID}
	case len(list) > lim.maxPatterns:
		return &protoError{code: codeData, message: fmt.Sprintf("a subscription takes at most %d patterns, this one has %d", lim.maxPatterns, len(list)), subID: m.ID}
	}
	for i, el := range list {
		s, ok := el.(string)
		if !ok {
			return &protoError{code: codeData, message: fmt.Sprintf("pattern %d is not a string", i+1), subID: m.ID}
		}
		p, err := engine.ParseChangePattern(s)
		if err != nil {
			pe := &protoError{code: codeSyntax, message: fmt.Sprintf("pattern %d %q: %v", i+1, clip(s), err), subID: m.ID}
			if e, ok := engine.AsError(err); ok {
				pe.code, pe.position = e.Code, e.Position
				pe.message = fmt.Sprintf("pattern %d %q: %s", i+1, clip(s), e.Message)
			}
			return pe
		}
		m.Patterns = append(m.Patterns, s)
		m.Parsed = append(m.Parsed, p)
	}
	return nil
}

// stringField reads obj[name] as a string; "" when absent (an error when
// required).
func stringField(obj map[string]any, name string, required bool) (string, error) {
	v, ok := obj[name]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("the message has no %q field", name)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%q must be a string", name)
	}
	return s, nil
}

// clip shortens client text quoted back in an error.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// appendError writes an ERROR message.
func appendError(b []byte, e *protoError) []byte {
	b = append(b, `{"type":"ERROR","code":`...)
	b = jsonio.AppendString(b, e.code)
	b = append(b, `,"message":`...)
	b = jsonio.AppendString(b, e.message)
	if e.position != nil {
		b = append(b, `,"position":{"line":`...)
		b = strconv.AppendInt(b, int64(e.position.Line), 10)
		b = append(b, `,"column":`...)
		b = strconv.AppendInt(b, int64(e.position.Column), 10)
		b = append(b, '}')
	}
	if e.subID != "" {
		b = append(b, `,"subscription_id":`...)
		b = jsonio.AppendString(b, e.subID)
	}
	return append(b, '}')
}

// appendSimple writes {"type":typ} plus an optional subscription id.
func appendSimple(b []byte, typ, subID string) []byte {
	b = append(b, `{"type":`...)
	b = jsonio.AppendString(b, typ)
	if subID != "" {
		b = append(b, `,"subscription_id":`...)
		b = jsonio.AppendString(b, subID)
	}
	return append(b, '}')
}

// appendSubscribed writes SUBSCRIBED.
func appendSubscribed(b []byte, id string, patterns []string) []byte {
	b = append(b, `{"type":"SUBSCRIBED","subscription_id":`...)
	b = jsonio.AppendString(b, id)
	b = append(b, `,"patterns":[`...)
	for i, p := range patterns {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonio.AppendString(b, p)
	}
	return append(b, "]}"...)
}

// appendLagging writes LAGGING, the last message a slow client gets.
func appendLagging(b []byte, message, subID string) []byte {
	b = append(b, `{"type":"LAGGING","code":`...)
	b = jsonio.AppendString(b, engine.CodeConnection)
	b = append(b, `,"message":`...)
	b = jsonio.AppendString(b, message)
	if subID != "" {
		b = append(b, `,"subscription_id":`...)
		b = jsonio.AppendString(b, subID)
	}
	return append(b, '}')
}
