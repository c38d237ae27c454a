package wire

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/quiverdb/quiver/engine"
)

// A session is one client's conversation: its engine session (SET
// statements last for the session, within the operator's limits), its
// open transaction, and the order of messages (HELLO first). Two
// goroutines serve it: the reader decodes lines and hands them over one
// at a time (so at most one decoded message waits), and the session
// loop answers them in order. Only the loop writes.
type session struct {
	srv    *Server
	t      transport
	id     string
	es     *engine.Session
	start  time.Time
	ctx    context.Context // ends with the connection: cancels the running query
	cancel context.CancelCauseFunc
	in     chan input    // the reader's messages; closed when it stops
	done   chan struct{} // closed when the session ends: stops the reader
	read   chan struct{} // closed when the reader has returned
	out    []byte        // messages not yet written, whole lines only
	werr   error         // the first write error: the session ends
	// closing ends the session once the message being answered is.
	closing  bool
	welcomed bool
	// principal is who the session authenticated as; nil with
	// authentication off (auth.go).
	principal *engine.Principal
	txn       *engine.Transaction
	// pending is a message that arrived while a result waited for PULL;
	// it is answered next.
	pending *input
	// greet tells the connection ceiling whether the server is waiting
	// on the session for its HELLO (ceiling.go, stall.go).
	greet greeter
}

// input is one line from the client: a message, or why it is not one.
type input struct {
	msg *message
	err *wireError
}

// transport is a session's byte stream: a TCP connection or a QUIC
// stream.
type transport struct {
	r io.Reader
	w io.Writer
	// setWriteDeadline bounds the next writes; setReadDeadline the next
	// reads (nil: reads cannot be bounded, in tests).
	setWriteDeadline func(time.Time) error
	setReadDeadline  func(time.Time) error
	// hangUp ends the server's sending and makes reads end within d: the
	// client reads the last messages before the connection goes (closing
	// a TCP socket with unread data resets it, losing them).
	hangUp func(d time.Duration)
	close  func()
	remote net.Addr
}

// lingerTime is how long a closing session still reads (and drops) what
// the client sends, so that its last ERROR is not lost to a reset.
const lingerTime = time.Second

// flushBytes is how much output the loop gathers before writing.
const flushBytes = 64 << 10

// errClientGone is the cause a query is cancelled with when its client
// closed the connection.
var errClientGone = errors.New("the client closed its connection")

// errShutdown ends sessions when the server shuts down.
var errShutdown = &engine.Error{Code: engine.CodeUnavailable, Category: engine.CatUnavailable, Message: "the server is shutting down"}

// newSession makes t's session; sl is its connection's slot, which
// counted the session as awaited (nil: no ceiling).
func newSession(srv *Server, t transport, sl *slot) *session {
	s := &session{srv: srv, t: t, greet: greeter{sl: sl, counted: true}, id: uuid.NewString(), es: srv.db.NewSession(), start: time.Now(),
		in: make(chan input), done: make(chan struct{}), read: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	return s
}

// serve runs the session until the client leaves, a fatal error, a
// timeout or the server's shutdown. A panic ends the session, never the
// server.
func (s *session) serve() {
	defer s.end()
	defer func() {
		if p := recover(); p != nil {
			s.srv.log.Error("wire session panicked", "panic", p, "session_id", s.id, "stack", string(debug.Stack()))
			s.out = s.out[:wholeLines(s.out)]
			s.sendError(&wireError{code: engine.CodeTransaction, category: engine.CatTransaction, message: "internal error", fatal: true})
			s.flush()
		}
	}()
	go s.readLoop()
	for !s.closing && s.werr == nil {
		in, ok := s.next()
		if !ok {
			break
		}
		s.handle(in)
		s.flush()
	}
	s.flush()
}

// wholeLines is the length of b's complete lines.
func wholeLines(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// end releases the session: the running query is cancelled, the open
// transaction rolled back, the stream closed.
func (s *session) end() {
	close(s.done)
	s.cancel(errClientGone)
	if s.txn != nil {
		if _, err := s.txn.Rollback(); err == nil {
			s.srv.log.Debug("rolled back the transaction of a closed wire session", "transaction_id", s.txn.ID(), "session_id", s.id)
		}
		s.txn = nil
	}
	s.t.hangUp(lingerTime)
	<-s.read
	s.greet.leave()
	s.t.close()
}

// readLoop reads the client's lines and hands them to the loop. The end
// of the input (EOF or an error) cancels the running query: the client
// is gone.
func (s *session) readLoop() {
	defer close(s.read)
	defer close(s.in)
	hr := &helloReader{s: s}
	lr := newLineReader(hr, s.srv.cfg.maxLine())
	for {
		line, err := lr.next()
		if !hr.done && (err == nil || errors.Is(err, errLineTooLong)) {
			hr.arrived()
		}
		var in input
		switch {
		case errors.Is(err, errLineTooLong):
			in.err = &wireError{code: engine.CodeData, category: engine.CatData, fatal: true,
				message: "a message line is longer than the limit of " + strconv.Itoa(s.srv.cfg.maxLine()) + " bytes (max_query_size + 64 KiB); the connection is closed"}
		case err != nil:
			s.cancel(errClientGone)
			return
		default:
			in.msg, in.err = decodeMessage(line, s.srv.cfg.MaxQuerySize)
		}
		select {
		case s.in <- in:
		case <-s.done:
			return
		}
		if in.err != nil && in.err.fatal {
			// The rest of the line cannot be framed: drop what comes
			// until the session's hang-up ends the reads.
			_, _ = io.Copy(io.Discard, s.t.r)
			return
		}
	}
}

// waitEnd is why a wait for the client's next message ended.
type waitEnd uint8

const (
	gotMessage waitEnd = iota
	inputClosed
	timedOut
	shuttingDown
	queryEnded
)

// wait waits for the client's next message, at most the HELLO timeout
// (before HELLO) or the idle timeout, and while qctx (a paused query's
// context, or Background) lasts.
func (s *session) wait(qctx context.Context) (input, waitEnd) {
	if p := s.pending; p != nil {
		s.pending = nil
		return *p, gotMessage
	}
	d := s.srv.cfg.IdleTimeout
	if !s.welcomed {
		d = time.Until(s.start.Add(s.srv.cfg.HelloTimeout))
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	qdone := qctx.Done() // nil for Background: never ready
	select {
	case in, ok := <-s.in:
		if !ok {
			return input{}, inputClosed
		}
		return in, gotMessage
	case <-timer.C:
		return input{}, timedOut
	case <-s.srv.quit:
		return input{}, shuttingDown
	case <-qdone:
		return input{}, queryEnded
	}
}

// next returns the next message to answer; false ends the session (after
// the ERROR saying why, when there is one to say).
func (s *session) next() (input, bool) {
	in, why := s.wait(context.Background())
	if why == gotMessage {
		return in, true
	}
	if e := s.waitError(why); e != nil {
		s.sendError(e)
	}
	return input{}, false
}

// waitError is the ERROR that ends a session whose wait ended for why
// (nil when the client is gone).
func (s *session) waitError(why waitEnd) *wireError {
	switch why {
	case timedOut:
		if !s.welcomed {
			return protocolError(true, "no HELLO within %s of the connection; the connection is closed", s.srv.cfg.HelloTimeout)
		}
		return protocolError(true, "the session was idle for %s; the connection is closed", s.srv.cfg.IdleTimeout)
	case shuttingDown:
		return &wireError{code: errShutdown.Code, category: errShutdown.Category, message: errShutdown.Message, fatal: true}
	}
	return nil
}

// handle answers one message.
func (s *session) handle(in input) {
	if in.err != nil {
		e := *in.err // the reader's; it reads fatal too
		if !s.welcomed {
			e.fatal = true // not a client of this protocol
		}
		s.sendError(&e)
		return
	}
	m := in.msg
	if !s.welcomed && m.typ != mHello {
		s.sendError(protocolError(true, "the first message must be HELLO, not %s; the connection is closed", m.name))
		return
	}
	switch m.typ {
	case mHello:
		s.hello(m)
	case mRun:
		if s.authorize() {
			s.runGQL(m)
		}
	case mPull, mDiscard:
		s.sendError(protocolError(false, "%s: no result is waiting for PULL or DISCARD", m.name))
	case mBegin:
		if s.authorize() {
			s.begin(m)
		}
	case mCommit:
		s.commit(m)
	case mRollback:
		s.rollback(m)
	case mPing:
		s.out = appendSuccess(s.out, successFields{})
	}
}

// hello answers HELLO with WELCOME: any 1.x client speaks this version.
func (s *session) hello(m *message) {
	if s.welcomed {
		s.sendError(protocolError(false, "HELLO: the session has already begun (session_id %s)", s.id))
		return
	}
	if m.version != "1" && !strings.HasPrefix(m.version, "1.") {
		s.sendError(protocolError(true, "protocol version %q is not supported: this server speaks %s; the connection is closed", cut(m.version), ProtocolVersion))
		return
	}
	if !s.authenticate(m) {
		return
	}
	s.welcomed = true
	s.greet.welcome()
	s.out = appendWelcome(s.out, s.srv.cfg.Version, s.id, s.srv.cfg.MaxQuerySize)
}

// reportQuery logs a RUN_GQL that started at start and ended with e (nil:
// it succeeded) at debug level: the line the HTTP API logs per query
// (message "query", duration, outcome ok, error or client_gone, and the
// error's code), with the session's id where HTTP has the trace's. At
// info and above it costs nothing.
func (s *session) reportQuery(start time.Time, e *wireError) {
	if !s.srv.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	outcome, code := "ok", ""
	switch {
	case errors.Is(context.Cause(s.ctx), errClientGone):
		outcome = "client_gone"
	case e != nil:
		outcome, code = "error", e.code
	}
	s.srv.log.Debug("query", "duration", time.Since(start), "outcome", outcome, "code", code, "session_id", s.id)
}

// sendError queues an ERROR; a fatal one ends the session after it.
func (s *session) sendError(e *wireError) {
	s.out = appendError(s.out, e)
	if e.fatal {
		s.closing = true
	}
}

// flush writes the queued messages. A client that does not read for
// WriteTimeout loses its session.
func (s *session) flush() {
	if len(s.out) == 0 || s.werr != nil {
		s.out = s.out[:0]
		return
	}
	_ = s.t.setWriteDeadline(time.Now().Add(s.srv.cfg.WriteTimeout))
	if _, err := s.t.w.Write(s.out); err != nil {
		s.werr = err
		s.cancel(errClientGone)
	}
	if cap(s.out) > 4*flushBytes {
		s.out = nil // one huge row does not stay pinned
	} else {
		s.out = s.out[:0]
	}
}

// remoteHost names the client for the engine's per-client transaction
// limit: its IP address.
func (s *session) remoteHost() string {
	switch a := s.t.remote.(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UDPAddr:
		return a.IP.String()
	case nil:
		return ""
	}
	return s.t.remote.String()
}
