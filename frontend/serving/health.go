package serving

import "time"

// The values of a health check.
const (
	// CheckHealthy: the part works.
	CheckHealthy = "healthy"
	// CheckDegraded: the part works, but not as it should: the server
	// still answers, so a probe must not restart it for this.
	CheckDegraded = "degraded"
	// CheckStarting: the part is not up yet (the database recovers).
	CheckStarting = "starting"
)

// Health is the server's health as the health endpoints report it
// (docs/operations.md, "Health and readiness"): the interface contract's
// detailed form (status, version, uptime, checks storage, query_engine
// and connections) on the metrics listener, and the degraded state in
// the short forms.
type Health struct {
	Version string
	Uptime  time.Duration
	// Storage is degraded when the data directory cannot be reached or
	// its filesystem has no room left for the server's writes.
	Storage string
	// QueryEngine is healthy once the database is open and answering,
	// starting while it recovers.
	QueryEngine string
	// Connections is degraded while a connection ceiling is being
	// reached (Saturation).
	Connections string
}

// Status sums the checks up: starting while any is starting, degraded
// while any is degraded, healthy when all are.
func (h Health) Status() string {
	status := CheckHealthy
	for _, c := range []string{h.Storage, h.QueryEngine, h.Connections} {
		switch c {
		case CheckStarting:
			return CheckStarting
		case CheckDegraded:
			status = CheckDegraded
		}
	}
	return status
}
