package http

import (
	"io"
	nethttp "net/http"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Every /api/v1/ path answers a preflight from an allowed origin with the
// contract's CORS headers, those of endpoints that are not routes of this
// server included; a foreign origin gets 403 on every one of them.
func TestPreflightEveryPath(t *testing.T) {
	base := startServer(t, Config{AllowedOrigins: []string{"https://app.example"}}, openDB(t, engine.Options{}))
	paths := []string{
		"/api/v1/transaction/0123abcd/query", "/api/v1/transaction/0123abcd/commit", "/api/v1/transaction/0123abcd/rollback",
		"/api/v1/metrics", "/api/v1/status", "/api/v1/stream", "/api/v1/auth/token", "/api/v1/not-an-endpoint",
	}
	for p := range routes {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	preflight := func(path, origin string) (*nethttp.Response, string) {
		req, _ := nethttp.NewRequest("OPTIONS", base+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, string(raw)
	}
	for _, path := range paths {
		for _, origin := range []string{"https://app.example", "http://localhost:5173"} {
			resp, raw := preflight(path, origin)
			h := resp.Header
			if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != origin ||
				h.Get("Access-Control-Allow-Methods") != "GET, POST, PUT, DELETE, OPTIONS" ||
				h.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" ||
				h.Get("Access-Control-Max-Age") != "86400" || raw != "" {
				t.Errorf("preflight %s from %s: %d %v %q", path, origin, resp.StatusCode, h, raw)
			}
			if _, known := lookupRoute(path); known != (h.Get("Allow") != "") {
				t.Errorf("preflight %s: Allow %q", path, h.Get("Allow"))
			}
		}
		resp, raw := preflight(path, "https://evil.example")
		if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" || errorCode([]byte(raw)) != "42501" {
			t.Errorf("foreign preflight %s: %d %v %s", path, resp.StatusCode, resp.Header, raw)
		}
	}
	// Outside the API, an unknown path is a 404 as any request.
	if resp, raw := preflight("/elsewhere", "https://app.example"); resp.StatusCode != 404 || errorCode([]byte(raw)) != "02000" {
		t.Errorf("preflight outside the API: %d %s", resp.StatusCode, raw)
	}
	// An allowed page may read the rate-limit and trace headers.
	req, _ := nethttp.NewRequest("POST", base+"/api/v1/query", strings.NewReader(`{"query":"RETURN 1 AS x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://app.example")
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	expose := resp.Header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "traceparent"} {
		if !strings.Contains(expose, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", expose, h)
		}
	}
}
