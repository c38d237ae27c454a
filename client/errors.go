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
	// LeaderID and LeaderAddress name a cluster's leader in a 25006
	// (CodeNotLeader) error: a write sent to a member that does not
	// lead. LeaderAddress is its HTTP base URL over HTTP, its wire
	// address (host:port) on the wire protocol; empty when unknown.
	LeaderID, LeaderAddress string
}

// CodeNotLeader is the code of a write sent to a member of a cluster
// that does not lead (docs/replication.md, "Where writes go").
const CodeNotLeader = "25006"

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
