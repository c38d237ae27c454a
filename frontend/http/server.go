package http

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/valyala/fasthttp"
)

// Config configures the HTTP server.
type Config struct {
	// MaxBodyBytes caps request bodies; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int
	// MaxConnections caps concurrent connections; zero means no cap.
	MaxConnections int
	Logger         *slog.Logger
	Version        string
}

// DefaultMaxBodyBytes is the request body cap when Config leaves it zero.
const DefaultMaxBodyBytes = 8 << 20

// Engine is what the server needs from the database.
type Engine interface {
	Query(ctx context.Context, text string, params engine.Params) (*engine.Result, error)
	// Explain describes a query's plan without running it.
	Explain(ctx context.Context, text string, params engine.Params) (*engine.Result, error)
	// Profile runs a query measuring each operator.
	Profile(ctx context.Context, text string, params engine.Params) (*engine.Result, error)
	Stats() engine.Stats
}

// liveSettings is an engine whose settings the server reads while it runs
// (*engine.DB is one): max_connections.
type liveSettings interface {
	Settings() *engine.Settings
}

// Server is the HTTP API server.
type Server struct {
	cfg Config
	db  Engine
	// maxConns reads the live connection ceiling; nil when the engine
	// has no settings and fasthttp enforces cfg.MaxConnections.
	maxConns func() int
	log      *slog.Logger
	start    time.Time
	srv      *fasthttp.Server
	bufs     sync.Pool // *[]byte response buffers
}

// New returns a server answering for db.
func New(cfg Config, db Engine) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, db: db, log: cfg.Logger, start: time.Now()}
	s.bufs.New = func() any { b := make([]byte, 0, 64<<10); return &b }
	concurrency := cfg.MaxConnections
	if ls, ok := db.(liveSettings); ok {
		// The configured ceiling is the setting's starting value; SET
		// max_connections changes it for the next connections.
		if cfg.MaxConnections > 0 {
			if err := ls.Settings().Set("max_connections", int64(cfg.MaxConnections)); err != nil {
				s.log.Warn("max connections not applied", "error", err)
			}
		}
		s.maxConns = ls.Settings().MaxConnections
		concurrency = 0 // the listener enforces the ceiling
	}
	s.srv = &fasthttp.Server{
		Handler:                       s.handle,
		ErrorHandler:                  s.transportError,
		MaxRequestBodySize:            cfg.MaxBodyBytes,
		Concurrency:                   concurrency,
		Name:                          "quiver",
		DisableHeaderNamesNormalizing: false,
		NoDefaultContentType:          true,
		ReadTimeout:                   5 * time.Minute,
		IdleTimeout:                   2 * time.Minute,
		Logger:                        fasthttpLogger{cfg.Logger},
	}
	return s
}

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	if s.maxConns != nil {
		ln = &limitListener{Listener: ln, limit: s.maxConns}
	}
	return s.srv.Serve(ln)
}

// Shutdown stops accepting connections and waits for requests in flight,
// up to ctx's deadline.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.ShutdownWithContext(ctx) }

// handle routes a request, turning a panic into a 500 so one bad request
// cannot take the server down.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("request handler panicked", "panic", p, "path", string(ctx.Path()), "stack", string(debug.Stack()))
			s.writeError(ctx, &apiError{status: 500, code: "40000", category: "TRANSACTION_ERROR", message: "internal error"})
		}
	}()
	path := string(ctx.Path())
	route, ok := routes[path]
	if !ok {
		s.writeError(ctx, &apiError{status: 404, code: "02000", category: "NOT_FOUND", message: fmt.Sprintf("no endpoint %s", path)})
		return
	}
	if string(ctx.Method()) != route.method {
		ctx.Response.Header.Set("Allow", route.method)
		s.writeError(ctx, &apiError{status: 405, code: "22000", category: "DATA_EXCEPTION",
			message: fmt.Sprintf("%s %s is not allowed; use %s", ctx.Method(), path, route.method)})
		return
	}
	route.handler(s, ctx)
}

type route struct {
	method  string
	handler func(*Server, *fasthttp.RequestCtx)
}

var routes = map[string]route{
	"/api/v1/query":         {fasthttp.MethodPost, (*Server).handleQuery},
	"/api/v1/query/explain": {fasthttp.MethodPost, (*Server).handleExplain},
	"/api/v1/query/profile": {fasthttp.MethodPost, (*Server).handleProfile},
	"/api/v1/health":        {fasthttp.MethodGet, (*Server).handleHealth},
	"/query":                {fasthttp.MethodPost, (*Server).handleExperimentalQuery},
}

// transportError answers errors fasthttp meets before a handler runs, in
// the spec's error shape.
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	e := &apiError{status: 400, code: "22000", category: "DATA_EXCEPTION", message: "malformed HTTP request"}
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		e = &apiError{status: 413, code: "22000", category: "DATA_EXCEPTION",
			message: fmt.Sprintf("the request body exceeds the limit of %d bytes", s.cfg.MaxBodyBytes)}
	}
	s.writeError(ctx, e)
}

func (s *Server) writeError(ctx *fasthttp.RequestCtx, e *apiError) {
	ctx.Response.ResetBody()
	ctx.SetStatusCode(e.status)
	ctx.SetContentType("application/json")
	ctx.SetBody(appendError(nil, e))
}

func (s *Server) handleHealth(ctx *fasthttp.RequestCtx) {
	b := []byte(`{"status":"healthy","version":`)
	b = appendString(b, s.cfg.Version)
	b = append(b, `,"uptime_seconds":`...)
	b = appendInt(b, int64(time.Since(s.start)/time.Second))
	// The database answers when it can report its counts; this version has
	// no replication, which the check says instead of claiming "ok".
	s.db.Stats()
	b = append(b, `,"checks":{"database":"ok","storage":"ok","replication":"disabled"}}`...)
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Debug(fmt.Sprintf(format, args...), "component", "http")
}
