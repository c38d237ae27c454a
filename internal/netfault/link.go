package netfault

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is what a link does with its traffic.
type Mode uint8

const (
	// Pass forwards: the link is healthy.
	Pass Mode = iota
	// Drop resets the link's connections, open and new: the dialer sees
	// ECONNRESET at once, as from a host that is up with nothing listening.
	Drop
	// Blackhole keeps the link's connections open and forwards nothing:
	// reads and connects hang until the dialer's own timeout, as across a
	// real partition. A new connection is accepted and not dialed through
	// until Heal.
	Blackhole
)

func (m Mode) String() string {
	switch m {
	case Pass:
		return "pass"
	case Drop:
		return "drop"
	case Blackhole:
		return "blackhole"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Stats counts what a link did, for a test's assertions.
type Stats struct {
	Accepted   int64 // connections accepted from dialers
	Reset      int64 // connections reset by a drop, at accept or later
	DialFailed int64 // connections reset because the target refused
	Open       int64 // connections open now
	Up         int64 // bytes forwarded from dialers to the target
	Down       int64 // bytes forwarded from the target back to dialers
	Held       int64 // bytes read and held by a black hole, not yet forwarded
}

// Link is a TCP proxy on 127.0.0.1:0 forwarding to a target address. Its
// zero value is not usable; make one with Listen.
type Link struct {
	ln   net.Listener
	wg   sync.WaitGroup // the accept loop and every connection's goroutines
	stat struct {
		accepted, reset, dialFailed, open, up, down, held atomic.Int64
	}
	mu struct {
		sync.Mutex // guards the fields below
		mode       Mode
		target     string        // "" until set: connections wait for it
		flow       chan struct{} // closed while mode is Pass and target is set
		flowing    bool          // flow is closed
		conns      map[*conn]struct{}
		closed     bool
	}
}

// Listen starts a link on 127.0.0.1:0 forwarding to target, which may be
// "" when the target is not known yet (SetTarget); connections made before
// it is known wait for it.
func Listen(target string) (*Link, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netfault: cannot listen: %w", err)
	}
	l := &Link{ln: ln}
	l.mu.flow = make(chan struct{})
	l.mu.conns = make(map[*conn]struct{})
	l.mu.target = target
	l.updateFlowLocked()
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Addr is the address dialers use: the link's listening address.
func (l *Link) Addr() string { return l.ln.Addr().String() }

// Target is the address the link forwards to.
func (l *Link) Target() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.target
}

// SetTarget changes where new connections go (a member restarted on
// another port). Open connections keep their old target.
func (l *Link) SetTarget(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.target = addr
	l.updateFlowLocked()
}

// Mode is what the link does now.
func (l *Link) Mode() Mode {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.mode
}

// Cut stops the link's traffic in mode m (Drop or Blackhole). Once it
// returns, no byte read from either side afterwards is forwarded until
// Heal; a write already under way when it was called may still finish.
// Cutting with Drop resets every open connection before returning.
func (l *Link) Cut(m Mode) {
	if m == Pass {
		panic("BUG: netfault: Cut(Pass); call Heal")
	}
	l.mu.Lock()
	l.mu.mode = m
	l.updateFlowLocked()
	var victims []*conn
	if m == Drop {
		for c := range l.mu.conns {
			victims = append(victims, c)
		}
	}
	l.mu.Unlock()
	for _, c := range victims {
		l.stat.reset.Add(1)
		c.reset()
	}
}

// Heal lets traffic through again. Bytes a black hole held are delivered
// first, in order.
func (l *Link) Heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.mode = Pass
	l.updateFlowLocked()
}

// Close stops the link: its listener closes, its connections are reset,
// and its goroutines have ended when it returns.
func (l *Link) Close() error {
	l.mu.Lock()
	if l.mu.closed {
		l.mu.Unlock()
		return nil
	}
	l.mu.closed = true
	victims := make([]*conn, 0, len(l.mu.conns))
	for c := range l.mu.conns {
		victims = append(victims, c)
	}
	l.mu.Unlock()
	err := l.ln.Close()
	for _, c := range victims {
		c.reset()
	}
	l.wg.Wait()
	return err
}

// Stats reads the link's counters.
func (l *Link) Stats() Stats {
	return Stats{
		Accepted:   l.stat.accepted.Load(),
		Reset:      l.stat.reset.Load(),
		DialFailed: l.stat.dialFailed.Load(),
		Open:       l.stat.open.Load(),
		Up:         l.stat.up.Load(),
		Down:       l.stat.down.Load(),
		Held:       l.stat.held.Load(),
	}
}

// updateFlowLocked opens or shuts the gate the pumps wait at, after a
// change of mode or target.
func (l *Link) updateFlowLocked() {
	want := l.mu.mode == Pass && l.mu.target != ""
	switch {
	case want && !l.mu.flowing:
		close(l.mu.flow)
		l.mu.flowing = true
	case !want && l.mu.flowing:
		l.mu.flow = make(chan struct{})
		l.mu.flowing = false
	}
}

// gate reports whether traffic may pass now, and else the channel that is
// closed when it next may.
func (l *Link) gate() (pass bool, target string, wake <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.flowing, l.mu.target, l.mu.flow
}

// waitFlow blocks until traffic may pass on c, and reports false when c
// was reset first (a drop, Close).
func (l *Link) waitFlow(c *conn) (target string, ok bool) {
	for {
		pass, target, wake := l.gate()
		select {
		case <-c.dead:
			return "", false
		default:
		}
		if pass {
			return target, true
		}
		select {
		case <-wake:
		case <-c.dead:
			return "", false
		}
	}
}

func (l *Link) accept() {
	defer l.wg.Done()
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// A connection that failed before we took it, or no file
			// left for it: back off a little rather than spin.
			time.Sleep(5 * time.Millisecond)
			continue
		}
		l.stat.accepted.Add(1)
		c := &conn{client: nc, dead: make(chan struct{})}
		l.mu.Lock()
		if l.mu.closed || l.mu.mode == Drop {
			closed := l.mu.closed
			l.mu.Unlock()
			// Count before resetting: the dialer sees the reset at once
			// and may read the stats next.
			if !closed {
				l.stat.reset.Add(1)
			}
			c.reset()
			continue
		}
		l.mu.conns[c] = struct{}{}
		l.stat.open.Add(1)
		l.mu.Unlock()
		l.wg.Add(1)
		go l.serve(c)
	}
}
