package floodtest

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Config describes a flood of slow connections.
type Config struct {
	// Addr is the server's TCP address.
	Addr string
	// Conns is how many connections the flood keeps up at once.
	Conns int
	// Source is the source address of connection i (Loopback gives one
	// loopback address per connection), so that a server's per-client
	// cap does not protect the others, as it does against one address.
	Source func(i int) net.IP
	// Payload is what a connection sends, a byte per Interval: an HTTP
	// request head that never ends, or `{` and a HELLO that never ends
	// its line. Filler follows it, a byte per Interval, for as long as
	// the server keeps the connection.
	Payload string
	Filler  byte
	// Interval paces each connection: a byte, then a wait of one
	// interval in which the server's answer or close is noticed. It is
	// also the wait before dialling again after a refused dial.
	Interval time.Duration
}

// Flood is a running flood: each of its connections trickles the
// payload until the server answers or closes it, then reconnects from
// the same source address, until Stop.
type Flood struct {
	cfg      Config
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	open     atomic.Int64 // connections open now
	connects atomic.Int64 // connections made in all
}

// Start starts the flood. It ends with the test, or at Stop.
func Start(t testing.TB, cfg Config) *Flood {
	t.Helper()
	if cfg.Addr == "" || cfg.Conns <= 0 || cfg.Source == nil || cfg.Interval <= 0 {
		t.Fatalf("floodtest: incomplete configuration %+v", cfg)
	}
	f := &Flood{cfg: cfg}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	for i := range cfg.Conns {
		f.wg.Add(1)
		go f.attack(cfg.Source(i))
	}
	t.Cleanup(f.Stop)
	return f
}

// Loopback gives connection i the address 127.second.x.y, one address
// per connection, up to 62,500 of them. Tests that may run at the same
// time use different second bytes.
func Loopback(second byte) func(i int) net.IP {
	return func(i int) net.IP { return net.IPv4(127, second, byte(1+i/250), byte(1+i%250)) }
}

// Open is the number of the flood's connections open now.
func (f *Flood) Open() int64 { return f.open.Load() }

// Connects is the number of connections the flood made in all.
func (f *Flood) Connects() int64 { return f.connects.Load() }

// Stop ends the flood and waits for its connections to close. It may be
// called more than once.
func (f *Flood) Stop() {
	f.cancel()
	f.wg.Wait()
}

// attack is one connection of the flood, again and again.
func (f *Flood) attack(ip net.IP) {
	defer f.wg.Done()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	for f.ctx.Err() == nil {
		c, err := d.DialContext(f.ctx, "tcp", f.cfg.Addr)
		if err != nil {
			// Refused, or out of ports for a moment: again after an
			// interval, as an attacker would.
			select {
			case <-f.ctx.Done():
			case <-time.After(f.cfg.Interval):
			}
			continue
		}
		f.open.Add(1)
		f.connects.Add(1)
		_ = Trickle(f.ctx, c, f.cfg.Payload, f.cfg.Filler, f.cfg.Interval)
		c.Close()
		f.open.Add(-1)
	}
}

// Trickle sends payload on c a byte at a time, then filler, a byte per
// interval, until the server answers (a 408, a refusal) or closes c: then
// it returns nil. It returns ctx's error when ctx ends first. After each
// byte it reads for one interval, which both paces it and notices the
// answer or the close.
func Trickle(ctx context.Context, c net.Conn, payload string, filler byte, interval time.Duration) error {
	buf := make([]byte, 512)
	for i := 0; ; i++ {
		b := filler
		if i < len(payload) {
			b = payload[i]
		}
		if _, err := c.Write([]byte{b}); err != nil {
			return nil // closed by the server
		}
		_ = c.SetReadDeadline(time.Now().Add(interval))
		if _, err := c.Read(buf); !isTimeout(err) {
			return nil // an answer, or the close
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
