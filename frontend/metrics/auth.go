package metrics

import (
	"errors"
	"math"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// With authentication on, GET /metrics needs credentials, like the HTTP
// API: the exposition names the server's load, sizes and clients, which
// is not for anyone who can reach the port. Any authenticated principal
// may scrape (Bearer, X-API-Key or Basic); no role is needed, so that a
// scraper can hold a reader's key. /health, /ready and /live stay open:
// probes carry no credentials, and they say nothing but up or down.

// RequireAuth makes GET /metrics answer 503 until SetAuth: the listener
// starts before the database opens (so that /live answers during
// recovery), and the Service that checks credentials needs the database.
// Call it before Serve.
func (l *Listener) RequireAuth() { l.requireAuth.Store(true) }

// SetAuth makes GET /metrics require credentials when a is enabled.
func (l *Listener) SetAuth(a *auth.Service) { l.auth.Store(a) }

// challenge is the WWW-Authenticate of a 401: the schemes a scraper may
// use.
const challenge = `Bearer realm="quiver", Basic realm="quiver", charset="UTF-8"`

// codeRateLimit is the HTTP API's symbolic code of a 429.
const codeRateLimit = "RATE_LIMIT_EXCEEDED"

// authenticated checks the request's credentials when authentication is
// on; false when the refusal was written.
func (l *Listener) authenticated(ctx *fasthttp.RequestCtx) bool {
	a := l.auth.Load()
	if a == nil && l.requireAuth.Load() {
		ctx.Response.Header.Set("Retry-After", "5")
		writeError(ctx, fasthttp.StatusServiceUnavailable, engine.CodeUnavailable, engine.CatUnavailable,
			"the server is starting: /metrics answers once authentication is ready")
		return false
	}
	if a == nil || !a.Enabled() {
		return true
	}
	creds := auth.Credentials{
		APIKey:        string(ctx.Request.Header.Peek("X-API-Key")),
		Authorization: string(ctx.Request.Header.Peek("Authorization")),
		Address:       ctx.RemoteAddr().String(),
		Protocol:      "metrics",
	}
	_, err := a.Authenticate(ctx, creds)
	if err == nil {
		return true
	}
	var le *auth.LimitError
	if errors.As(err, &le) {
		secs := int64(1)
		if le.RetryAfter > 0 {
			secs = int64(math.Ceil(le.RetryAfter.Seconds()))
		}
		ctx.Response.Header.Set("Retry-After", strconv.FormatInt(secs, 10))
		writeRateLimit(ctx, le.Message, secs)
		return false
	}
	msg := "authentication is required: send Authorization (Bearer or Basic) or X-API-Key"
	if e, ok := engine.AsError(err); ok && e.Code == engine.CodeAuth {
		msg = e.Message
	} else {
		l.log.Error("metrics authentication failed", "error", err)
	}
	ctx.Response.Header.Set("WWW-Authenticate", challenge)
	writeError(ctx, fasthttp.StatusUnauthorized, engine.CodeAuth, engine.CatAuth, msg)
	return false
}

// writeRateLimit writes the contract's 429 body: a symbolic code, no
// category, and retry_after in seconds.
func writeRateLimit(ctx *fasthttp.RequestCtx, message string, retryAfter int64) {
	writeErrorBody(ctx, fasthttp.StatusTooManyRequests, codeRateLimit, "", message, retryAfter)
}
