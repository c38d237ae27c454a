package http

// The slow-header flood the connection tests and the soak run beside
// normal clients, and what they read of the server meanwhile.

import (
	"encoding/json"
	nethttp "net/http"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/floodtest"
)

// slowHead is what a flood connection sends: the start of a real request,
// then a header value that never ends.
const slowHead = "POST /api/v1/query HTTP/1.1\r\nHost: quiver\r\nContent-Type: application/json\r\nX-Slow: "

// startSlowFlood starts the slow-header attack of the issue from many
// loopback source addresses: n connections, each from its own address
// (127.3.x.y), send a request head one byte per interval that never ends,
// and reconnect when the server closes them, until Stop. Tests and the
// soak run it beside normal clients.
func startSlowFlood(t testing.TB, addr string, n int, interval time.Duration) *floodtest.Flood {
	t.Helper()
	return floodtest.Start(t, floodtest.Config{Addr: addr, Conns: n, Source: floodtest.Loopback(3),
		Payload: slowHead, Filler: 'a', Interval: interval})
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
