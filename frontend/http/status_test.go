package http

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	nethttp "net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// connStats counts connections as the metrics registry does, and reports
// a fixed query rate.
type connStats struct {
	opened, active atomic.Int64
}

func (c *connStats) Opened()                   { c.opened.Add(1); c.active.Add(1) }
func (c *connStats) Closed()                   { c.active.Add(-1) }
func (c *connStats) ActiveConnections() int64  { return c.active.Load() }
func (c *connStats) QueriesPerSecond() float64 { return 2.5 }

// getOn sends a GET on an open connection and returns the status and
// body of the answer (the connection stays open).
func getOn(t *testing.T, c net.Conn, r *bufio.Reader, path string) (int, []byte) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := nethttp.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// GET /api/v1/status reports every field of the contract, measured: the
// graph's counts, open connections, the data directory's storage.
func TestStatusEndpoint(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stats := &connStats{}
	base := startServer(t, Config{Conns: stats, Stats: stats, NodeID: "node-1", DataDir: dir}, db)
	addr := strings.TrimPrefix(base, "http://")
	if status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"CREATE (:A)-[:R]->(:B), (:A)-[:R]->(:B), (:C)"}`); status != 200 {
		t.Fatalf("create: %d %v", status, out)
	}
	// The client's keep-alive connection closes: none is open now.
	nethttp.DefaultClient.CloseIdleConnections()
	waitActive(t, stats, 0)

	// Three open connections besides the one asking.
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if status, _ := getOn(t, c, bufio.NewReader(c), "/api/v1/health"); status != 200 {
			t.Fatalf("health: %d", status)
		}
		conns = append(conns, c)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	status, body := getOn(t, c, r, "/api/v1/status")
	if status != 200 {
		t.Fatalf("status: %d %s", status, body)
	}
	var st struct {
		Version       *string `json:"version"`
		UptimeSeconds *int64  `json:"uptime_seconds"`
		NodeID        string  `json:"node_id"`
		Role          string  `json:"role"`
		Statistics    struct {
			TotalNodes         *int64   `json:"total_nodes"`
			TotalRelationships *int64   `json:"total_relationships"`
			QueriesPerSecond   *float64 `json:"queries_per_second"`
			ActiveConnections  *int64   `json:"active_connections"`
		} `json:"statistics"`
		Storage struct {
			TotalBytes *int64 `json:"total_bytes"`
			UsedBytes  *int64 `json:"used_bytes"`
			FreeBytes  *int64 `json:"free_bytes"`
		} `json:"storage"`
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	s := st.Statistics
	switch {
	case st.Version == nil || *st.Version != "test", st.UptimeSeconds == nil || *st.UptimeSeconds < 0:
		t.Fatalf("version, uptime: %s", body)
	case st.NodeID != "node-1", st.Role != "primary":
		t.Fatalf("node_id, role: %s", body)
	case s.TotalNodes == nil || *s.TotalNodes != 5, s.TotalRelationships == nil || *s.TotalRelationships != 2:
		t.Fatalf("counts: %s", body)
	case s.QueriesPerSecond == nil || *s.QueriesPerSecond != 2.5:
		t.Fatalf("queries_per_second: %s", body)
	case s.ActiveConnections == nil || *s.ActiveConnections != 4:
		t.Fatalf("active_connections (want 4: 3 idle and this one): %s", body)
	}
	g := st.Storage
	if g.TotalBytes == nil || g.UsedBytes == nil || g.FreeBytes == nil ||
		*g.TotalBytes <= 0 || *g.UsedBytes <= 0 || *g.FreeBytes <= 0 || *g.FreeBytes > *g.TotalBytes {
		t.Fatalf("storage: %s", body)
	}
	if used := dirBytes(dir); *g.UsedBytes > used+1<<20 || *g.UsedBytes < used/2 {
		t.Fatalf("used_bytes %d, the data directory holds %d", *g.UsedBytes, used)
	}

	// Closed connections stop counting.
	for _, c := range conns {
		c.Close()
	}
	waitActive(t, stats, 1)
	if stats.opened.Load() != 5 {
		t.Fatalf("%d connections opened, want 5", stats.opened.Load())
	}
}

// waitActive waits until the server counts n open connections: it sees a
// client's close a moment later (polled, with a bound).
func waitActive(t *testing.T, stats *connStats, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for stats.ActiveConnections() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections counted, want %d", stats.ActiveConnections(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// GET /api/v1/metrics writes Config.Metrics's exposition; without one it
// is a 404. The health check reports replication "ok" for a primary.
func TestMetricsEndpointAndHealth(t *testing.T) {
	exposition := "# HELP quiver_x_total X.\n# TYPE quiver_x_total counter\nquiver_x_total 3\n"
	db := openDB(t, engine.Options{})
	base := startServer(t, Config{Metrics: func(w io.Writer) { io.WriteString(w, exposition) }}, db)
	resp, err := nethttp.Get(base + "/api/v1/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != exposition || resp.Header.Get("Content-Type") != MetricsContentType {
		t.Fatalf("metrics: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if status, out, _ := call(t, "POST", base+"/api/v1/metrics", "{}"); status != 405 {
		t.Fatalf("POST metrics: %d %v", status, out)
	}
	status, out, _ := call(t, "GET", base+"/api/v1/health", "")
	if checks := out["checks"].(map[string]any); status != 200 || checks["replication"] != "ok" {
		t.Fatalf("health: %d %v", status, out)
	}

	bare := startServer(t, Config{}, db)
	if status, out, _ := call(t, "GET", bare+"/api/v1/metrics", ""); status != 404 || jsonString(out["error"].(map[string]any)["code"]) != `"02000"` {
		t.Fatalf("metrics without a registry: %d %v", status, out)
	}
	status, out, _ = call(t, "GET", bare+"/api/v1/status", "")
	stats := out["statistics"].(map[string]any)
	if status != 200 || jsonString(stats["active_connections"]) != "0" || jsonString(out["storage"]) != `{"free_bytes":0,"total_bytes":0,"used_bytes":0}` {
		t.Fatalf("status without a registry or data directory: %d %v", status, out)
	}
}
