package netfault

import (
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// patience bounds every wait of these tests; none is a pause.
const patience = 10 * time.Second

// waitFor polls cond, a state no event signals, until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(patience); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// target is a server that keeps what each connection sent it and
// answers each chunk with the same bytes (an echo).
type target struct {
	ln net.Listener
	mu struct {
		sync.Mutex // guards got and accepted
		got        []byte
		accepted   int
		conns      []net.Conn
	}
	wg sync.WaitGroup
}

func newTarget(t *testing.T) *target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{ln: ln}
	tg.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tg.mu.Lock()
			tg.mu.accepted++
			tg.mu.conns = append(tg.mu.conns, c)
			tg.mu.Unlock()
			tg.wg.Go(func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						tg.mu.Lock()
						tg.mu.got = append(tg.mu.got, buf[:n]...)
						tg.mu.Unlock()
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		tg.mu.Lock()
		for _, c := range tg.mu.conns {
			c.Close()
		}
		tg.mu.Unlock()
		tg.wg.Wait()
	})
	return tg
}

func (tg *target) addr() string { return tg.ln.Addr().String() }

func (tg *target) received() string {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return string(tg.mu.got)
}

func (tg *target) accepted() int {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return tg.mu.accepted
}

func listen(t *testing.T, target string) *Link {
	t.Helper()
	l, err := Listen(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads its echo.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatalf("write %q: %v", msg, err)
	}
	expectRead(t, c, msg)
}

func expectRead(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("reading the echo of %q: %v", msg, err)
	}
	if string(buf) != msg {
		t.Fatalf("echo %q, want %q", buf, msg)
	}
}

// expectReset reads from c until the link's reset reaches it.
func expectReset(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("read after a drop timed out: the connection was not reset")
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read after a drop: %v, want a reset (ECONNRESET)", err)
	}
}

// expectRefused dials addr and expects the connection reset, at the
// connect or at the first read: the kernel completes the handshake before
// the link can reset, and the reset may beat the dialer's own check.
func expectRefused(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, patience)
	if err != nil {
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("dial: %v, want a reset (ECONNRESET)", err)
		}
		return
	}
	defer c.Close()
	expectReset(t, c)
}

func TestLinkForwardsBothWays(t *testing.T) {
	tg := newTarget(t)
	l := listen(t, tg.addr())
	c := dial(t, l.Addr())
	roundTrip(t, c, "hello")
	roundTrip(t, c, "again")
	s := l.Stats()
	if s.Accepted != 1 || s.Open != 1 || s.Up != 10 || s.Down != 10 || s.Held != 0 || s.Reset != 0 {
		t.Fatalf("stats %+v", s)
	}
	if got := tg.received(); got != "helloagain" {
		t.Fatalf("target received %q", got)
	}
	// A clean close on the dialer's side ends the connection on both.
	c.Close()
	waitFor(t, "the connection to close", func() bool { return l.Stats().Open == 0 })
}

func TestBlackholeHoldsBytesUntilHeal(t *testing.T) {
	tg := newTarget(t)
	l := listen(t, tg.addr())
	c := dial(t, l.Addr())
	roundTrip(t, c, "before")

	l.Cut(Blackhole)
	if l.Mode() != Blackhole {
		t.Fatalf("mode %v", l.Mode())
	}
	if _, err := c.Write([]byte("during")); err != nil {
		t.Fatal(err)
	}
	// The link has read the bytes and holds them: none reached the target.
	waitFor(t, "the link to hold the bytes", func() bool { return l.Stats().Held == 6 })
	if s := l.Stats(); s.Up != 6 || s.Down != 6 {
		t.Fatalf("bytes crossed a black hole: %+v", s)
	}
	if got := tg.received(); got != "before" {
		t.Fatalf("target received %q across a black hole", got)
	}
	// A new connection is accepted and not dialed through.
	c2 := dial(t, l.Addr())
	if _, err := c2.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second connection", func() bool { return l.Stats().Accepted == 2 })
	if n := tg.accepted(); n != 1 {
		t.Fatalf("the target accepted %d connections across a black hole", n)
	}

	l.Heal()
	// The held bytes arrive, in order, on the connection that stayed open.
	expectRead(t, c, "during")
	expectRead(t, c2, "new")
	roundTrip(t, c, "after")
	if got := tg.received(); len(got) != len("beforeduringnewafter") {
		t.Fatalf("target received %q", got)
	}
	if s := l.Stats(); s.Up != 20 || s.Down != 20 || s.Held != 0 || s.Reset != 0 || s.Accepted != 2 {
		t.Fatalf("stats after heal %+v", s)
	}
}

func TestBlackholeHoldsTheTargetsBytesToo(t *testing.T) {
	tg := newTarget(t)
	l := listen(t, tg.addr())
	c := dial(t, l.Addr())
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the target to read", func() bool { return tg.received() == "ping" })
	// The echo may already have crossed; cut, and send one more whose echo
	// cannot: the up direction holds it.
	expectRead(t, c, "ping")
	l.Cut(Blackhole)
	c.Write([]byte("x"))
	waitFor(t, "the link to hold the bytes", func() bool { return l.Stats().Held == 1 })
	if s := l.Stats(); s.Down != 4 {
		t.Fatalf("down %d across a black hole", s.Down)
	}
	l.Heal()
	expectRead(t, c, "x")
}

func TestDropResetsOpenAndNewConnections(t *testing.T) {
	tg := newTarget(t)
	l := listen(t, tg.addr())
	c := dial(t, l.Addr())
	roundTrip(t, c, "before")

	l.Cut(Drop)
	expectReset(t, c)
	if s := l.Stats(); s.Reset != 1 {
		t.Fatalf("stats after drop %+v", s)
	}
	waitFor(t, "the dropped connection to go", func() bool { return l.Stats().Open == 0 })

	// New connections are accepted and reset at once, never dialed through.
	expectRefused(t, l.Addr())
	if s := l.Stats(); s.Reset != 2 || s.Accepted != 2 || s.Up != 6 {
		t.Fatalf("stats after a connection during the drop %+v", s)
	}
	if n := tg.accepted(); n != 1 {
		t.Fatalf("the target accepted %d connections through a drop", n)
	}

	l.Heal()
	c3 := dial(t, l.Addr())
	roundTrip(t, c3, "after")
	if got := tg.received(); got != "beforeafter" {
		t.Fatalf("target received %q", got)
	}
}

func TestDropDiscardsHeldBytes(t *testing.T) {
	tg := newTarget(t)
	l := listen(t, tg.addr())
	c := dial(t, l.Addr())
	roundTrip(t, c, "a")
	l.Cut(Blackhole)
	c.Write([]byte("lost"))
	waitFor(t, "the link to hold the bytes", func() bool { return l.Stats().Held == 4 })
	l.Cut(Drop)
	expectReset(t, c)
	waitFor(t, "the held bytes to go", func() bool { return l.Stats().Held == 0 })
	l.Heal()
	roundTrip(t, dial(t, l.Addr()), "b")
	if got := tg.received(); got != "ab" {
		t.Fatalf("target received %q: a drop delivered held bytes", got)
	}
}

func TestTargetSetLater(t *testing.T) {
	l := listen(t, "")
	c := dial(t, l.Addr())
	if _, err := c.Write([]byte("early")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the connection", func() bool { return l.Stats().Accepted == 1 })
	tg := newTarget(t)
	l.SetTarget(tg.addr())
	if l.Target() != tg.addr() {
		t.Fatalf("target %q", l.Target())
	}
	expectRead(t, c, "early")

	// A restarted target on another port: new connections go there.
	tg2 := newTarget(t)
	l.SetTarget(tg2.addr())
	roundTrip(t, dial(t, l.Addr()), "moved")
	if tg2.received() != "moved" || tg.received() != "early" {
		t.Fatalf("targets received %q and %q", tg.received(), tg2.received())
	}
}

func TestDialFailureResets(t *testing.T) {
	// A target that is down: a port just freed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	l := listen(t, down)
	expectRefused(t, l.Addr())
	waitFor(t, "the dial failure to count", func() bool { return l.Stats().DialFailed == 1 })
}

func TestCloseEndsEverything(t *testing.T) {
	tg := newTarget(t)
	l, err := Listen(tg.addr())
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, l.Addr())
	roundTrip(t, c, "x")
	l.Cut(Blackhole)
	waiting := dial(t, l.Addr()) // waits at the gate
	waitFor(t, "the second connection", func() bool { return l.Stats().Accepted == 2 })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waited for every goroutine: nothing is open.
	if s := l.Stats(); s.Open != 0 {
		t.Fatalf("open after close: %+v", s)
	}
	expectReset(t, c)
	expectReset(t, waiting)
	if _, err := net.DialTimeout("tcp", l.Addr(), patience); err == nil {
		t.Fatal("a closed link still accepts")
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestManyConnectionsUnderCuts(t *testing.T) {
	// Concurrent traffic while the link flips: every byte that was echoed
	// came back in order, and the link ends with nothing open or held.
	tg := newTarget(t)
	l := listen(t, tg.addr())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", l.Addr(), patience)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(patience))
			for i := range 50 {
				msg := []byte{byte('a' + i%26)}
				if _, err := c.Write(msg); err != nil {
					errs <- err
					return
				}
				got := make([]byte, 1)
				if _, err := io.ReadFull(c, got); err != nil || got[0] != msg[0] {
					errs <- errors.Join(err, errors.New("echo out of order"))
					return
				}
			}
		})
	}
	for range 20 {
		l.Cut(Blackhole)
		l.Heal()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitFor(t, "every connection to end", func() bool { return l.Stats().Open == 0 })
	if s := l.Stats(); s.Up != 400 || s.Down != 400 || s.Held != 0 {
		t.Fatalf("stats %+v", s)
	}
}
