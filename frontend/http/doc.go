// Package http serves Quiver's HTTP API over fasthttp: POST /api/v1/query
// (and /explain, /profile), the explicit transactions of
// /api/v1/transaction/… (transaction.go), POST /api/v1/batch (batch.go),
// GET /api/v1/health and the experimental POST /query. It decodes
// requests, calls the engine, and writes results as JSON straight from
// result batches into pooled buffers. With authentication on, requests
// present credentials and their statements run as the user (auth.go;
// the token endpoints are in auth_endpoints.go). Every request passes
// the cross-site rules (crosssite.go) and its client's rate limit
// (ratelimit.go), and may carry a W3C traceparent whose trace id goes on
// its queries' log lines (tracing.go).
//
// It knows the engine's public API only (engine, vector, and the auth
// Service's) and is the one place where engine errors become HTTP
// statuses and error bodies.
package http
