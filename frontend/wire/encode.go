package wire

import (
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// The server's messages, written by hand into the session's output
// buffer, one line each.

// appendWelcome writes the answer to HELLO.
func appendWelcome(b []byte, server, sessionID string, maxQuery int) []byte {
	b = append(b, `{"type":"WELCOME","version":`...)
	b = jsonio.AppendString(b, ProtocolVersion)
	b = append(b, `,"server":`...)
	b = jsonio.AppendString(b, server)
	b = append(b, `,"session_id":`...)
	b = jsonio.AppendString(b, sessionID)
	b = append(b, `,"capabilities":{"max_query_size":`...)
	b = jsonio.AppendInt(b, int64(maxQuery))
	b = append(b, `,"supported_isolation_levels":[`...)
	for i, l := range engine.IsolationLevels() {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonio.AppendString(b, l)
	}
	return append(b, "]}}\n"...)
}

// appendError writes an ERROR.
func appendError(b []byte, e *wireError) []byte {
	b = append(b, `{"type":"ERROR","code":`...)
	b = jsonio.AppendString(b, e.code)
	b = append(b, `,"category":`...)
	b = jsonio.AppendString(b, e.category)
	b = append(b, `,"message":`...)
	b = jsonio.AppendString(b, jsonio.CutMessage(e.message))
	if e.position != nil {
		b = append(b, `,"position":{"line":`...)
		b = jsonio.AppendInt(b, int64(e.position.Line))
		b = append(b, `,"column":`...)
		b = jsonio.AppendInt(b, int64(e.position.Column))
		b = append(b, '}')
	}
	if e.retryAfter > 0 {
		b = append(b, `,"retry_after":`...)
		b = jsonio.AppendInt(b, e.retryAfter)
	}
	if e.leader != nil {
		b = appendLeader(b, e.leader)
	}
	return append(b, "}\n"...)
}

// successFields are the optional parts of a SUCCESS.
type successFields struct {
	txID      string // transaction_id
	committed bool   // summary.committed
	bookmark  uint64 // a cluster member's bookmark (0: none)
}

// appendSuccess writes a SUCCESS with no result summary: PING, BEGIN,
// COMMIT, ROLLBACK.
func appendSuccess(b []byte, f successFields) []byte {
	b = append(b, `{"type":"SUCCESS"`...)
	if f.committed {
		b = append(b, `,"summary":{"committed":true}`...)
	}
	if f.txID != "" {
		b = append(b, `,"transaction_id":`...)
		b = jsonio.AppendString(b, f.txID)
	}
	b = appendBookmark(b, f.bookmark)
	return append(b, "}\n"...)
}

// resultSummary is what the SUCCESS ending a result reports.
type resultSummary struct {
	rows      int64 // rows sent
	elapsed   time.Duration
	sum       engine.Summary
	stats     bool // options.include_stats
	discarded bool
	txID      string
	bookmark  uint64 // a cluster member's bookmark (0: none)
}

// appendResultSuccess writes the SUCCESS that ends a result: rows and
// time_ms always; the counts of a write's side effects when it wrote;
// the engine's work (nodes_scanned, index_hits, memory_peak_bytes) when
// the client asked for stats.
func appendResultSuccess(b []byte, r resultSummary) []byte {
	b = append(b, `{"type":"SUCCESS","summary":{"rows":`...)
	b = jsonio.AppendInt(b, r.rows)
	b = append(b, `,"time_ms":`...)
	b = jsonio.AppendFloat(b, jsonio.Millis(r.elapsed))
	s := r.sum
	b = jsonio.AppendWriteCounts(b, s)
	if r.stats {
		b = append(b, `,"nodes_scanned":`...)
		b = jsonio.AppendInt(b, s.RowsScanned)
		b = append(b, `,"index_hits":`...)
		b = jsonio.AppendInt(b, s.IndexHits)
		b = append(b, `,"memory_peak_bytes":`...)
		b = jsonio.AppendInt(b, s.MemoryPeak)
	}
	if r.discarded {
		b = append(b, `,"discarded":true`...)
	}
	b = append(b, '}')
	if r.txID != "" {
		b = append(b, `,"transaction_id":`...)
		b = jsonio.AppendString(b, r.txID)
	}
	b = appendBookmark(b, r.bookmark)
	return append(b, "}\n"...)
}

// appendSchema writes a SCHEMA and returns the row keys (each column's
// name as a JSON string and ':') that BINDINGS rows use.
func appendSchema(b []byte, cols []engine.Column) ([]byte, [][]byte) {
	b = append(b, `{"type":"SCHEMA","fields":[`...)
	b, keys := jsonio.AppendFields(b, cols)
	return append(b, "]}\n"...), keys
}

// appendExplain writes an EXPLAIN: the HTTP API's plan body with the
// message type first.
func appendExplain(b []byte, ex *engine.Explanation) []byte {
	return appendTyped(b, "EXPLAIN", jsonio.AppendExplain(nil, ex))
}

// appendProfile writes a PROFILE: the HTTP API's "profile" object with
// the message type first.
func appendProfile(b []byte, p *engine.Profile) []byte {
	return appendTyped(b, "PROFILE", jsonio.AppendProfile(nil, p))
}

// appendTyped writes the JSON object obj (never empty) as a message of
// type typ: {"type":typ, …obj's fields}.
func appendTyped(b []byte, typ string, obj []byte) []byte {
	b = append(b, `{"type":"`+typ+`",`...)
	b = append(b, obj[1:]...)
	return append(b, '\n')
}
