package http

// The slow-header flood the connection tests and the soak run beside
// normal clients, and what the normal clients saw.

import (
	"encoding/json"
	"net"
	nethttp "net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// slowFlood is a slow-header attack from many loopback source addresses:
// each of its connections binds its own address (127.3.x.y), sends a
// request head one byte per interval that never ends, and reconnects
// when the server closes it, as the attacker of the slow-header issue
// did. Tests and the soak run it beside normal clients.
type slowFlood struct {
	stop     chan struct{}
	wg       sync.WaitGroup
	open     atomic.Int64 // connections open now
	connects atomic.Int64 // connections made in all
}

// slowHead is what a flood connection sends: the start of a real request,
// then a header value that never ends.
const slowHead = "POST /api/v1/query HTTP/1.1\r\nHost: quiver\r\nContent-Type: application/json\r\nX-Slow: "

// floodAddr is the source address of a flood's connection i: one
// address per connection, up to 62,500 of them.
func floodAddr(i int) net.IP {
	return net.IPv4(127, 3, byte(1+i/250), byte(1+i%250))
}

// needFiles fails the test when the process may not open n more files:
// Go raises the soft limit to the hard one at start, so only the hard
// limit can be too low (ulimit -Hn).
func needFiles(t testing.TB, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("cannot read RLIMIT_NOFILE: %v", err)
	}
	if lim.Cur < n+256 && lim.Max > lim.Cur {
		lim.Cur = min(lim.Max, n+256)
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	if lim.Cur < n+256 {
		t.Fatalf("this test needs about %d open files and the limit is %d: raise it (ulimit -n %d)", n+256, lim.Cur, n+256)
	}
}

// startSlowFlood opens n slow connections to addr, one per source
// address, each sending a byte every interval, until Stop.
func startSlowFlood(t testing.TB, addr string, n int, interval time.Duration) *slowFlood {
	t.Helper()
	f := &slowFlood{stop: make(chan struct{})}
	for i := range n {
		f.wg.Add(1)
		go f.attack(addr, floodAddr(i), interval)
	}
	t.Cleanup(f.Stop)
	return f
}

// attack is one connection of the flood, again and again. The read
// deadline paces it: a byte, then a wait of one interval in which the
// connection's close is noticed.
func (f *slowFlood) attack(addr string, ip net.IP, interval time.Duration) {
	defer f.wg.Done()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	buf := make([]byte, 512)
	for {
		select {
		case <-f.stop:
			return
		default:
		}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			// Refused or out of ports for a moment: try again in an
			// interval, as an attacker would.
			select {
			case <-f.stop:
				return
			case <-time.After(interval):
			}
			continue
		}
		f.open.Add(1)
		f.connects.Add(1)
		f.trickle(c, buf, interval)
		c.Close()
		f.open.Add(-1)
	}
}

// trickle sends the endless head a byte at a time until the server
// closes c or the flood stops.
func (f *slowFlood) trickle(c net.Conn, buf []byte, interval time.Duration) {
	for i := 0; ; i++ {
		b := byte('a')
		if i < len(slowHead) {
			b = slowHead[i]
		}
		if _, err := c.Write([]byte{b}); err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Now().Add(interval))
		if _, err := c.Read(buf); err == nil || !isTimeout(err) {
			return // an answer (408, 503) or the close
		}
		select {
		case <-f.stop:
			return
		default:
		}
	}
}

// Stop ends the flood and waits for its connections to close.
func (f *slowFlood) Stop() {
	select {
	case <-f.stop:
		return
	default:
	}
	close(f.stop)
	f.wg.Wait()
}

// connGauge counts the connections a server admitted and has not closed
// (Config.Conns).
type connGauge struct{ n atomic.Int64 }

func (g *connGauge) Opened() { g.n.Add(1) }
func (g *connGauge) Closed() { g.n.Add(-1) }

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// healthStatus is GET /api/v1/health's status and connections check,
// on a new connection.
func healthStatus(t testing.TB, base string) (status, connections string) {
	t.Helper()
	client := &nethttp.Client{Timeout: 10 * time.Second, Transport: &nethttp.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(base + "/api/v1/health")
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string
		Checks struct{ Connections string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %d %v", resp.StatusCode, err)
	}
	return out.Status, out.Checks.Connections
}
