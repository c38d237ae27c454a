package stream

import (
	"context"
	"errors"
	"fmt"

	"github.com/fasthttp/websocket"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// subscription moves one engine change feed's batches to its
// connection's queue as CHANGE messages.
type subscription struct {
	c    *conn
	id   string
	feed *engine.ChangeFeed
	// principal is the connection's at SUBSCRIBE (the connection's own
	// field changes on its goroutine): the row-level security check of
	// each batch reads it.
	principal *engine.Principal
	// db is the graph subscribed to.
	db   *engine.DB
	ctx  context.Context
	stop context.CancelFunc
	done chan struct{}
}

func newSubscription(c *conn, db *engine.DB, id string, feed *engine.ChangeFeed) *subscription {
	s := &subscription{c: c, db: db, id: id, feed: feed, principal: c.principal, done: make(chan struct{})}
	s.ctx, s.stop = context.WithCancel(c.ctx)
	return s
}

func (s *subscription) start() {
	s.c.s.subs.Add(1)
	go s.run()
}

// end stops the subscription and waits until it queues nothing more.
func (s *subscription) end() {
	s.stop()
	s.feed.Close()
	<-s.done
}

func (s *subscription) run() {
	defer close(s.done)
	defer s.c.s.subs.Add(-1)
	defer s.c.recoverPanic("subscription")
	var enc jsonio.Encoder
	for {
		b, err := s.feed.Next(s.ctx)
		switch {
		case err == nil:
		case s.ctx.Err() != nil:
			return // unsubscribed, or the connection ended
		case errors.Is(err, engine.ErrChangeFeedOverflow):
			s.c.lag(fmt.Sprintf("subscription %q fell more than %d changes behind the commits", clip(s.id), s.c.s.cfg.FeedBuffer), s.id)
			return
		case !errors.Is(err, engine.ErrChangeFeedClosed):
			// A resuming subscription whose history failed (the
			// retention passed its position meanwhile): it ends, the
			// connection goes on.
			pe := &protoError{code: codeUnavailable, message: err.Error(), subID: s.id}
			if e, ok := engine.AsError(err); ok {
				pe.code, pe.message = e.Code, e.Message
			}
			s.c.send(appendError(nil, pe))
			return
		default: // the database closed
			s.c.finish(&protoError{code: codeUnavailable, message: "the database closed: the change stream ends", subID: s.id}, websocket.CloseGoingAway)
			return
		}
		if err := s.db.ChangeFeedAllowed(s.principal); err != nil {
			// A row-level security policy the feed cannot apply now
			// applies to the principal.
			pe := &protoError{code: codeUnavailable, message: err.Error(), subID: s.id}
			if e, ok := engine.AsError(err); ok {
				pe.code, pe.message = e.Code, e.Message
			}
			s.c.send(appendError(nil, pe))
			return
		}
		if b.Bulk != nil {
			s.c.send(appendBulk(nil, s.id, &b))
			continue
		}
		for i := range b.Changes {
			if s.ctx.Err() != nil {
				return
			}
			s.c.send(appendChange(nil, &enc, s.id, &b, i))
		}
	}
}
