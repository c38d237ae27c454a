package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/frontend/serving"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// Listener is the separate metrics listener: GET /metrics (the
// Registry's exposition), /health (health.go), /ready and /live. Start
// it before the database opens, so that a monitor sees the process alive
// but not ready while recovery runs; SetReady(true) once the database is
// open and the query listener accepts connections, and SetHealth.
type Listener struct {
	reg   *Registry
	log   *slog.Logger
	srv   *fasthttp.Server
	ready atomic.Bool
	// auth, once set and enabled, guards GET /metrics; requireAuth
	// refuses it until then (auth.go).
	auth        atomic.Pointer[auth.Service]
	requireAuth atomic.Bool
	// serving makes Shutdown end Serve however the two race.
	serving serving.Guard
	// healthOf gives the server's health (SetHealth); start is when the
	// listener was made, the uptime until then.
	healthOf atomic.Pointer[func() serving.Health]
	start    time.Time
}

// Bounds of the listener's connections: it serves small GETs only.
const (
	listenerReadTimeout  = 10 * time.Second
	listenerWriteTimeout = 30 * time.Second
	listenerIdleTimeout  = 60 * time.Second
	listenerHeaderBytes  = 8 << 10
	// listenerConcurrency caps the connections served at once: scrapers
	// and probes are few, and a flood must not cost the query listener.
	listenerConcurrency = 256
)

// ContentType is the exposition's media type (text format 0.0.4).
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// NewListener returns a listener serving reg's metrics; log nil means
// slog.Default(). It is not ready until SetReady(true).
func NewListener(reg *Registry, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.Default()
	}
	l := &Listener{reg: reg, log: log, start: time.Now()}
	l.srv = &fasthttp.Server{
		Handler:              l.handle,
		Name:                 "quiver",
		ReadTimeout:          listenerReadTimeout,
		WriteTimeout:         listenerWriteTimeout,
		IdleTimeout:          listenerIdleTimeout,
		ReadBufferSize:       listenerHeaderBytes,
		MaxRequestBodySize:   listenerHeaderBytes,
		Concurrency:          listenerConcurrency,
		NoDefaultContentType: true,
		Logger:               fasthttpLogger{log},
	}
	return l
}

// SetReady sets what GET /ready answers: true once the database has
// finished recovery and the query listener is up; false again when the
// server begins to shut down.
func (l *Listener) SetReady(ready bool) { l.ready.Store(ready) }

// Serve answers on ln until Shutdown.
func (l *Listener) Serve(ln net.Listener) error {
	return l.serving.Serve(ln, l.srv.Serve)
}

// Shutdown stops accepting connections and waits for requests in flight,
// up to ctx's deadline.
func (l *Listener) Shutdown(ctx context.Context) error {
	return l.serving.Shutdown(func() error { return l.srv.ShutdownWithContext(ctx) })
}

func (l *Listener) handle(ctx *fasthttp.RequestCtx) {
	defer func() {
		if p := recover(); p != nil {
			l.log.Error("metrics handler panicked", "panic", p, "path", string(ctx.Path()), "stack", string(debug.Stack()))
			writeError(ctx, 500, engine.CodeTransaction, engine.CatTransaction, "internal error")
		}
	}()
	path := string(ctx.Path())
	var serve func(*fasthttp.RequestCtx)
	switch path {
	case "/metrics":
		serve = l.metrics
		if !l.authenticated(ctx) {
			return
		}
	case "/health":
		serve = l.health
	case "/ready":
		serve = l.readiness
	case "/live":
		serve = func(ctx *fasthttp.RequestCtx) { writeJSON(ctx, 200, `{"alive":true}`) }
	default:
		writeError(ctx, 404, engine.CodeNotFound, engine.CatNotFound,
			fmt.Sprintf("no endpoint %s on the metrics listener: it serves GET /metrics, /health, /ready and /live", path))
		return
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		writeError(ctx, 405, engine.CodeData, engine.CatData,
			fmt.Sprintf("%s %s is not allowed; use GET", ctx.Method(), path))
		return
	}
	serve(ctx)
}

func (l *Listener) metrics(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType(ContentType)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	l.reg.WritePrometheus(ctx)
}

// readiness answers 503 while not ready, so that a probe that looks at
// the status only (Kubernetes) reads it right too.
func (l *Listener) readiness(ctx *fasthttp.RequestCtx) {
	if l.ready.Load() {
		writeJSON(ctx, 200, `{"ready":true}`)
		return
	}
	writeJSON(ctx, 503, `{"ready":false}`)
}

func writeJSON(ctx *fasthttp.RequestCtx, status int, body string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetBodyString(body)
}

// writeError writes the interface contract's error body.
func writeError(ctx *fasthttp.RequestCtx, status int, code, category, message string) {
	writeErrorBody(ctx, status, code, category, message, 0)
}

// writeErrorBody writes an error body; a 429's has no category and a
// retry_after in seconds.
func writeErrorBody(ctx *fasthttp.RequestCtx, status int, code, category, message string, retryAfter int64) {
	type body struct {
		Error struct {
			Code       string `json:"code"`
			Category   string `json:"category,omitempty"`
			Message    string `json:"message"`
			RetryAfter int64  `json:"retry_after,omitempty"`
		} `json:"error"`
	}
	var b body
	b.Error.Code, b.Error.Category, b.Error.Message, b.Error.RetryAfter = code, category, message, retryAfter
	out, err := json.Marshal(b)
	if err != nil {
		panic("BUG: cannot encode an error body: " + err.Error())
	}
	ctx.Response.ResetBody()
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(out)
}

type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Debug(fmt.Sprintf(format, args...), "component", "metrics")
}
