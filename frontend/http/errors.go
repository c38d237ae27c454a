package http

import (
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// apiError is an error on its way to the client: an HTTP status and the
// spec's error body.
type apiError struct {
	status     int
	code       string
	category   string
	message    string
	position   *engine.Position
	suggestion string
	query      string
	// index is the failing statement's position in a batch
	// (details.index), written when batchIndex is set.
	index      int
	batchIndex bool
	// retryAfter is a 429's error.retry_after in seconds (ratelimit.go).
	retryAfter int64
	// leaderID and leaderURL name the leader in a 25006's
	// details.leader (cluster.go), null when not known.
	leaderID, leaderURL string
}

// statusOf maps an ISO/IEC 39075 status code to an HTTP status by class.
// This is the only place that mapping lives.
func statusOf(code string) int {
	switch {
	case code == engine.CodeTimeout:
		return 408
	case code == engine.CodeAuth:
		return 401
	case code == engine.CodePermission:
		return 403
	case code == engine.CodeNotFound:
		return 404
	case code == engine.CodeSerialization:
		return 409 // a serialization failure: retry the transaction
	case code == engine.CodeUnavailable:
		return 503
	case code == engine.CodeNotLeader:
		// A write on a member of a cluster that does not lead
		// (cluster.go): the leader takes it, or will once elected.
		return 503
	case code == engine.CodeOutOfMemory:
		// The query needs more memory than max_memory_per_query allows.
		// Not 503: the spec tells clients to retry a 503 with backoff,
		// and the same query under the same limit fails again. 507
		// (Insufficient Storage: the server cannot store what it needs
		// to complete the request) names the condition; it is a 5xx
		// because the request is valid and the limit is the server's.
		return 507
	case code == engine.CodeDiskFull:
		// The disk holding the data directory is full: 507 Insufficient
		// Storage says it literally, and, as for 53200, a retry with
		// backoff does not help until an operator frees space.
		return 507
	case len(code) >= 2 && code[:2] == "53":
		return 503 // resources exhausted: try again later
	case len(code) >= 2 && code[:2] == "23":
		return 409
	case len(code) >= 2 && (code[:2] == "42" || code[:2] == "22" || code[:2] == "0A" || code[:2] == "21"):
		return 400
	}
	return 500
}

// fromEngine converts an engine error for the client. Errors that are not
// engine errors are internal: the client gets a generic 500 and the real
// message goes to the log.
func fromEngine(err error, query string) (*apiError, bool) {
	e, ok := engine.AsError(err)
	if !ok {
		return &apiError{status: 500, code: engine.CodeTransaction, category: engine.CatTransaction, message: "internal error"}, false
	}
	return &apiError{status: statusOf(e.Code), code: e.Code, category: e.Category, message: e.Message,
		position: e.Position, suggestion: e.Suggestion, query: query}, true
}

func badRequest(format string) *apiError {
	return &apiError{status: 400, code: engine.CodeData, category: engine.CatData, message: format}
}

// appendError writes the spec's error body.
func appendError(b []byte, e *apiError) []byte {
	b = append(b, `{"error":`...)
	return append(appendErrorObject(b, e), '}')
}

// appendErrorObject writes the object under "error": code, category,
// message and the details that apply.
func appendErrorObject(b []byte, e *apiError) []byte {
	b = append(b, `{"code":`...)
	b = jsonio.AppendString(b, e.code)
	if e.category != "" { // the spec's 429 has none
		b = append(b, `,"category":`...)
		b = jsonio.AppendString(b, e.category)
	}
	b = append(b, `,"message":`...)
	b = jsonio.AppendString(b, jsonio.CutMessage(e.message))
	if e.retryAfter > 0 {
		b = append(b, `,"retry_after":`...)
		b = jsonio.AppendInt(b, e.retryAfter)
	}
	query := queryWindow(e.query, e.position)
	leader := e.code == engine.CodeNotLeader
	if e.position != nil || e.suggestion != "" || query != "" || e.batchIndex || leader {
		b = append(b, `,"details":{`...)
		sep := ""
		if e.batchIndex {
			b = append(b, `"index":`...)
			b = jsonio.AppendInt(b, int64(e.index))
			sep = ","
		}
		if query != "" {
			b = append(b, sep...)
			b = append(b, `"query":`...)
			b = jsonio.AppendString(b, query)
			sep = ","
		}
		if e.position != nil {
			b = append(b, sep+`"position":{"line":`...)
			b = jsonio.AppendInt(b, int64(e.position.Line))
			b = append(b, `,"column":`...)
			b = jsonio.AppendInt(b, int64(e.position.Column))
			b = append(b, '}')
			sep = ","
		}
		if e.suggestion != "" {
			b = append(b, sep+`"suggestion":`...)
			b = jsonio.AppendString(b, e.suggestion)
			sep = ","
		}
		if leader {
			b = append(b, sep+`"leader":{"id":`...)
			b = appendNullable(b, e.leaderID)
			b = append(b, `,"url":`...)
			b = appendNullable(b, e.leaderURL)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// queryWindowChars is how many characters of the query details.query
// shows on each side of the error's position (or from the start when
// there is none): an error must not echo a query of megabytes back.
const queryWindowChars = 100

// queryWindow cuts the query to queryWindowChars characters around the
// position's line and column, marking cut ends with "…".
func queryWindow(q string, pos *engine.Position) string {
	runes := []rune(q)
	at := 0
	if pos != nil {
		line := 1
		for i, r := range runes {
			if line == pos.Line {
				at = min(i+pos.Column-1, len(runes))
				break
			}
			if r == '\n' {
				line++
			}
		}
	}
	from, to := max(at-queryWindowChars, 0), min(at+queryWindowChars, len(runes))
	if pos == nil {
		from, to = 0, min(2*queryWindowChars, len(runes))
	}
	out := string(runes[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(runes) {
		out += "…"
	}
	return out
}

// appendNullable writes s, or null when it is empty.
func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonio.AppendString(b, s)
}
