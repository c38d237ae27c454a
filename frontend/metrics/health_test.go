package metrics_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/quiverdb/quiver/frontend/metrics"
	"github.com/quiverdb/quiver/frontend/serving"
)

// GET /health answers the contract's short form, {"status":"ok"}, or
// "degraded" while a check is; with ?verbose the detailed form: status,
// version, uptime as a duration string, and the checks storage,
// query_engine and connections. Before the server's health is set, the
// detailed form says starting.
func TestListenerHealthForms(t *testing.T) {
	reg := metrics.NewRegistry()
	defer reg.Close()
	l, base := startListener(t, reg)
	type detailed struct {
		Status, Version, Uptime string
		Checks                  map[string]string
	}
	get := func(path string) (string, detailed) {
		t.Helper()
		status, h, body := request(t, "GET", base+path)
		if status != 200 || h.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %q %s", path, status, h.Get("Content-Type"), body)
		}
		var d detailed
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("%s: %v in %s", path, err, body)
		}
		return body, d
	}
	check := func(d detailed, status, storage, engine, conns string) {
		t.Helper()
		want := map[string]string{"storage": storage, "query_engine": engine, "connections": conns}
		if d.Status != status || len(d.Checks) != 3 || d.Checks["storage"] != storage || d.Checks["query_engine"] != engine || d.Checks["connections"] != conns {
			t.Errorf("detailed health %+v, want status %s and checks %v", d, status, want)
		}
		if _, err := time.ParseDuration(d.Uptime); err != nil {
			t.Errorf("uptime %q is not a duration string: %v", d.Uptime, err)
		}
	}
	if body, _ := get("/health"); body != `{"status":"ok"}` {
		t.Errorf("/health while starting: %s", body)
	}
	_, d := get("/health?verbose")
	check(d, "starting", "starting", "starting", "healthy")

	h := serving.Health{Version: "1.2.3", Uptime: 75*time.Second + 300*time.Millisecond,
		Storage: serving.CheckHealthy, QueryEngine: serving.CheckHealthy, Connections: serving.CheckHealthy}
	l.SetHealth(func() serving.Health { return h })
	if body, _ := get("/health"); body != `{"status":"ok"}` {
		t.Errorf("/health: %s", body)
	}
	body, d := get("/health?verbose=true")
	if want := `{"status":"healthy","version":"1.2.3","uptime":"1m15s","checks":{"storage":"healthy","query_engine":"healthy","connections":"healthy"}}`; body != want {
		t.Errorf("/health?verbose=true:\n got %s\nwant %s", body, want)
	}
	check(d, "healthy", "healthy", "healthy", "healthy")
	if body, _ := get("/health?verbose=false"); body != `{"status":"ok"}` {
		t.Errorf("/health?verbose=false: %s", body)
	}

	h.Connections = serving.CheckDegraded
	if body, _ := get("/health"); body != `{"status":"degraded"}` {
		t.Errorf("/health with the connections degraded: %s", body)
	}
	_, d = get("/health?verbose=1")
	check(d, "degraded", "healthy", "healthy", "degraded")
	if status, _, body := request(t, "GET", base+"/ready"); status != 503 || body != `{"ready":false}` {
		t.Errorf("/ready is not the health's: %d %s", status, body)
	}
}
