package http

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// errClientGone is the cause a query is cancelled with when its client
// closed the connection: nobody is left to read its answer.
var errClientGone = errors.New("the client closed its connection")

// clientWatchInterval is how often a running query's connection is
// polled: a client that goes away stops its query within about this.
const clientWatchInterval = 20 * time.Millisecond

// clientWatch polls a running query's connection with a timer rather
// than a goroutine of its own: most queries end before the first poll,
// and then the watch cost a timer, not a goroutine to start and a
// hand-off to wait for at the end.
type clientWatch struct {
	conn   net.Conn
	cancel context.CancelCauseFunc
	mu     sync.Mutex // orders a poll against stop
	timer  *time.Timer
	ended  bool // stop was called, or the client left
	gone   bool
}

// watchClient cancels cancel with errClientGone once the peer of conn
// closes, polling every clientWatchInterval until stop is called. stop
// reports whether the client was gone; once it returns, cancel is not
// called by the watch.
func watchClient(conn net.Conn, cancel context.CancelCauseFunc) (stop func() bool) {
	if !canWatchPeer || conn == nil {
		return func() bool { return false }
	}
	w := &clientWatch{conn: conn, cancel: cancel}
	w.mu.Lock()
	w.timer = time.AfterFunc(clientWatchInterval, w.poll)
	w.mu.Unlock()
	return w.stop
}

// poll runs on the timer's goroutine.
func (w *clientWatch) poll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	if peerClosed(w.conn) {
		w.ended, w.gone = true, true
		w.cancel(errClientGone)
		return
	}
	w.timer.Reset(clientWatchInterval)
}

func (w *clientWatch) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	w.timer.Stop()
	return w.gone
}
