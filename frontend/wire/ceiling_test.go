//go:build !batch2

package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
	"github.com/quiverdb/quiver/internal/floodtest"
)

// counts is the ceiling's state: slots held, slots without a HELLO,
// candidates for eviction.
func (c *ceiling) counts() (total, greeting, waiting int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.total, c.mu.greeting, c.mu.waiting.Len()
}

// testSlot is a connection admitted to a ceiling in a test, with its
// session's greeter; evicted is set when a newcomer took its slot.
type testSlot struct {
	sl      *slot
	g       greeter
	evicted atomic.Bool
}

func admitTest(c *ceiling, host string) *testSlot {
	ts := &testSlot{}
	ts.sl = c.admit(host, 1, func() { ts.evicted.Store(true) })
	if ts.sl == nil {
		return nil
	}
	ts.g = greeter{sl: ts.sl, counted: true}
	return ts
}

// The order of eviction and the reserve, on the table itself: a
// newcomer takes the slot of the connection stalled longest on its
// HELLO (by when it stalled, not when it connected), never one with a
// completed HELLO, one not read yet, or one whose HELLO is being
// answered; connections without a HELLO cannot take the reserve; a
// client at its own ceiling takes one of its own, and that is no
// saturation; with nothing to take, the newcomer is refused at once.
func TestCeilingEvictionOrderAndReserve(t *testing.T) {
	sat := &serving.Saturation{}
	var conns floodtest.Gauge
	c := newCeiling(Config{MaxConnections: 5, MaxConnectionsPerClient: 3, ReservedConnections: 2,
		Saturation: sat, Conns: &conns, Logger: quietLogger()}, nil)
	if c.greetCap != 3 {
		t.Fatalf("slots without a HELLO: %d, want 5 - 2", c.greetCap)
	}
	w := admitTest(c, "10.0.0.1")
	w.g.arrive()
	w.g.welcome()
	a, b, d := admitTest(c, "10.0.0.2"), admitTest(c, "10.0.0.3"), admitTest(c, "10.0.0.4")
	b.g.stall() // b first, though a connected first
	a.g.stall()
	d.g.stall()
	d.g.arrive() // d's HELLO arrived after all: being answered
	if total, greeting, waiting := c.counts(); total != 4 || greeting != 3 || waiting != 2 || sat.Saturated() {
		t.Fatalf("before the ceiling: %d slots, %d without a HELLO, %d candidates, saturated %v", total, greeting, waiting, sat.Saturated())
	}
	// The slots without a HELLO are full (3), one slot of the reserve
	// free: a newcomer takes b's.
	e := admitTest(c, "10.0.0.5")
	if e == nil || !b.evicted.Load() || a.evicted.Load() || d.evicted.Load() || w.evicted.Load() {
		t.Fatalf("newcomer at the reserve: admitted %v, evicted a %v b %v d %v w %v; want b's slot taken",
			e != nil, a.evicted.Load(), b.evicted.Load(), d.evicted.Load(), w.evicted.Load())
	}
	if !sat.Saturated() {
		t.Error("an eviction at the reserve did not mark the saturation")
	}
	// e not read yet, d being answered, a stalled: the next takes a's.
	f := admitTest(c, "10.0.0.6")
	if f == nil || !a.evicted.Load() || d.evicted.Load() || e.evicted.Load() {
		t.Fatalf("second newcomer: admitted %v, evicted a %v d %v e %v; want a's slot taken", f != nil, a.evicted.Load(), d.evicted.Load(), e.evicted.Load())
	}
	// d, e, f and a fifth welcomed: five slots, all with a session. A
	// newcomer is refused at once, and nothing is evicted.
	for _, s := range []*testSlot{d, e, f} {
		s.g.arrive()
		s.g.welcome()
	}
	x := admitTest(c, "10.0.0.7")
	x.g.arrive()
	x.g.welcome()
	if g := admitTest(c, "10.0.0.8"); g != nil {
		t.Fatal("a newcomer was admitted with every slot holding a session")
	}
	if total, greeting, waiting := c.counts(); total != 5 || greeting != 0 || waiting != 0 {
		t.Fatalf("after the refusal: %d slots, %d without a HELLO, %d candidates", total, greeting, waiting)
	}
	// Everything given back (once each): the gauge is back at zero.
	for _, s := range []*testSlot{w, d, e, f, x} {
		s.g.leave()
		s.sl.release()
		s.sl.release()
	}
	if total, greeting, waiting := c.counts(); total != 0 || greeting != 0 || waiting != 0 || conns.N() != 0 {
		t.Fatalf("all released: %d slots, %d without a HELLO, %d candidates, gauge %d", total, greeting, waiting, conns.N())
	}

	// A client at its own ceiling (3) takes the slot of its own oldest
	// stalled connection, not another client's, and that is no
	// saturation of the server.
	sat = &serving.Saturation{}
	c = newCeiling(Config{MaxConnections: 10, MaxConnectionsPerClient: 3, ReservedConnections: -1, Saturation: sat}, nil)
	other := admitTest(c, "10.0.0.8")
	other.g.stall()
	h1, h2, h3 := admitTest(c, "10.0.0.9"), admitTest(c, "10.0.0.9"), admitTest(c, "10.0.0.9")
	h2.g.stall()
	h1.g.stall()
	h3.g.stall()
	h4 := admitTest(c, "10.0.0.9")
	if h4 == nil || !h2.evicted.Load() || h1.evicted.Load() || other.evicted.Load() {
		t.Fatalf("a client at its ceiling: admitted %v, evicted h2 %v h1 %v other %v; want h2's slot taken",
			h4 != nil, h2.evicted.Load(), h1.evicted.Load(), other.evicted.Load())
	}
	// With none of its own to take, it is refused, without waiting.
	h1.g.arrive()
	h3.g.arrive()
	if h5 := admitTest(c, "10.0.0.9"); h5 != nil || other.evicted.Load() {
		t.Fatal("a client at its ceiling took another client's slot")
	}
	if sat.Saturated() {
		t.Error("a client at its own ceiling marked the server's saturation")
	}
}

// A newcomer that finds the ceiling full of connections the server has
// not read yet waits for one to stall, and takes its slot; the one
// behind it in line waits its turn too.
func TestCeilingNewcomerWaitsForTheServer(t *testing.T) {
	c := newCeiling(Config{MaxConnections: 2, MaxConnectionsPerClient: 2, ReservedConnections: -1, Saturation: &serving.Saturation{}}, nil)
	a, b := admitTest(c, "10.0.0.1"), admitTest(c, "10.0.0.2")
	got := make(chan *testSlot, 2)
	go func() { got <- admitTest(c, "10.0.0.3") }()
	floodtest.WaitFor(t, 10*time.Second, "the newcomer to wait", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.mu.waiters == 1
	})
	go func() { got <- admitTest(c, "10.0.0.4") }()
	floodtest.WaitFor(t, 10*time.Second, "the second newcomer to wait", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.mu.waiters == 2
	})
	b.g.stall()
	first := <-got
	if first == nil || !b.evicted.Load() || a.evicted.Load() {
		t.Fatalf("after b stalled: admitted %v, evicted a %v b %v; want b's slot taken", first != nil, a.evicted.Load(), b.evicted.Load())
	}
	a.g.stall()
	if second := <-got; second == nil || !a.evicted.Load() {
		t.Fatalf("after a stalled: admitted %v, a evicted %v", second != nil, a.evicted.Load())
	}
}

// Over TCP: connections stalled on their HELLO cannot take the reserve
// (a newcomer takes the slot of the one stalled longest, though a slot
// is free), at the ceiling a newcomer takes such a slot too, a session
// in a transaction keeps its own, and with every slot holding a session
// a newcomer is refused (ERROR 08000). Evictions mark the saturation
// health reads.
func TestEvictionOverTCP(t *testing.T) {
	sat := &serving.Saturation{}
	srv, addr := startTCP(t, Config{MaxConnections: 4, ReservedConnections: 2, HelloTimeout: time.Minute, Saturation: sat}, openDB(t))
	// slow connects and sends a HELLO's start; when it takes another's
	// slot, it waits for that one's close first: then the server has
	// admitted it.
	slow := func(takes net.Conn) net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, `{"type":"HE`); err != nil {
			t.Fatal(err)
		}
		if takes != nil && !closedByServer(takes, 10*time.Second) {
			t.Fatal("a connection stalled on its HELLO kept its slot")
		}
		return c
	}
	stalled := func(waiting int) {
		t.Helper()
		floodtest.WaitFor(t, 10*time.Second, "the server to wait on the HELLO", func() bool { _, _, n := srv.ceiling.counts(); return n == waiting })
	}
	w := dial(t, addr)
	w.send(`{"type":"BEGIN"}`)
	w.expect("SUCCESS")
	w.ok(`CREATE (:T)`)
	s1 := slow(nil)
	stalled(1)
	s2 := slow(nil)
	stalled(2)
	if sat.Saturated() {
		t.Fatal("saturated below the ceiling")
	}
	// s1 and s2 fill the slots without a HELLO (4 - 2): a slow newcomer
	// takes s1's, though a slot is free.
	s3 := slow(s1)
	stalled(2)
	if closedByServer(s2, 50*time.Millisecond) {
		t.Fatal("s2 lost its slot before s1")
	}
	if !sat.Saturated() {
		t.Error("an eviction at the reserve did not mark the saturation")
	}
	n1 := dial(t, addr) // takes s2's
	if !closedByServer(s2, 10*time.Second) {
		t.Fatal("s2 kept its slot")
	}
	n2 := dial(t, addr) // a free slot
	// At the ceiling (4): w, s3, n1, n2. A newcomer takes s3's.
	n3 := dial(t, addr)
	if !closedByServer(s3, 10*time.Second) {
		t.Fatal("s3 kept its slot")
	}
	// Every slot holds a session: refused, and the sessions go on.
	r := dialRaw(t, addr)
	if m := r.expectError(engine.CodeConnection); !strings.Contains(m["message"].(string), "limit of 4") {
		t.Errorf("refusal: %v", m)
	}
	r.expectClosed()
	w.send(`{"type":"COMMIT"}`)
	w.expect("SUCCESS")
	for _, c := range []*tconn{w, n1, n2, n3} {
		if r := c.ok(`MATCH (t:T) RETURN count(t) AS n`); num(t, r.rows[0]["n"]) != 1 {
			t.Fatalf("a session after the evictions: %v", r.rows)
		}
	}
}

// closedByServer reports whether the server closed c within d.
func closedByServer(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := c.Read(make([]byte, 1))
	return err != nil && !isTimeout(err)
}

// QUIC connections hold slots of the same ceiling: one whose stream has
// not completed its HELLO gives its slot to a newcomer (closed with
// application error 3), one with a session keeps it.
func TestQUICConnectionWithoutHelloIsEvicted(t *testing.T) {
	sat := &serving.Saturation{}
	db := openDB(t)
	srv, quicAddr, cert := startQUIC(t, Config{MaxConnections: 2, ReservedConnections: -1, HelloTimeout: time.Minute, Saturation: sat}, db)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.ServeTCP(ln) }() // ended by startQUIC's Shutdown
	tcpAddr := ln.Addr().String()

	kept := dialQUIC(t, quicAddr, clientTLS(t, cert))
	session := openStream(t, kept)
	session.hello()
	slow := dialQUIC(t, quicAddr, clientTLS(t, cert))
	st, err := slow.OpenStreamSync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(st, `{"type":"HEL`); err != nil {
		t.Fatal(err)
	}
	// Waited on for the stream's HELLO, not for want of a stream: a
	// connection whose stream the server has yet to accept and read is
	// no candidate for a while, and the newcomer would be refused.
	floodtest.WaitFor(t, 10*time.Second, "the server to wait on the QUIC stream's HELLO", func() bool {
		c := srv.ceiling
		c.mu.Lock()
		defer c.mu.Unlock()
		front := c.mu.waiting.Front()
		return c.mu.total == 2 && c.mu.waiting.Len() == 1 && front.Value.(*slot).streams > 0
	})
	n := dial(t, tcpAddr)
	select {
	case <-slow.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the QUIC connection without a HELLO kept its slot")
	}
	var ae *quic.ApplicationError
	if err := context.Cause(slow.Context()); !errors.As(err, &ae) || ae.ErrorCode != quicEvicted || !ae.Remote {
		t.Errorf("the evicted QUIC connection ended with %v, want application error %d", err, quicEvicted)
	}
	// Both slots hold sessions now: a newcomer is refused, the QUIC
	// session goes on.
	r := dialRaw(t, tcpAddr)
	r.expectError(engine.CodeConnection)
	session.ok(`RETURN 1 AS x`)
	n.ok(`RETURN 1 AS x`)
	if !sat.Saturated() {
		t.Error("the eviction did not mark the saturation")
	}
}
