package serving

import (
	"testing"
	"time"
)

// A hit keeps the connections saturated for the window, then no longer;
// a nil Saturation records nothing.
func TestSaturationWindow(t *testing.T) {
	s := &Saturation{Window: 50 * time.Millisecond}
	if s.Saturated() {
		t.Fatal("saturated before any hit")
	}
	s.Hit()
	if !s.Saturated() || s.Hits() != 1 {
		t.Fatalf("after a hit: saturated %v, hits %d", s.Saturated(), s.Hits())
	}
	for deadline := time.Now().Add(5 * time.Second); s.Saturated(); {
		if time.Now().After(deadline) {
			t.Fatal("still saturated long after the window")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var none *Saturation
	none.Hit()
	if none.Saturated() || none.Hits() != 0 {
		t.Error("a nil Saturation recorded a hit")
	}
}

// The status sums the checks up: starting first, then degraded.
func TestHealthStatus(t *testing.T) {
	for _, c := range []struct {
		storage, engine, conns, want string
	}{
		{CheckHealthy, CheckHealthy, CheckHealthy, CheckHealthy},
		{CheckHealthy, CheckHealthy, CheckDegraded, CheckDegraded},
		{CheckDegraded, CheckHealthy, CheckHealthy, CheckDegraded},
		{CheckStarting, CheckStarting, CheckDegraded, CheckStarting},
		{CheckHealthy, CheckStarting, CheckHealthy, CheckStarting},
	} {
		h := Health{Storage: c.storage, QueryEngine: c.engine, Connections: c.conns}
		if got := h.Status(); got != c.want {
			t.Errorf("%+v: status %s, want %s", h, got, c.want)
		}
	}
}
