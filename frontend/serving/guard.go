// Package serving holds what the fasthttp-based listeners (the HTTP API
// and the metrics listener) share: a Guard that makes Shutdown end a
// Serve however the two race (guard.go); the Saturation record of
// connection ceilings being reached (saturation.go); and the server's
// Health, the checks both listeners' health endpoints report
// (health.go). It knows nothing of HTTP or the engine.
package serving

import (
	"errors"
	"net"
	"sync"
)

// Guard remembers the listeners being served and whether Shutdown ran.
// fasthttp's Shutdown closes only the listeners its Serve has registered,
// so a Shutdown that comes before Serve got that far (a signal right at
// start) would leave that Serve accepting forever; the Guard closes the
// listeners itself and turns a Serve after Shutdown into a no-op.
type Guard struct {
	mu      sync.Mutex
	stopped bool
	lns     []net.Listener
}

// Serve runs serve(ln) unless Shutdown ran already; the error of a
// listener Shutdown closed is nil.
func (g *Guard) Serve(ln net.Listener, serve func(net.Listener) error) error {
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		ln.Close()
		return nil
	}
	g.lns = append(g.lns, ln)
	g.mu.Unlock()
	err := serve(ln)
	g.mu.Lock()
	stopped := g.stopped
	g.mu.Unlock()
	if stopped && errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Shutdown runs shutdown (the server's own), then closes every listener
// Serve was given: fasthttp closed the ones it had taken already, and
// closing a listener twice is harmless.
func (g *Guard) Shutdown(shutdown func() error) error {
	g.mu.Lock()
	g.stopped = true
	lns := g.lns
	g.mu.Unlock()
	err := shutdown()
	for _, ln := range lns {
		ln.Close()
	}
	return err
}
