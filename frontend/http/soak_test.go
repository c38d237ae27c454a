package http

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
	"github.com/quiverdb/quiver/internal/floodtest"
)

// soakDuration is how long the soak's clients run: QUIVER_SOAK_DURATION
// (make soak-long sets minutes), or until they did soakRounds each.
func soakDuration(t testing.TB) time.Duration {
	v := os.Getenv("QUIVER_SOAK_DURATION")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("QUIVER_SOAK_DURATION=%q: want a duration such as 3m", v)
	}
	return d
}

// soakMinSuccess is the share of the normal clients' requests, in
// percent, that must succeed: the 95% in make test's short soak,
// which runs beside other packages' tests (and under -race) on two cores,
// and 99% in make soak-long, which runs alone. The misses are requests
// sent on an idle keep-alive connection the server evicted at its
// ceiling to admit a newcomer, as a server out of connections does
// (nginx drains idle keep-alive connections the same way): the client
// reads EOF, and a POST is not retried for it.
func soakMinSuccess(duration time.Duration) int {
	if duration > 0 {
		return 99
	}
	return 95
}

// soakRounds is what each client does in make test's short soak. The
// 32 clients open their connections at once into a server already at its
// ceiling, and some requests on new connections are reset (seen once in
// CI: 31 of 512, each on a connection of its own); the success rate is
// meant for the steady state, so the short soak runs long enough (2,048
// requests, about 3 s) for such a burst to be a small part of it, as it
// is of the long soak's minutes.
const soakRounds = 32

// A soak: 32 clients write and read their own nodes while hostile
// requests (memory bombs, deep texts, runaway queries, a slow client, a
// large streamed result) run beside them, and a slow-header flood from
// 200 source addresses (1,000 in the long soak) holds the server at its
// connection ceiling. At
// least 95% of the clients' requests succeed (99% in the long soak), at p99 under a second;
// every count a client reads is exactly what it wrote (a request whose
// fate it did not learn may or may not have written); the hostile
// requests get their own codes; health says degraded under the flood.
// make test runs a few rounds per client; make soak-long runs it for
// minutes (QUIVER_SOAK_DURATION).
func TestSoakWithHostileNeighbours(t *testing.T) {
	const clients = 32
	duration := soakDuration(t)
	slow := 200
	if duration > 0 {
		slow = 1000 // the flood, at the default ceiling
	}
	floodtest.NeedFiles(t, 3*slow)
	// The head timeout leaves room for a server goroutine descheduled by
	// the hostile load under -race on two cores; the slow client is cut
	// off all the same, and the flood loses its slots to newcomers long
	// before.
	conns := &floodtest.Gauge{}
	h := startHostile(t, Config{HeaderTimeout: 2 * time.Second, MaxConnections: slow, MaxConnectionsPerClient: slow, Conns: conns},
		engine.Options{MaxMemoryPerQuery: 32 << 20, QueryTimeout: 5 * time.Second, MaxMemory: 512 << 20})
	client := &nethttp.Client{Timeout: 30 * time.Second, Transport: &nethttp.Transport{MaxIdleConnsPerHost: clients}}
	post := func(body string) (int, []byte, error) {
		resp, err := client.Post(h.base+"/api/v1/query", "application/json", strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		return resp.StatusCode, raw, err
	}
	flood := startSlowFlood(t, h.addr, slow, 250*time.Millisecond)
	floodtest.WaitFor(t, 30*time.Second, "the flood to reach the ceiling", func() bool { return conns.N() >= int64(slow*9/10) })
	stop := make(chan struct{})
	var hwg sync.WaitGroup
	hostileCases := []struct {
		body  string
		codes string // the acceptable "status/code" answers, separated by |
	}{
		{queryBody(`RETURN size(reduce(s = "x", x IN range(1, 40) | s + s))`, 0), "507/53200"},
		{queryBody("RETURN 1"+rep("+1", 50000), 0), "400/42000"},
		{queryBody("UNWIND range(1, 60000000) AS x UNWIND range(1, 60000000) AS y RETURN count(*)", 300), "408/40003"},
		// Rows, or its timeout once the clients' nodes are many (the long
		// soak's tens of thousands).
		{queryBody("MATCH p = (a:Soak)-[*]->(b) RETURN p", 300), "200/|408/40003"},
		{queryBody(`UNWIND range(1, 200000) AS x RETURN x, "`+rep("z", 100)+`" AS s`, 0), "200/"},
		{`{"query":`, "400/22000"},
		{queryBody("SET query_timeout = 0", 0), "403/42501"},
	}
	// Each hostile case must get its own answer at least once; at the
	// ceiling any request may be refused (503 08006, when every slot is
	// busy or a connection the server has not read yet: a loaded machine
	// leaves many unread) or find its idle keep-alive connection evicted
	// (EOF), and a hostile client retries as any client.
	answered := make([]atomic.Int64, len(hostileCases))
	for i, hc := range hostileCases {
		hwg.Add(1)
		go func() {
			defer hwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, raw, err := post(hc.body)
				if err != nil {
					// The keep-alive connection the client reused was
					// evicted at the ceiling while idle: the server
					// closed it before reading this request.
					if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
						continue
					}
					t.Errorf("hostile %d: %v", i, err)
					return
				}
				got := fmt.Sprintf("%d/%s", status, errorCode(raw))
				if got == "503/08006" {
					continue
				}
				if !slices.Contains(strings.Split(hc.codes, "|"), got) {
					t.Errorf("hostile %d: %s, want %s (%.200s)", i, got, hc.codes, raw)
					return
				}
				answered[i].Add(1)
			}
		}()
	}
	// A slow client that trickles its head, again and again.
	hwg.Add(1)
	go func() {
		defer hwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, err := net.Dial("tcp", h.addr)
			if err != nil {
				t.Errorf("slow client: %v", err)
				return
			}
			buf := make([]byte, 256)
			for _, b := range []byte("GET /api/v1/health HTTP/1.1\r\nHost: x") {
				if _, err := c.Write([]byte{b}); err != nil {
					break
				}
				_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				if _, err := c.Read(buf); err != nil {
					if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
						break // cut off
					}
				}
			}
			c.Close()
		}
	}()

	lat := &floodtest.Latencies{}
	timed := func(body string) (int, []byte, error) {
		start := time.Now()
		status, raw, err := post(body)
		var failure error
		if err != nil || status != 200 {
			failure = fmt.Errorf("%d %v %.100s", status, err, raw)
		}
		lat.Add(time.Since(start), failure)
		return status, raw, err
	}
	end := time.Now().Add(duration)
	written := make([]int64, clients) // writes acknowledged, per client
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// lo and hi bound the client's nodes: a write that got no
			// answer may have happened.
			var lo, hi int64
			for i := 0; (duration == 0 && i < soakRounds) || (duration > 0 && time.Now().Before(end)); i++ {
				status, _, err := timed(fmt.Sprintf(`{"query":"CREATE (:Soak {c: $c, i: $i})","parameters":{"c":%d,"i":%d}}`, c, i))
				switch {
				case err == nil && status == 200:
					lo++
					hi++
				case err != nil:
					hi++
				}
				status, raw, err := timed(fmt.Sprintf(`{"query":"MATCH (n:Soak {c: $c}) RETURN count(*) AS n","parameters":{"c":%d}}`, c))
				var out struct{ Data []struct{ N int64 } }
				if err != nil || status != 200 {
					continue
				}
				if json.Unmarshal(raw, &out) != nil || len(out.Data) != 1 || out.Data[0].N < lo || out.Data[0].N > hi {
					t.Errorf("client %d read %d: %.200s, want a count from %d to %d", c, i, raw, lo, hi)
					return
				}
				lo, hi = out.Data[0].N, out.Data[0].N
			}
			written[c] = lo
		}()
	}
	wg.Wait()
	status, connections := healthStatus(t, h.base)
	close(stop)
	hwg.Wait()
	flood.Stop()
	// The hostile load and -race on two cores slow everything down; the
	// bound stays well under the flood's head timeout.
	maxP99 := time.Second
	if raceBuild {
		maxP99 = 3 * time.Second
	}
	lat.Check(t, fmt.Sprintf("the normal clients beside the hostile requests and %d slow connections (%d made)", slow, flood.Connects()), 1, soakMinSuccess(duration), maxP99)
	var total int64
	for _, n := range written {
		total += n
	}
	status0, raw, err := post(`{"query":"MATCH (n:Soak) RETURN count(*) AS n, count(DISTINCT n.c) AS c"}`)
	var out struct{ Data []struct{ N, C int64 } }
	if err != nil || status0 != 200 || json.Unmarshal(raw, &out) != nil || len(out.Data) != 1 || out.Data[0].N < total || out.Data[0].C != clients {
		t.Errorf("final count: %d %v %s, want at least %d nodes of %d clients", status0, err, raw, total, clients)
	}
	for i := range answered {
		if answered[i].Load() == 0 {
			t.Errorf("hostile %d never got its answer (%s) beside the clients", i, hostileCases[i].codes)
		}
	}
	if status != serving.CheckDegraded || connections != serving.CheckDegraded {
		t.Errorf("health under the flood: status %q, connections %q; want degraded", status, connections)
	}
	if err := h.db.Check(); err != nil {
		t.Error(err)
	}
	h.healthy(t, "the soak")
}
