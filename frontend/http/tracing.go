package http

import (
	"bytes"
	"log/slog"
	"math/rand/v2"

	"github.com/valyala/fasthttp"
)

// Tracing (W3C Trace Context, docs/operations.md, Tracing). A request may
// carry a traceparent header, version-traceid-parentid-flags:
//
//	traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
//
// A valid one puts its trace id (and this request's span id) on every
// log line of the request's queries, and the response carries a
// traceparent of the same trace whose parent id is the server's span, so
// a client can find the server's lines. An invalid header is ignored, as
// the W3C recommendation says: never an error.

var hdrTraceparent = []byte("traceparent")

// traceKey keys a traced request's logger in the request's user values.
type traceKey struct{}

// trace is a valid traceparent's fields, in lowercase hex.
type trace struct {
	traceID string // 32 hex digits, not all zero
	sampled bool   // flags bit 0
}

// parseTraceparent validates a traceparent value: version 00 is exactly
// version-traceid-parentid-flags; a later version may add fields after
// a '-', which are ignored; version ff is invalid. Hex digits must be
// lowercase, and neither id may be all zeros.
func parseTraceparent(v []byte) (trace, bool) {
	v = bytes.Trim(v, " \t")
	if len(v) < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return trace{}, false
	}
	version := v[0:2]
	if !isLowerHex(version) || string(version) == "ff" {
		return trace{}, false
	}
	if string(version) == "00" && len(v) != 55 || len(v) > 55 && v[55] != '-' {
		return trace{}, false
	}
	traceID, parentID, flags := v[3:35], v[36:52], v[53:55]
	if !isLowerHex(traceID) || !isLowerHex(parentID) || !isLowerHex(flags) || allZero(traceID) || allZero(parentID) {
		return trace{}, false
	}
	return trace{traceID: string(traceID), sampled: hexValue(flags[1])&1 == 1}, true
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != '0' {
			return false
		}
	}
	return true
}

func hexValue(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}

// newSpanID is a random non-zero 64-bit id in 16 hex digits: the
// server's span, the parent id of the response's traceparent.
func newSpanID() string {
	const digits = "0123456789abcdef"
	var b [16]byte
	n := rand.Uint64() | 1 // never all zeros
	for i := 15; i >= 0; i-- {
		b[i] = digits[n&0xf]
		n >>= 4
	}
	return string(b[:])
}

// traceRequest reads the request's traceparent: a valid one is echoed
// with the server's span id and its ids go on the request's log lines.
func (s *Server) traceRequest(ctx *fasthttp.RequestCtx) {
	v := ctx.Request.Header.Peek("traceparent")
	if len(v) == 0 {
		return
	}
	t, ok := parseTraceparent(v)
	if !ok {
		return
	}
	span := newSpanID()
	flags := "00"
	if t.sampled {
		flags = "01"
	}
	// Canonical: written as the W3C spells it, not as "Traceparent".
	ctx.Response.Header.SetCanonical(hdrTraceparent, []byte("00-"+t.traceID+"-"+span+"-"+flags))
	ctx.SetUserValue(traceKey{}, s.log.With("trace_id", t.traceID, "span_id", span))
}

// requestLog is the logger of a request's lines: the server's, with the
// trace's ids when the request carries a valid traceparent.
func (s *Server) requestLog(ctx *fasthttp.RequestCtx) *slog.Logger {
	if l, ok := ctx.UserValue(traceKey{}).(*slog.Logger); ok {
		return l
	}
	return s.log
}
