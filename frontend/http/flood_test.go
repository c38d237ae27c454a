package http

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
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

// normalLoad is what a normal client saw.
type normalLoad struct {
	ok, failed int
	latencies  []time.Duration
	statuses   map[string]int // "status code" or the error, counted
}

// p99 is the 99th percentile latency of every request, failed ones
// included.
func (l normalLoad) p99() time.Duration {
	if len(l.latencies) == 0 {
		return 0
	}
	s := slices.Clone(l.latencies)
	slices.Sort(s)
	return s[(len(s)*99+99)/100-1]
}

func (l normalLoad) String() string {
	return fmt.Sprintf("%d of %d succeeded, p99 %v, answers %v", l.ok, l.ok+l.failed, l.p99(), l.statuses)
}

// runNormalClient sends RETURN 1 queries to base for d, one after the
// other, each on a new connection (the hard case: every request must be
// admitted again), and reports what it saw. It goes on past d until it
// made at least minRequests (a machine slowed down by other work), but
// not past 3d.
func runNormalClient(base string, d time.Duration, minRequests int) normalLoad {
	client := &nethttp.Client{Timeout: 5 * time.Second, Transport: &nethttp.Transport{DisableKeepAlives: true}}
	defer client.CloseIdleConnections()
	l := normalLoad{statuses: map[string]int{}}
	start := time.Now()
	for time.Since(start) < d || (len(l.latencies) < minRequests && time.Since(start) < 3*d) {
		start := time.Now()
		resp, err := client.Post(base+"/api/v1/query", "application/json", strings.NewReader(`{"query":"RETURN 1 AS x"}`))
		var answer string
		if err == nil {
			raw, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			answer = fmt.Sprint(resp.StatusCode)
			if resp.StatusCode != 200 {
				answer += " " + errorCode(raw)
			}
			err = rerr
			if err == nil && resp.StatusCode == 200 && strings.Contains(string(raw), `"x":1`) {
				l.ok++
				l.latencies = append(l.latencies, time.Since(start))
				l.statuses[answer]++
				continue
			}
		}
		if err != nil {
			answer = err.Error()
		}
		l.failed++
		l.latencies = append(l.latencies, time.Since(start))
		l.statuses[answer]++
	}
	return l
}

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

// The slow-header flood of the issue, from many addresses: 1,000 slow
// connections from 1,000 source addresses fill the connection ceiling
// (1,000, the default) while a normal client sends queries, each on a
// new connection. At least 95% of them succeed, at p99 under a second.
// Health says degraded while the flood keeps the server at its ceiling,
// and healthy again once it ended.
func TestSlowHeaderFloodFromManyAddresses(t *testing.T) {
	const slow = 1000
	needFiles(t, 3*slow)
	conns := &connGauge{}
	h := startHostile(t, Config{MaxConnections: slow, HeaderTimeout: 2 * time.Second, Conns: conns,
		Saturation: &serving.Saturation{Window: time.Second}}, engine.Options{MaxMemory: -1})
	flood := startSlowFlood(t, h.addr, slow, 250*time.Millisecond)
	// The flood holds the slots it may: all (before the reserve), or all
	// but the reserve.
	waitFor(t, 20*time.Second, "the flood to reach the ceiling", func() bool { return conns.n.Load() >= slow*9/10 })
	load := runNormalClient(h.base, 3*time.Second, 20)
	status, connections := healthStatus(t, h.base)
	flood.Stop()
	t.Logf("normal client beside %d slow connections (%d made): %v", slow, flood.connects.Load(), load)
	if total := load.ok + load.failed; total < 20 || load.ok*100 < total*95 {
		t.Errorf("normal client: %v; want at least 95%% of at least 20 requests to succeed", load)
	}
	// The race detector slows the server (and the flood, on the same two
	// cores) ten times; the goal holds for the real build.
	maxP99 := time.Second
	if raceBuild {
		maxP99 = 3 * time.Second
	}
	if p99 := load.p99(); p99 > maxP99 {
		t.Errorf("normal client: p99 %v, want under %v (%v)", p99, maxP99, load)
	}
	if status != "degraded" || connections != "degraded" {
		t.Errorf("health during the flood: status %q, connections %q; want degraded", status, connections)
	}
	waitFor(t, 10*time.Second, "health to say healthy after the flood", func() bool {
		status, connections := healthStatus(t, h.base)
		return status == "healthy" && connections == "ok"
	})
}
