package http

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
)

// GET /api/v1/health keeps the contract's API form and says what is
// degraded: the storage when the data directory is gone, the
// connections after a ceiling was reached; Health gives the same checks
// to the metrics listener.
func TestHealthChecks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sat := &serving.Saturation{}
	db := openDB(t, engine.Options{MaxMemory: -1})
	srv := New(Config{DataDir: dir, Saturation: sat, Version: "v9"}, db)
	base := startServer(t, Config{DataDir: dir, Saturation: sat}, db)
	if h := srv.Health(); h.Status() != serving.CheckHealthy || h.Version != "v9" || h.Storage != serving.CheckHealthy ||
		h.QueryEngine != serving.CheckHealthy || h.Connections != serving.CheckHealthy {
		t.Errorf("Health: %+v", h)
	}
	health := func() map[string]any {
		t.Helper()
		status, out, _ := call(t, "GET", base+"/api/v1/health", "")
		if status != 200 {
			t.Fatalf("health: %d %v", status, out)
		}
		return out
	}
	checks := func(out map[string]any) map[string]any { m, _ := out["checks"].(map[string]any); return m }
	out := health()
	if c := checks(out); out["status"] != "healthy" || c["database"] != "ok" || c["storage"] != "ok" || c["replication"] != "ok" || c["connections"] != "ok" {
		t.Errorf("healthy: %v", out)
	}
	sat.Hit()
	out = health()
	if c := checks(out); out["status"] != "degraded" || c["connections"] != "degraded" || c["storage"] != "ok" {
		t.Errorf("after a ceiling was reached: %v", out)
	}
	if h := srv.Health(); h.Connections != serving.CheckDegraded || h.Status() != serving.CheckDegraded {
		t.Errorf("Health after a ceiling was reached: %+v", h)
	}
	sat2 := &serving.Saturation{}
	base = startServer(t, Config{DataDir: dir, Saturation: sat2}, db)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	out = health()
	if c := checks(out); out["status"] != "degraded" || c["storage"] != "degraded" || c["connections"] != "ok" {
		t.Errorf("with the data directory gone: %v", out)
	}
}
