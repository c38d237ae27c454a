package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/frontend/auth"
)

func fetch(t *testing.T, url, host string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// serve answers the console at / on the main port, beside the API, and
// --console=false takes it away (404 as before).
func TestServeConsoleFlag(t *testing.T) {
	on := startConsoleServer(t, nil)
	code, h, body := fetch(t, on.url, "")
	if code != 200 || !strings.Contains(body, "<title>Quiver console</title>") {
		t.Fatalf("GET / answered %d: %.200s", code, body)
	}
	if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("GET / has the CSP %q", h.Get("Content-Security-Policy"))
	}
	if code, _, body := fetch(t, on.url+"api/v1/nothing", ""); code != 404 || !strings.Contains(body, `"02000"`) {
		t.Fatalf("an unknown API path answered %d %s beside the console", code, body)
	}
	// DNS rebinding: a page of a foreign name that resolves to loopback
	// gets nothing, the console included.
	if code, _, _ := fetch(t, on.url, "rebound.example:80"); code != 403 {
		t.Fatalf("GET / with a foreign Host answered %d, want 403", code)
	}

	off := startConsoleServer(t, []string{"--console=false"})
	for _, p := range []string{"", "console/THIRD_PARTY_LICENSES.md"} {
		if code, _, body := fetch(t, off.url+p, ""); code != 404 || !strings.Contains(body, `"02000"`) {
			t.Fatalf("GET /%s with --console=false answered %d %s", p, code, body)
		}
	}
	o, err := parseServe([]string{"-h"})
	if err == nil || !strings.Contains(err.Error(), "-console") {
		t.Fatalf("serve -h does not list --console: %v (%v)", err, o.console)
	}
}

// With --auth-enabled the page loads without credentials (it asks for
// them); the API behind it still refuses a request without them.
func TestServeConsoleWithAuth(t *testing.T) {
	srv := startConsoleServer(t, []string{"--auth-enabled"}, func(c *auth.Config) { c.AdminPassword = "console admin password" })
	if code, _, _ := fetch(t, srv.url, ""); code != 200 {
		t.Fatalf("GET / with authentication on answered %d, want 200", code)
	}
	if code, _, _ := fetch(t, srv.url+"api/v1/status", ""); code != 401 {
		t.Fatalf("GET /api/v1/status without credentials answered %d, want 401", code)
	}
}
