package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/frontend/serving"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// Config configures the HTTP server. Zero fields take the defaults below
// (docs/limits.md lists them).
type Config struct {
	// MaxBodyBytes caps request bodies; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int
	// MaxBatchResultBytes caps the response of a batch run as one
	// transaction, held in memory until its commit (batch.go); zero
	// means DefaultMaxBatchResultBytes.
	MaxBatchResultBytes int
	// MaxHeaderBytes caps the request line and headers together; a
	// larger head gets 431. Zero means DefaultMaxHeaderBytes.
	MaxHeaderBytes int
	// MaxConnections caps concurrent connections; zero means no cap.
	MaxConnections int
	// MaxConnectionsPerClient caps the concurrent connections of one
	// client address; zero means DefaultMaxConnectionsPerClient, or
	// MaxConnections when that is lower.
	MaxConnectionsPerClient int
	// ReservedConnections are the slots of MaxConnections that
	// connections still sending their request head cannot take (limit.go);
	// zero means a tenth of MaxConnections, negative none.
	ReservedConnections int
	// HeaderTimeout is how long a client has to send a request's line
	// and headers, from its connection (its accept, before the port's
	// protocol sniffing) or a keep-alive request's first byte; zero
	// means DefaultHeaderTimeout.
	HeaderTimeout time.Duration
	// BodyTimeout is how long a client has at most to send a request's
	// body once its headers arrived; zero means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MinBodyRate is the average rate in bytes per second a body must
	// keep once BodyGrace has passed since its headers arrived (conn.go);
	// zero means DefaultMinBodyRate, negative no minimum.
	MinBodyRate int
	// BodyGrace is how long a body may take before MinBodyRate applies;
	// zero means DefaultBodyGrace.
	BodyGrace time.Duration
	// EvictGrace is how long a connection receiving its request's head
	// or body is safe from eviction at a ceiling (limit.go): a request
	// sent whole at connect may arrive after the server began to read.
	// Zero means DefaultEvictGrace, negative none.
	EvictGrace time.Duration
	// Saturation, when set, records the server-wide connection ceilings
	// being reached (shared with other listeners); nil: the server keeps
	// its own. Health reports it (health.go).
	Saturation *serving.Saturation
	// IdleTimeout closes a keep-alive connection idle this long; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// WriteTimeout bounds how long a client may take to receive a
	// response, a streamed one included: a client that stops reading
	// does not hold its query open for ever. Zero means
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// AllowedOrigins are the web origins (scheme://host[:port]) whose
	// pages may call the API while authentication is off, besides the
	// server's own and loopback origins; "*" allows any.
	AllowedOrigins []string
	// Auth authenticates requests (auth.go); authentication is on when
	// it is set and Auth.Enabled(). With it on, every endpoint but a few
	// needs credentials, statements run under the request's principal,
	// and the spec's CORS applies: any origin is echoed (crosssite.go).
	Auth *auth.Service
	// RateLimit is how many requests one client may make per hour
	// (ratelimit.go); zero means no limit.
	RateLimit int
	// QueryEnded, when set, is told about every query the server ran
	// (tests, metrics).
	QueryEnded func(QueryEnd)
	// Stream serves GET /api/v1/stream, the change stream's WebSocket
	// upgrade (frontend/stream); nil answers 404.
	Stream fasthttp.RequestHandler
	// Console, when set, serves the web console's pages (frontend/console)
	// at the paths it owns: without credentials and outside the rate
	// limit, as static files are; the Host check against DNS rebinding
	// still applies. Nil: those paths answer 404 as any unknown one.
	Console Console
	Logger  *slog.Logger
	Version string
	// Metrics, when set, writes the metrics exposition GET
	// /api/v1/metrics serves (metrics.Registry.WritePrometheus).
	Metrics func(w io.Writer)
	// Conns, when set, is told of every connection the server admits
	// and of its close (metrics.Registry).
	Conns ConnCounter
	// Stats, when set, gives GET /api/v1/status its query rate and open
	// connections (metrics.Registry); without it they read 0.
	Stats StatusSource
	// NodeID is the node_id GET /api/v1/status reports (metrics.NodeID).
	NodeID string
	// DataDir is the data directory whose storage GET /api/v1/status
	// reports; empty for a database in memory.
	DataDir string
	// Cluster, when set, makes the server a member of a replicated
	// cluster (cluster.go): status reports its role, health its
	// replication, writes on a follower go to the leader, and answers
	// carry bookmarks. Nil for a single server.
	Cluster serving.Cluster
	// RedirectWrites makes a follower answer a write with 307 to the
	// leader's address; false answers the 25006 error naming it.
	RedirectWrites bool
}

// Console serves the web console's static files: the page needs no
// credentials (it asks for them), and calls the API like any client.
type Console interface {
	Owns(path []byte) bool
	Serve(ctx *fasthttp.RequestCtx)
}

// QueryEnd describes a finished query.
type QueryEnd struct {
	Elapsed time.Duration
	// Err is the query's error, nil when it succeeded.
	Err error
	// ClientGone is set when the client closed its connection first.
	ClientGone bool
}

// Defaults of Config.
const (
	DefaultMaxBodyBytes            = 8 << 20
	DefaultMaxBatchResultBytes     = 32 << 20
	DefaultMaxHeaderBytes          = 16 << 10
	DefaultMaxConnectionsPerClient = 256
	DefaultHeaderTimeout           = 5 * time.Second
	DefaultBodyTimeout             = 60 * time.Second
	DefaultMinBodyRate             = 1 << 10
	DefaultBodyGrace               = 5 * time.Second
	DefaultEvictGrace              = 250 * time.Millisecond
	DefaultIdleTimeout             = 120 * time.Second
	DefaultWriteTimeout            = 5 * time.Minute
)

// Engine is what the server needs from the database.
type Engine interface {
	// Run runs a statement as written, or explained or profiled.
	Run(ctx context.Context, m engine.Mode, text string, params engine.Params) (*engine.Result, error)
	Counts() engine.Counts
	// GraphCounts is the counts of graph name, as ctx's principal may
	// see it (an unknown or hidden graph is a 42S02 error).
	GraphCounts(ctx context.Context, name string) (engine.Counts, error)
	// BeginTransaction opens an explicit transaction (transaction.go).
	BeginTransaction(o engine.TransactionOptions) (*engine.Transaction, error)
	// TransactionOf finds an open transaction by id among those owner
	// began: a 02000 error when it is not open or another's.
	TransactionOf(id, owner string) (*engine.Transaction, error)
}

// Server is the HTTP API server.
type Server struct {
	cfg   Config
	db    Engine
	log   *slog.Logger
	start time.Time
	srv   *fasthttp.Server
	bufs  sync.Pool // *[]byte response buffers
	// serving makes Shutdown end Serve however the two race.
	serving serving.Guard
	// running counts the queries in flight.
	running atomic.Int64
	// loopback is set while the server listens on a loopback address
	// only: Host headers must then name a loopback host (rebinding.go).
	loopback atomic.Bool
	origins  originPolicy
	limiter  *rateLimiter // nil: no rate limit
	storage  storageCache // GET /api/v1/status's storage figures (status.go)
	// sat records the connection ceilings reached (limit.go), which
	// health reports (health.go).
	sat *serving.Saturation
	// listening is the limit listener Serve made last (tests read its
	// connections' phases).
	listening atomic.Pointer[limitListener]
}

// New returns a server answering for db.
func New(cfg Config, db Engine) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxBatchResultBytes <= 0 {
		cfg.MaxBatchResultBytes = DefaultMaxBatchResultBytes
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if cfg.MaxConnectionsPerClient <= 0 {
		cfg.MaxConnectionsPerClient = DefaultMaxConnectionsPerClient
		if cfg.MaxConnections > 0 {
			cfg.MaxConnectionsPerClient = min(cfg.MaxConnectionsPerClient, cfg.MaxConnections)
		}
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = DefaultHeaderTimeout
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.MinBodyRate == 0 {
		cfg.MinBodyRate = DefaultMinBodyRate
	}
	if cfg.BodyGrace <= 0 {
		cfg.BodyGrace = DefaultBodyGrace
	}
	if cfg.EvictGrace == 0 {
		cfg.EvictGrace = DefaultEvictGrace
	}
	if cfg.ReservedConnections == 0 {
		cfg.ReservedConnections = cfg.MaxConnections / 10
	}
	if cfg.Saturation == nil {
		cfg.Saturation = &serving.Saturation{}
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, db: db, log: cfg.Logger, start: time.Now(), origins: newOriginPolicy(cfg.AllowedOrigins, cfg.Auth != nil && cfg.Auth.Enabled()),
		limiter: newRateLimiter(cfg.RateLimit, cfg.Logger), sat: cfg.Saturation}
	s.bufs.New = func() any { b := make([]byte, 0, 64<<10); return &b }
	s.srv = &fasthttp.Server{
		Handler:      s.handle,
		ErrorHandler: s.transportError,
		// The head must arrive within HeaderTimeout of the connection
		// (or of a keep-alive request's first byte); the body then has
		// BodyTimeout (HeaderReceived) and must keep MinBodyRate
		// (conn.go). A client trickling a byte every few seconds holds a
		// connection no longer than that, and loses it sooner to a
		// newcomer at the ceiling (limit.go).
		ReadTimeout: cfg.HeaderTimeout,
		HeaderReceived: func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
			return fasthttp.RequestConfig{ReadTimeout: cfg.BodyTimeout}
		},
		ConnState:                     connState,
		IdleTimeout:                   cfg.IdleTimeout,
		WriteTimeout:                  cfg.WriteTimeout,
		ReadBufferSize:                cfg.MaxHeaderBytes,
		MaxRequestBodySize:            cfg.MaxBodyBytes,
		Name:                          "quiver",
		DisableHeaderNamesNormalizing: false,
		NoDefaultContentType:          true,
		Logger:                        fasthttpLogger{cfg.Logger},
	}
	return s
}

// Serve accepts connections on ln until Shutdown. Connections beyond the
// ceilings are answered by the listener itself (limit.go). A listener
// with a ceiling of its own before this one (the port's protocol
// sniffing, frontend/wire) reports reaching it to the same Saturation.
func (s *Server) Serve(ln net.Listener) error {
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		s.loopback.Store(true)
	}
	if o, ok := ln.(interface{ OnCeiling(func()) }); ok {
		o.OnCeiling(s.sat.Hit)
	}
	var reserve int
	if s.cfg.ReservedConnections > 0 {
		reserve = s.cfg.ReservedConnections
	}
	minRate := max(s.cfg.MinBodyRate, 0)
	ll := newLimitListener(ln, limits{limit: s.cfg.MaxConnections, perClient: s.cfg.MaxConnectionsPerClient, reserve: reserve,
		evictGrace: s.cfg.EvictGrace,
		timing:     connTiming{header: s.cfg.HeaderTimeout, bodyGrace: s.cfg.BodyGrace, minBodyRate: minRate},
		health:     s.healthBody, conns: s.cfg.Conns, sat: s.sat, log: s.log})
	s.listening.Store(ll)
	return s.serving.Serve(ll, s.srv.Serve)
}

// Shutdown stops accepting connections and waits for requests in flight,
// up to ctx's deadline. It also closes the listeners itself, so that a
// Serve that had not reached fasthttp yet returns too.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.serving.Shutdown(func() error { return s.srv.ShutdownWithContext(ctx) })
}

// Running is the number of queries in flight.
func (s *Server) Running() int64 { return s.running.Load() }

// handle routes a request, turning a panic into a 500 so one bad request
// cannot take the server down.
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	markBusy(ctx)
	defer func() {
		if p := recover(); p != nil {
			s.requestLog(ctx).Error("request handler panicked", "panic", p, "path", string(ctx.Path()), "stack", string(debug.Stack()))
			s.writeError(ctx, &apiError{status: 500, code: engine.CodeTransaction, category: engine.CatTransaction, message: "internal error"})
		}
	}()
	// Credentials are checked first, because the rate limit counts an
	// authenticated request against its user (auth.go). Every request
	// counts, refused ones too; a 429 waits for the origin check so that
	// an allowed page can read it (ratelimit.go), and a failed
	// authentication's answer waits for both.
	if c := s.cfg.Console; c != nil && c.Owns(ctx.Path()) {
		if e := s.checkHost(ctx); e != nil {
			s.writeError(ctx, e)
			return
		}
		c.Serve(ctx)
		return
	}
	p, authErr := s.authenticate(ctx)
	overLimit := s.limitRequest(ctx, ctx.Time().Unix(), p)
	s.traceRequest(ctx)
	if e := s.checkHost(ctx); e != nil {
		s.writeError(ctx, e)
		return
	}
	if e := s.checkOrigin(ctx); e != nil {
		s.writeError(ctx, e)
		return
	}
	if overLimit != nil {
		s.writeError(ctx, overLimit)
		return
	}
	if authErr != nil {
		s.writeError(ctx, authErr)
		return
	}
	path := string(ctx.Path())
	if ctx.IsOptions() {
		s.preflight(ctx, path)
		return
	}
	route, ok := lookupRoute(path)
	if !ok {
		s.writeError(ctx, &apiError{status: 404, code: engine.CodeNotFound, category: engine.CatNotFound, message: fmt.Sprintf("no endpoint %s", path)})
		return
	}
	if string(ctx.Method()) != route.method {
		ctx.Response.Header.Set("Allow", route.method+", OPTIONS")
		s.writeError(ctx, &apiError{status: 405, code: engine.CodeData, category: engine.CatData,
			message: fmt.Sprintf("%s %s is not allowed; use %s", ctx.Method(), path, route.method)})
		return
	}
	if route.method == fasthttp.MethodPost && !(route.optionalBody && len(ctx.PostBody()) == 0) {
		if e := checkJSONBody(ctx); e != nil {
			s.writeError(ctx, e)
			return
		}
	}
	if s.cfg.Cluster == nil {
		route.handler(s, ctx)
		return
	}
	if !s.clusterGate(ctx, path) {
		return
	}
	route.handler(s, ctx)
	s.setBookmark(ctx, path)
}

type route struct {
	method  string
	handler func(*Server, *fasthttp.RequestCtx)
	// optionalBody marks a POST whose body may be left out: an empty
	// body needs no Content-Type (there is nothing to declare).
	optionalBody bool
}

var routes = map[string]route{
	"/api/v1/query":             {method: fasthttp.MethodPost, handler: (*Server).handleQuery},
	"/api/v1/query/explain":     {method: fasthttp.MethodPost, handler: (*Server).handleExplain},
	"/api/v1/query/profile":     {method: fasthttp.MethodPost, handler: (*Server).handleProfile},
	"/api/v1/transaction/begin": {method: fasthttp.MethodPost, handler: (*Server).handleBegin, optionalBody: true},
	"/api/v1/batch":             {method: fasthttp.MethodPost, handler: (*Server).handleBatch},
	"/api/v1/health":            {method: fasthttp.MethodGet, handler: (*Server).handleHealth},
	"/api/v1/stream":            {method: fasthttp.MethodGet, handler: (*Server).handleStream},
	"/api/v1/status":            {method: fasthttp.MethodGet, handler: (*Server).handleStatus},
	"/api/v1/metrics":           {method: fasthttp.MethodGet, handler: (*Server).handleMetrics},
	"/api/v1/auth/token":        {method: fasthttp.MethodPost, handler: (*Server).handleToken},
	"/api/v1/auth/refresh":      {method: fasthttp.MethodPost, handler: (*Server).handleRefresh},
	"/api/v1/auth/logout":       {method: fasthttp.MethodPost, handler: (*Server).handleLogout, optionalBody: true},
	openAPIPath:                 {method: fasthttp.MethodGet, handler: (*Server).handleOpenAPI},
	"/query":                    {method: fasthttp.MethodPost, handler: (*Server).handleExperimentalQuery},
}

// lookupRoute finds the route of a path: a fixed one, or one of an open
// transaction's /api/v1/transaction/{transaction_id}/… paths.
func lookupRoute(path string) (route, bool) {
	if r, ok := routes[path]; ok {
		return r, true
	}
	return transactionRoute(path)
}

// transportError answers errors fasthttp meets before a handler runs, in
// the spec's error shape.
//
// The connection keeps its phase (conn.go): it is answered and closed
// at once, so at a ceiling it stays among the first to give its slot up;
// a flood's heads that reach their deadline together must not look busy
// and leave the idle keep-alive connections as the only ones to evict.
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	e := &apiError{status: 400, code: engine.CodeData, category: engine.CatData, message: "malformed HTTP request"}
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		e = &apiError{status: 413, code: engine.CodeData, category: engine.CatData,
			message: fmt.Sprintf("the request body exceeds the limit of %d bytes", s.cfg.MaxBodyBytes)}
	case errors.As(err, &small):
		e = &apiError{status: 431, code: engine.CodeData, category: engine.CatData,
			message: fmt.Sprintf("the request line and headers exceed the limit of %d bytes", s.cfg.MaxHeaderBytes)}
	case isTimeout(err):
		e = &apiError{status: 408, code: engine.CodeConnection, category: engine.CatUnavailable,
			message: "the request was not received in time"}
		ctx.SetConnectionClose()
	}
	if over := s.limitRequest(ctx, time.Now().Unix(), nil); over != nil {
		e = over
	}
	s.writeError(ctx, e)
}

// isTimeout reports a read deadline's error.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (s *Server) writeError(ctx *fasthttp.RequestCtx, e *apiError) {
	if e.code == engine.CodeNotLeader && s.cfg.Cluster != nil {
		s.writeNotLeader(ctx, e)
		return
	}
	s.writeErrorBody(ctx, e)
}

// writeErrorBody answers e as it is.
func (s *Server) writeErrorBody(ctx *fasthttp.RequestCtx, e *apiError) {
	ctx.Response.ResetBody()
	ctx.SetStatusCode(e.status)
	if e.status == fasthttp.StatusUnauthorized {
		ctx.Response.Header.Set("WWW-Authenticate", wwwAuthenticate) // RFC 9110: a 401 names its scheme
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(appendError(nil, e))
}

type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Debug(fmt.Sprintf(format, args...), "component", "http")
}

// handleStream hands the change stream's upgrade to its server. The
// origin and host checks have run: the stream's own check then accepts.
func (s *Server) handleStream(ctx *fasthttp.RequestCtx) {
	if s.cfg.Stream == nil {
		s.writeError(ctx, &apiError{status: 404, code: engine.CodeNotFound, category: engine.CatNotFound, message: "the change stream is not enabled on this server"})
		return
	}
	s.cfg.Stream(ctx)
}
