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

// watchClient cancels cancel with errClientGone once the peer of conn
// closes, polling every clientWatchInterval until stop is called. stop
// reports whether the client was gone.
func watchClient(conn net.Conn, cancel context.CancelCauseFunc) (stop func() bool) {
	if !canWatchPeer || conn == nil {
		return func() bool { return false }
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var gone bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(clientWatchInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if peerClosed(conn) {
				gone = true
				cancel(errClientGone)
				return
			}
		}
	}()
	var once sync.Once
	return func() bool {
		once.Do(func() { close(done); wg.Wait() })
		return gone
	}
}
