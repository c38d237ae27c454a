package stream

import "sync"

// outQueue is a connection's outgoing messages: bounded in messages and
// bytes, never waited on by its producers (the reader and the
// subscriptions); the writer drains it.
type outQueue struct {
	maxMsgs, maxBytes int
	// ready is signalled when messages or the final close are queued.
	ready chan struct{}
	// mu guards the queue.
	mu struct {
		sync.Mutex
		msgs   [][]byte
		bytes  int
		fin    *closing // set: write what is queued, then close
		closed bool     // nothing more is queued or written
	}
}

// closing is the close frame that ends a connection after its queue.
type closing struct {
	code int
	text string
}

func (q *outQueue) init(maxMsgs, maxBytes int) {
	q.maxMsgs, q.maxBytes = maxMsgs, maxBytes
	q.ready = make(chan struct{}, 1)
}

// push queues msg; errQueueFull when the bounds are reached (the caller
// then ends the connection). After the final message, pushes are dropped.
func (q *outQueue) push(msg []byte) error {
	q.mu.Lock()
	switch {
	case q.mu.closed || q.mu.fin != nil:
		q.mu.Unlock()
		return nil
	case len(q.mu.msgs) >= q.maxMsgs || q.mu.bytes+len(msg) > q.maxBytes:
		q.mu.Unlock()
		return errQueueFull
	}
	q.mu.msgs = append(q.mu.msgs, msg)
	q.mu.bytes += len(msg)
	q.mu.Unlock()
	q.signal()
	return nil
}

// final queues the last message and the close after it; dropQueued
// discards what was waiting first (a laggard gets LAGGING at once). False
// when the queue was already finishing.
func (q *outQueue) final(msg []byte, code int, text string, dropQueued bool) bool {
	q.mu.Lock()
	if q.mu.closed || q.mu.fin != nil {
		q.mu.Unlock()
		return false
	}
	if dropQueued {
		clear(q.mu.msgs)
		q.mu.msgs, q.mu.bytes = q.mu.msgs[:0], 0
	}
	q.mu.msgs = append(q.mu.msgs, msg)
	q.mu.bytes += len(msg)
	q.mu.fin = &closing{code: code, text: text}
	q.mu.Unlock()
	q.signal()
	return true
}

// take moves the queued messages to dst; fin is set when the connection
// closes after them.
func (q *outQueue) take(dst [][]byte) (_ [][]byte, fin *closing) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.mu.closed {
		return dst, nil
	}
	dst = append(dst, q.mu.msgs...)
	clear(q.mu.msgs)
	q.mu.msgs, q.mu.bytes = q.mu.msgs[:0], 0
	return dst, q.mu.fin
}

// close drops everything: the connection is gone.
func (q *outQueue) close() {
	q.mu.Lock()
	q.mu.closed = true
	clear(q.mu.msgs)
	q.mu.msgs, q.mu.bytes = nil, 0
	q.mu.Unlock()
}

func (q *outQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}
