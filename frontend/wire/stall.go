package wire

import (
	"errors"
	"io"
	"net"
	"time"
)

// stallAfter is how long the server finds nothing more of a session's
// HELLO to read before it counts as waiting on the client (ceiling.go),
// its connection a candidate for eviction. A client that sent its HELLO
// whole is read at once and never waited on: the bytes are there. One
// that sends it a byte at a time, or only its first byte, is.
const stallAfter = 5 * time.Millisecond

// helloReader is a session's byte stream as the reader sees it: until
// the first line arrived, a read that finds nothing for stallAfter tells
// the session's greeter that the server now waits on the client, then
// goes on waiting. Only the reader goroutine uses it.
type helloReader struct {
	s *session
	// done is set once the first line arrived: reads pass straight
	// through; stalled once the server waits on the client.
	done, stalled bool
}

func (h *helloReader) Read(p []byte) (int, error) {
	t := h.s.t
	if h.done || h.stalled || t.setReadDeadline == nil || h.s.greet.sl == nil {
		return t.r.Read(p)
	}
	_ = t.setReadDeadline(time.Now().Add(stallAfter))
	n, err := t.r.Read(p)
	if n > 0 || !isTimeout(err) {
		return n, err
	}
	h.stalled = true
	h.s.greet.stall()
	select {
	case <-h.s.done:
		return 0, io.EOF // the session ended meanwhile
	default:
	}
	// The HELLO timeout ends the wait (its ERROR first: the loop's timer
	// comes before this deadline). Should the session's hang-up have set
	// an earlier one just now, this one still ends the read.
	_ = t.setReadDeadline(h.s.start.Add(h.s.srv.cfg.HelloTimeout + lingerTime))
	return t.r.Read(p)
}

// arrived marks the first line arrived whole: the session is answered,
// its later reads unbounded (the idle timeout is the loop's).
func (h *helloReader) arrived() {
	h.done = true
	if t := h.s.t; t.setReadDeadline != nil && h.s.greet.sl != nil {
		_ = t.setReadDeadline(time.Time{})
	}
	h.s.greet.arrive()
}

// isTimeout reports whether err is a read deadline's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
