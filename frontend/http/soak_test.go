package http

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// A bounded soak: 32 clients write and read their own nodes while
// hostile requests (memory bombs, deep texts, runaway queries, a slow
// client, a large streamed result) run beside them. Every ordinary
// request succeeds, every count is exact, and the hostile ones get their
// own codes.
func TestSoakWithHostileNeighbours(t *testing.T) {
	const clients, rounds = 32, 8
	// The head timeout leaves room for a server goroutine descheduled by the
	// hostile load under -race on two cores; the slow client is cut off all
	// the same.
	h := startHostile(t, Config{HeaderTimeout: 2 * time.Second},
		engine.Options{MaxMemoryPerQuery: 32 << 20, QueryTimeout: 5 * time.Second, MaxMemory: 512 << 20})
	client := &nethttp.Client{Transport: &nethttp.Transport{MaxIdleConnsPerHost: clients}}
	post := func(body string) (int, []byte, error) {
		resp, err := client.Post(h.base+"/api/v1/query", "application/json", strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		return resp.StatusCode, raw, err
	}
	stop := make(chan struct{})
	var hostileRuns atomic.Int64
	var hwg sync.WaitGroup
	hostileCases := []struct {
		body  string
		codes string // acceptable "status/code" answers
	}{
		{queryBody(`RETURN size(reduce(s = "x", x IN range(1, 40) | s + s))`, 0), "507/53200"},
		{queryBody("RETURN 1"+rep("+1", 50000), 0), "400/42000"},
		{queryBody("UNWIND range(1, 60000000) AS x UNWIND range(1, 60000000) AS y RETURN count(*)", 300), "408/40003"},
		{queryBody("MATCH p = (a:Soak)-[*]->(b) RETURN p", 300), "200/"},
		{queryBody(`UNWIND range(1, 200000) AS x RETURN x, "`+rep("z", 100)+`" AS s`, 0), "200/"},
		{`{"query":`, "400/22000"},
		{queryBody("SET query_timeout = 0", 0), "403/42501"},
	}
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
					t.Errorf("hostile %d: %v", i, err)
					return
				}
				if got := fmt.Sprintf("%d/%s", status, errorCode(raw)); got != hc.codes {
					t.Errorf("hostile %d: %s, want %s (%.200s)", i, got, hc.codes, raw)
					return
				}
				hostileRuns.Add(1)
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

	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				status, raw, err := post(fmt.Sprintf(`{"query":"CREATE (:Soak {c: $c, i: $i})","parameters":{"c":%d,"i":%d}}`, c, i))
				if err != nil || status != 200 {
					t.Errorf("client %d write %d: %d %v %.200s", c, i, status, err, raw)
					return
				}
				status, raw, err = post(fmt.Sprintf(`{"query":"MATCH (n:Soak {c: $c}) RETURN count(*) AS n","parameters":{"c":%d}}`, c))
				var out struct{ Data []struct{ N int64 } }
				if err != nil || status != 200 || json.Unmarshal(raw, &out) != nil || len(out.Data) != 1 || out.Data[0].N != int64(i+1) {
					t.Errorf("client %d read %d: %d %v %.200s, want count %d", c, i, status, err, raw, i+1)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	hwg.Wait()
	status, raw, err := post(`{"query":"MATCH (n:Soak) RETURN count(*) AS n, count(DISTINCT n.c) AS c"}`)
	if err != nil || status != 200 || !strings.Contains(string(raw), fmt.Sprintf(`"n":%d,"c":%d`, clients*rounds, clients)) {
		t.Errorf("final count: %d %v %s", status, err, raw)
	}
	if hostileRuns.Load() < int64(len(hostileCases)) {
		t.Errorf("only %d hostile requests ran beside the clients", hostileRuns.Load())
	}
	if err := h.db.Check(); err != nil {
		t.Error(err)
	}
	h.healthy(t, "the soak")
}
