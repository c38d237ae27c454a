package client

import "fmt"

// Error is an error the server answered with, on any protocol: the
// ISO/IEC 39075 status code (or "RATE_LIMIT_EXCEEDED"), its category
// where the protocol carries one, the server's message, and the position
// in the query text (1-based; 0 when the error has none).
type Error struct {
	// Status is the HTTP status of an HTTP answer, 0 on the wire protocol.
	Status   int
	Code     string
	Category string
	Message  string
	Line     int
	Column   int
	// RetryAfter is the seconds a rate-limited client waits before its
	// next request (429 answers only).
	RetryAfter int
}

func (e *Error) Error() string {
	s := e.Code
	if e.Category != "" {
		s += " " + e.Category
	}
	s += ": " + e.Message
	if e.Line > 0 {
		s += fmt.Sprintf(" (line %d, column %d)", e.Line, e.Column)
	}
	return s
}
