// Package metrics owns Quiver's Prometheus metrics and the separate
// metrics listener.
//
// The Registry holds exactly the ten metrics of the interface contract
// (quiver_queries_total … quiver_memory_bytes, no labels), each written
// with # HELP and # TYPE lines and nothing else: no go_* or process_*
// metrics. Its counters are driven by real events: it is the engine's
// Observer (statements and transactions that end, engine/observe.go) and
// every frontend tells it of the connections it opens and closes
// (Opened, Closed). Its gauges read live values when scraped.
//
// The Listener serves GET /metrics, /health, /ready and /live on the
// address QUIVER_METRICS_PORT and QUIVER_METRICS_BIND name (Env). The
// main listener's GET /api/v1/metrics writes the same exposition through
// Registry.WritePrometheus, without importing this package. With
// authentication on, the Listener's /metrics needs credentials, checked
// by frontend/auth's Service (auth.go); the probes stay open.
//
// It imports the engine only for its Observer types, counts and errors;
// it runs no queries. docs/operations.md documents the metrics and endpoints.
package metrics
