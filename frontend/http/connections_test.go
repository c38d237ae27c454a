package http

import (
	"bufio"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// rawRequest sends raw bytes on a new connection and reads one response.
func rawRequest(t *testing.T, addr, req string) *nethttp.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer to %.40q: %v", req, err)
	}
	return resp
}

// A client that sends its request head a byte at a time, or nothing at
// all, is cut off at the header timeout; it holds its connection no
// longer, and the server answers others meanwhile.
func TestSlowClientsAreCutOff(t *testing.T) {
	h := startHostile(t, Config{HeaderTimeout: 300 * time.Millisecond}, engine.Options{MaxMemory: -1})
	slow := func(send bool) time.Duration {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		buf := make([]byte, 1)
		for i := 0; ; i++ {
			if send {
				req := "GET /api/v1/health HTTP/1.1\r\n"
				if _, err := c.Write([]byte{req[i%len(req)]}); err != nil {
					return time.Since(start)
				}
			}
			_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if _, err := c.Read(buf); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					if time.Since(start) > 5*time.Second {
						t.Fatal("the slow connection was never closed")
					}
					continue // not closed yet: send the next byte
				}
				return time.Since(start)
			}
			// An answer (408) is read; the close follows.
			_, _ = io.Copy(io.Discard, c)
			return time.Since(start)
		}
	}
	for _, c := range []struct {
		name string
		send bool
	}{{"trickling", true}, {"silent", false}} {
		if took := slow(c.send); took < 250*time.Millisecond || took > 2*time.Second {
			t.Errorf("%s client cut off after %v, want about 300ms", c.name, took)
		}
	}
	h.healthy(t, "slow clients")
}

// Connections beyond the server's ceiling or one client's are answered
// by the listener: 503 for requests, the real answer for health, which
// says the connections are degraded. Freed slots serve again.
func TestConnectionCeilings(t *testing.T) {
	h := startHostile(t, Config{MaxConnections: 20, MaxConnectionsPerClient: 20}, engine.Options{MaxMemory: -1})
	// Twenty idle connections, each counted once the server saw a
	// request on it (a keep-alive health check).
	var held []net.Conn
	for i := 0; i < 20; i++ {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		fmt.Fprintf(c, "GET /api/v1/health HTTP/1.1\r\nHost: %s\r\n\r\n", h.addr)
		resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	resp := rawRequest(t, h.addr, fmt.Sprintf("POST /api/v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"query\":\"RETURN 1\"}", h.addr))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || errorCode(body) != "08006" {
		t.Errorf("over the ceiling: %d %s", resp.StatusCode, body)
	}
	resp = rawRequest(t, h.addr, fmt.Sprintf("GET /api/v1/health HTTP/1.1\r\nHost: %s\r\n\r\n", h.addr))
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"degraded"`) || !strings.Contains(string(body), `"connections":"degraded"`) {
		t.Errorf("health over the ceiling: %d %s", resp.StatusCode, body)
	}
	for _, c := range held {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := rawRequest(t, h.addr, fmt.Sprintf("POST /api/v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"query\":\"RETURN 1\"}", h.addr))
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot after the held connections closed: %d", resp.StatusCode)
		}
	}
}

// One client address cannot take the slots of all: past its own ceiling
// its connections are refused while the server has room.
func TestConnectionsPerClient(t *testing.T) {
	h := startHostile(t, Config{MaxConnections: 1000, MaxConnectionsPerClient: 3}, engine.Options{MaxMemory: -1})
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		fmt.Fprintf(c, "GET /api/v1/health HTTP/1.1\r\nHost: %s\r\n\r\n", h.addr)
		if resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	resp := rawRequest(t, h.addr, fmt.Sprintf("GET /api/v1/nothing HTTP/1.1\r\nHost: %s\r\n\r\n", h.addr))
	if resp.StatusCode != 503 {
		t.Errorf("a fourth connection from the same address: %d, want 503", resp.StatusCode)
	}
}

// Oversized heads get 431, undeclared bodies 415, and neither reaches
// the engine.
func TestHeadAndBodyChecks(t *testing.T) {
	h := startHostile(t, Config{}, engine.Options{MaxMemory: -1})
	big := fmt.Sprintf("GET /api/v1/health HTTP/1.1\r\nHost: %s\r\nX-Filler: %s\r\n\r\n", h.addr, strings.Repeat("x", 2*DefaultMaxHeaderBytes))
	resp := rawRequest(t, h.addr, big)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 431 || errorCode(body) != "22000" {
		t.Errorf("oversized head: %d %s", resp.StatusCode, body)
	}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "", "application/jsonx"} {
		req, _ := nethttp.NewRequest("POST", h.base+"/api/v1/query", strings.NewReader(`{"query":"CREATE (:Smuggled)"}`))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 415 || errorCode(body) != "22000" {
			t.Errorf("Content-Type %q: %d %s", ct, resp.StatusCode, body)
		}
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		resp, err := nethttp.Post(h.base+"/api/v1/query", ct, strings.NewReader(`{"query":"RETURN 1"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Content-Type %q: %d", ct, resp.StatusCode)
		}
	}
	if _, raw := h.post(t, queryBody("MATCH (n:Smuggled) RETURN count(*) AS n", 0)); !strings.Contains(string(raw), `"n":0`) {
		t.Errorf("a refused body wrote: %s", raw)
	}
}

// Cross-site requests: a foreign Origin is refused while authentication
// is off (the write does not happen), loopback and listed origins pass
// with CORS headers, and preflights are answered accordingly. A Host
// naming another machine is refused on a loopback listener.
func TestCrossSiteRequests(t *testing.T) {
	h := startHostile(t, Config{AllowedOrigins: []string{"https://app.example"}}, engine.Options{MaxMemory: -1})
	do := func(method, origin, host, body string, hdr map[string]string) (*nethttp.Response, []byte) {
		req, _ := nethttp.NewRequest(method, h.base+"/api/v1/query", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if host != "" {
			req.Host = host
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, raw
	}
	write := `{"query":"CREATE (:CSRF)"}`
	if resp, raw := do("POST", "http://evil.example", "", write, nil); resp.StatusCode != 403 || errorCode(raw) != "42501" {
		t.Errorf("foreign origin: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := do("POST", "", "attacker.example", write, nil); resp.StatusCode != 403 || errorCode(raw) != "42501" {
		t.Errorf("foreign Host: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := do("POST", "", "attacker.example:"+strings.Split(h.addr, ":")[1], write, nil); resp.StatusCode != 403 {
		t.Errorf("foreign Host with the port: %d %s", resp.StatusCode, raw)
	}
	for _, origin := range []string{"http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]", "https://app.example", h.base} {
		resp, raw := do("POST", origin, "", `{"query":"RETURN 1 AS x"}`, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("origin %s: %d %s, Access-Control-Allow-Origin %q", origin, resp.StatusCode, raw, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	for _, host := range []string{"localhost", "localhost:3141", "127.0.0.1", "[::1]:99"} {
		if resp, raw := do("POST", "", host, `{"query":"RETURN 1"}`, nil); resp.StatusCode != 200 {
			t.Errorf("Host %s: %d %s", host, resp.StatusCode, raw)
		}
	}
	pre := map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
	resp, _ := do("OPTIONS", "https://app.example", "", "", pre)
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		resp.Header.Get("Access-Control-Allow-Methods") != "GET, POST, PUT, DELETE, OPTIONS" ||
		resp.Header.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" || resp.Header.Get("Access-Control-Max-Age") != "86400" {
		t.Errorf("allowed preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, raw := do("OPTIONS", "http://evil.example", "", "", pre); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %d %s", resp.StatusCode, raw)
	}
	if _, raw := h.post(t, queryBody("MATCH (n:CSRF) RETURN count(*) AS n", 0)); !strings.Contains(string(raw), `"n":0`) {
		t.Errorf("a refused cross-site request wrote: %s", raw)
	}
	// With authentication on, credentials guard the API: any origin is
	// echoed, as the contract's CORS says.
	open := newOriginPolicy(nil, true)
	if !open.allows("http://evil.example", "localhost") {
		t.Error("with authentication on, an origin was refused")
	}
}

// Idle keep-alive connections cannot lock new clients out: at the
// ceiling, one idle for a second gives its slot to a newcomer, and the
// idle client finds its connection closed.
func TestIdleConnectionsGiveWay(t *testing.T) {
	h := startHostile(t, Config{MaxConnections: 5, MaxConnectionsPerClient: 5}, engine.Options{MaxMemory: -1})
	var held []net.Conn
	for i := 0; i < 5; i++ {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
		fmt.Fprintf(c, "GET /api/v1/health HTTP/1.1\r\nHost: %s\r\n\r\n", h.addr)
		resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v", i, err)
		}
		resp.Body.Close()
	}
	idle := time.Now()
	deadline := idle.Add(10 * time.Second)
	for {
		status := statusOnce(t, h.addr, fmt.Sprintf("POST /api/v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"query\":\"RETURN 1\"}", h.addr))
		if status == 200 {
			break
		}
		if status != 503 || time.Now().After(deadline) {
			t.Fatalf("at the ceiling: %d", status)
		}
	}
	// The server saw them idle a moment before this test did.
	if waited := time.Since(idle); waited < reclaimAfter-100*time.Millisecond {
		t.Errorf("a slot was freed after %v, before the connections were idle for %v", waited, reclaimAfter)
	}
	closed := 0
	for _, c := range held {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed < 1 {
		t.Error("no idle connection gave its slot")
	}
}

// statusOnce sends one request on a new connection, reads the status and
// closes the connection.
func statusOnce(t *testing.T, addr, req string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
