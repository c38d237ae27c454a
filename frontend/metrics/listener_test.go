package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/frontend/metrics"
)

// startListener serves a metrics listener on a loopback port.
func startListener(t *testing.T, reg *metrics.Registry) (*metrics.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := metrics.NewListener(reg, nil)
	done := make(chan error, 1)
	go func() { done <- l.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := l.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return l, "http://" + ln.Addr().String()
}

func request(t *testing.T, method, url string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// The listener's four endpoints, its 404 and 405 in the contract's error
// shape, and readiness that follows SetReady.
func TestListenerEndpoints(t *testing.T) {
	reg := metrics.NewRegistry()
	defer reg.Close()
	reg.StatementEnded(time.Millisecond, nil)
	l, base := startListener(t, reg)

	status, h, body := request(t, "GET", base+"/metrics")
	if status != 200 || h.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("/metrics: %d %q", status, h.Get("Content-Type"))
	}
	e := parse(t, []byte(body))
	if len(e.families) != 10 || e.get(t, "quiver_queries_total") != 1 {
		t.Fatalf("/metrics body:\n%s", body)
	}
	promtoolCheck(t, []byte(body))

	for path, want := range map[string]string{"/health": `{"status":"ok"}`, "/live": `{"alive":true}`} {
		status, h, body := request(t, "GET", base+path)
		if status != 200 || body != want || h.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %q %q", path, status, h.Get("Content-Type"), body)
		}
	}

	if status, _, body := request(t, "GET", base+"/ready"); status != 503 || body != `{"ready":false}` {
		t.Fatalf("/ready before SetReady: %d %s", status, body)
	}
	l.SetReady(true)
	if status, _, body := request(t, "GET", base+"/ready"); status != 200 || body != `{"ready":true}` {
		t.Fatalf("/ready after SetReady: %d %s", status, body)
	}
	l.SetReady(false)
	if status, _, body := request(t, "GET", base+"/ready"); status != 503 || body != `{"ready":false}` {
		t.Fatalf("/ready after SetReady(false): %d %s", status, body)
	}

	if status, _, body := request(t, "HEAD", base+"/health"); status != 200 || body != "" {
		t.Fatalf("HEAD /health: %d %q", status, body)
	}

	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/nope", 404, "02000"},
		{"GET", "/api/v1/query", 404, "02000"},
		{"GET", "/metrics/", 404, "02000"},
		{"POST", "/metrics", 405, "22000"},
		{"DELETE", "/health", 405, "22000"},
		{"PUT", "/ready", 405, "22000"},
	} {
		status, h, body := request(t, c.method, base+c.path)
		var got struct {
			Error struct{ Code, Category, Message string }
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("%s %s: body %q: %v", c.method, c.path, body, err)
		}
		if status != c.status || got.Error.Code != c.code || got.Error.Category == "" || got.Error.Message == "" {
			t.Fatalf("%s %s: %d %s", c.method, c.path, status, body)
		}
		if c.status == 405 && h.Get("Allow") != "GET, HEAD" {
			t.Fatalf("%s %s: Allow %q", c.method, c.path, h.Get("Allow"))
		}
	}
}

// A request too large or malformed gets an answer, not a hang, and the
// listener goes on serving.
func TestListenerHostileRequests(t *testing.T) {
	reg := metrics.NewRegistry()
	defer reg.Close()
	_, base := startListener(t, reg)
	addr := strings.TrimPrefix(base, "http://")
	for _, raw := range []string{
		"GET /" + strings.Repeat("a", 20000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"GARBAGE\r\n\r\n",
		"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(c, 1<<16))
		c.Close()
		if !strings.HasPrefix(string(b), "HTTP/1.1 4") {
			t.Fatalf("%.40q: answer %.80q", raw, b)
		}
	}
	if status, _, _ := request(t, "GET", base+"/live"); status != 200 {
		t.Fatalf("/live after hostile requests: %d", status)
	}
}

// TestListenerShutdownBeforeServe: a Shutdown that comes before Serve
// reached fasthttp (a signal right at start) still makes Serve return.
func TestListenerShutdownBeforeServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := metrics.NewListener(metrics.NewRegistry(), nil)
	if err := l.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.Serve(ln) }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after Shutdown")
	}
}
