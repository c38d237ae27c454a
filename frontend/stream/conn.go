package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/quiverdb/quiver/engine"
)

// A connection runs three kinds of goroutine:
//
//	reader (the hijacked handler)  client messages → replies, subscriptions
//	writer                         outgoing queue → socket; pings
//	one per subscription           engine feed → CHANGE messages → queue
//
// Everything sent goes through the queue, which is bounded in messages
// and bytes and never waited on: a client that does not keep up makes a
// push fail, and the queue is replaced by one LAGGING message and a close.
// Writes have a deadline, so a client that reads nothing at all is gone
// after WriteTimeout; one that answers nothing (no pong) after two ping
// intervals.
type conn struct {
	s   *Server
	ws  *websocket.Conn
	out outQueue
	ctx context.Context
	// stop ends the connection's goroutines (subscriptions, writer).
	stop      context.CancelFunc
	closeOnce sync.Once
	// The reader alone changes subs; serve reads it once the reader and
	// the writer are done.
	subs   map[string]*subscription
	nextID int
	authed bool
	// principal is who AUTH authenticated; nil with authentication off.
	principal *engine.Principal
}

// serve runs the protocol on ws until it ends.
func (s *Server) serve(ws *websocket.Conn) {
	c := &conn{s: s, ws: ws, subs: map[string]*subscription{}}
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.out.init(s.cfg.QueueMessages, s.cfg.QueueBytes)
	if !s.track(c) {
		closeNow(ws, websocket.CloseGoingAway, "the server is shutting down", s.cfg.WriteTimeout)
		return
	}
	defer s.untrack(c)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		defer c.recoverPanic("writer")
		c.writeLoop()
	}()
	func() {
		defer c.recoverPanic("reader")
		c.readLoop()
	}()
	<-writerDone
	c.shutdown(websocket.CloseNormalClosure, "")
	for _, sub := range c.subs {
		sub.end()
	}
}

// readLoop reads client messages until the connection ends or the
// protocol closes it.
func (c *conn) readLoop() {
	cfg := &c.s.cfg
	_ = c.ws.SetReadDeadline(time.Now().Add(cfg.AuthTimeout))
	idle := 2 * cfg.PingInterval
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(idle)) })
	for {
		mt, r, err := c.ws.NextReader()
		if err != nil {
			if !c.authed && isTimeout(err) {
				c.auditRefused("no stream AUTH in time")
				c.finish(&protoError{code: codeAuth, message: fmt.Sprintf("no AUTH message within %v of connecting", cfg.AuthTimeout)},
					websocket.ClosePolicyViolation)
				return
			}
			c.shutdown(websocket.CloseNormalClosure, "") // the client went away, or timed out
			return
		}
		data, err := io.ReadAll(io.LimitReader(r, int64(cfg.MaxMessageBytes)+1))
		if err != nil {
			c.shutdown(websocket.CloseProtocolError, "")
			return
		}
		if c.authed {
			_ = c.ws.SetReadDeadline(time.Now().Add(idle))
		}
		if len(data) > cfg.MaxMessageBytes {
			c.finish(dataError("a message is limited to %d bytes", cfg.MaxMessageBytes), websocket.CloseMessageTooBig)
			return
		}
		var perr *protoError
		var m *clientMessage
		if mt != websocket.TextMessage {
			perr = dataError("binary messages are not accepted: send JSON text messages")
		} else {
			m, perr = decodeClientMessage(data, limits{maxPatterns: cfg.MaxPatterns})
		}
		if perr == nil && !c.authed && m.Type != msgAuth {
			perr = &protoError{code: codeAuth, message: "the first message must be AUTH"}
		}
		if perr != nil {
			if !c.authed {
				if perr.code != codeAuth {
					perr.message = "the first message must be AUTH: " + perr.message
				}
				c.auditRefused("the first stream message was not a valid AUTH")
				c.finish(perr, websocket.ClosePolicyViolation)
				return
			}
			c.send(appendError(nil, perr))
			continue
		}
		if !c.handle(m) {
			return
		}
	}
}

// handle answers one message; false when the connection is closing.
func (c *conn) handle(m *clientMessage) bool {
	switch m.Type {
	case msgAuth:
		if c.authed {
			c.send(appendError(nil, dataError("already authenticated")))
			return true
		}
		if err := c.authenticate(m.Token); err != nil {
			c.finish(&protoError{code: codeAuth, message: err.Error()}, websocket.ClosePolicyViolation)
			return false
		}
		c.authed = true
		_ = c.ws.SetReadDeadline(time.Now().Add(2 * c.s.cfg.PingInterval))
		c.send(appendSimple(nil, msgAuthOK, ""))
	case msgSubscribe:
		if !c.authorize() {
			return false
		}
		if c.mayRead(m.ID) {
			c.subscribe(m)
		}
	case msgUnsubscribe:
		sub, ok := c.subs[m.ID]
		if !ok {
			c.send(appendError(nil, &protoError{code: codeNotFound, message: fmt.Sprintf("no subscription %q on this connection", clip(m.ID)), subID: m.ID}))
			return true
		}
		delete(c.subs, m.ID)
		sub.end() // no CHANGE of it follows UNSUBSCRIBED
		c.send(appendSimple(nil, msgUnsubscribed, m.ID))
	case msgPing:
		c.send(appendSimple(nil, msgPong, ""))
	}
	return true
}

func (c *conn) subscribe(m *clientMessage) {
	cfg := &c.s.cfg
	if len(c.subs) >= cfg.MaxSubscriptions {
		c.send(appendError(nil, &protoError{code: codeTooMany, subID: m.ID,
			message: fmt.Sprintf("a connection holds at most %d subscriptions: UNSUBSCRIBE one first", cfg.MaxSubscriptions)}))
		return
	}
	id := m.ID
	if id == "" {
		for {
			c.nextID++
			id = fmt.Sprintf("s%d", c.nextID)
			if _, taken := c.subs[id]; !taken {
				break
			}
		}
	} else if _, taken := c.subs[id]; taken {
		c.send(appendError(nil, &protoError{code: codeExists, subID: id, message: fmt.Sprintf("subscription %q exists on this connection", clip(id))}))
		return
	}
	db := c.s.db
	var err error
	if m.Graph != "" {
		ctx := context.Background()
		if c.principal != nil {
			ctx = engine.WithPrincipal(ctx, c.principal)
		}
		db, _, err = db.Graph(ctx, m.Graph)
	}
	if err == nil {
		err = db.ChangeFeedAllowed(c.principal)
	}
	var feed *engine.ChangeFeed
	if err == nil {
		feed, err = db.SubscribeChanges(engine.SubscribeOptions{Patterns: m.Parsed, Buffer: cfg.FeedBuffer, FromLSN: m.FromLSN, From: m.From,
			Restrict: db.RestrictChanges(c.principal)})
	}
	if err != nil {
		pe := &protoError{code: codeUnavailable, message: err.Error(), subID: id}
		if e, ok := engine.AsError(err); ok {
			pe.code, pe.message = e.Code, e.Message
		}
		c.send(appendError(nil, pe))
		return
	}
	sub := newSubscription(c, db, id, feed)
	c.subs[id] = sub
	c.send(appendSubscribed(nil, id, m.Patterns)) // queued before any CHANGE of it
	sub.start()
}

// send queues a message; a full queue makes the client a laggard.
func (c *conn) send(msg []byte) {
	if err := c.out.push(msg); errors.Is(err, errQueueFull) {
		c.lag(fmt.Sprintf("the client reads too slowly: more than %d messages or %d bytes were waiting for it", c.s.cfg.QueueMessages, c.s.cfg.QueueBytes), "")
	}
}

// lag replaces whatever is queued by LAGGING and a close.
func (c *conn) lag(message, subID string) {
	if c.out.final(appendLagging(nil, message, subID), websocket.CloseTryAgainLater, "lagging", true) {
		c.s.lagged.Add(1)
	}
}

// finish sends e after what is queued, then closes the connection.
func (c *conn) finish(e *protoError, code int) {
	c.out.final(appendError(nil, e), code, clip(e.message), false)
}

// shutdown ends the connection now: subscriptions, writer, socket.
func (c *conn) shutdown(code int, text string) {
	c.closeOnce.Do(func() {
		c.stop()
		c.out.close()
		closeNow(c.ws, code, text, time.Second)
	})
}

// writeLoop writes queued messages and pings until the queue closes.
func (c *conn) writeLoop() {
	cfg := &c.s.cfg
	ping := time.NewTicker(cfg.PingInterval)
	defer ping.Stop()
	var batch [][]byte
	for {
		select {
		case <-c.out.ready:
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(cfg.WriteTimeout)); err != nil {
				c.shutdown(websocket.CloseGoingAway, "")
				return
			}
			continue
		case <-c.ctx.Done():
			return
		}
		var fin *closing
		batch, fin = c.out.take(batch[:0])
		for i, msg := range batch {
			batch[i] = nil
			_ = c.ws.SetWriteDeadline(time.Now().Add(cfg.WriteTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				c.shutdown(websocket.CloseGoingAway, "")
				return
			}
			if isChange(msg) {
				c.s.delivered.Add(1)
			}
		}
		if fin != nil {
			c.shutdown(fin.code, fin.text)
			return
		}
	}
}

// recoverPanic turns a panic of one of the connection's goroutines into
// a logged stack and a closed connection: a bug must not take the server
// down (fasthttp's handler recovery does not cover hijacked connections).
func (c *conn) recoverPanic(where string) {
	if p := recover(); p != nil {
		c.s.log.Error("BUG: panic in the change stream", "goroutine", where, "panic", p, "stack", string(debug.Stack()))
		c.shutdown(websocket.CloseInternalServerErr, "internal error")
	}
}

func isChange(msg []byte) bool {
	const p = `{"type":"CHANGE"`
	return len(msg) >= len(p) && string(msg[:len(p)]) == p
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}
