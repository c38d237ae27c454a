//go:build !batch2

package http

import (
	"bufio"
	"fmt"
	"net"
	nethttp "net/http"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Normal clients bursting into a server at its ceiling, each request on
// a new connection sent whole at connect, are answered every time: 200,
// or a 503 when no slot could be freed, never a connection closed
// unanswered. Before the eviction grace, a newcomer took the slot of a
// connection the server had just begun to read, before its request
// (already on its way) arrived: the client saw EOF or a reset.
func TestBurstAtTheCeilingIsAnswered(t *testing.T) {
	const clients, rounds = 24, 40
	h := startHostile(t, Config{MaxConnections: 4, MaxConnectionsPerClient: 100}, engine.Options{MaxMemory: -1})
	req := fmt.Sprintf("POST /api/v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 20\r\nConnection: close\r\n\r\n{\"query\":\"RETURN 1\"}", h.addr)
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				outcome := sendWhole(h.addr, req)
				mu.Lock()
				counts[outcome]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("outcomes of %d requests: %v", clients*rounds, counts)
	if counts["200"] == 0 {
		t.Errorf("no request was served: %v", counts)
	}
	for outcome, n := range counts {
		if outcome != "200" && outcome != "503" {
			t.Errorf("%d requests ended %s", n, outcome)
		}
	}
}

// sendWhole sends req on a new connection and says how it ended: the
// status, or how the connection failed.
func sendWhole(addr, req string) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "dial failed: " + err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(req)); err != nil {
		return "closed unanswered (write)"
	}
	resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "closed unanswered"
	}
	resp.Body.Close()
	return fmt.Sprint(resp.StatusCode)
}
