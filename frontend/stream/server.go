package stream

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// Config configures the stream. Zero fields take the defaults below.
type Config struct {
	// Authenticate checks the credential of an AUTH message: authorization
	// is "Bearer <access token>" (the scheme word normalised), addr the
	// client's address. It returns the principal the connection acts as;
	// an error refuses it (08001) and closes the connection. nil means
	// authentication is off: any AUTH is accepted.
	Authenticate func(authorization, addr string) (*engine.Principal, error)
	// Current re-reads a principal before each SUBSCRIBE (auth.Service's
	// Current): an error (a user dropped, a token session logged out)
	// closes the connection with 08001; a principal without the read
	// privilege gets 42501. nil keeps the principal AUTH gave.
	Current func(p *engine.Principal) (*engine.Principal, error)
	// Auditor, when set, records the subscriptions refused for want of
	// privilege.
	Auditor engine.Auditor
	// CheckOrigin decides whether a browser page of the request's Origin
	// may open the stream; nil allows requests without an Origin header
	// and those whose Origin host is the request's Host (a page elsewhere
	// must not read the changes of a server with authentication off).
	CheckOrigin func(ctx *fasthttp.RequestCtx) bool
	// MaxConnections caps concurrent stream connections (503 beyond).
	MaxConnections int
	// MaxSubscriptions caps the subscriptions of one connection.
	MaxSubscriptions int
	// MaxPatterns caps the patterns of one subscription.
	MaxPatterns int
	// MaxMessageBytes caps a client message; a larger one is an ERROR and
	// closes the connection.
	MaxMessageBytes int
	// AuthTimeout is how long a client has to send AUTH after the
	// upgrade.
	AuthTimeout time.Duration
	// QueueMessages and QueueBytes bound a connection's outgoing messages
	// not yet written; past either the client is sent LAGGING and
	// disconnected.
	QueueMessages int
	QueueBytes    int
	// FeedBuffer bounds the changes the engine queues for a subscription
	// (engine.SubscribeOptions.Buffer).
	FeedBuffer int
	// WriteTimeout bounds the writing of one message: a client that
	// stops reading is disconnected after it.
	WriteTimeout time.Duration
	// PingInterval is how often the server pings; a client that answers
	// nothing (no pong, no message) for two intervals is disconnected.
	PingInterval time.Duration
	Logger       *slog.Logger
}

// Defaults of Config.
const (
	DefaultMaxConnections   = 1000
	DefaultMaxSubscriptions = 16
	DefaultMaxPatterns      = 32
	DefaultMaxMessageBytes  = 64 << 10
	DefaultAuthTimeout      = 10 * time.Second
	DefaultQueueMessages    = 8192
	DefaultQueueBytes       = 16 << 20
	DefaultWriteTimeout     = 10 * time.Second
	DefaultPingInterval     = 30 * time.Second
)

// Server serves GET /api/v1/stream for one database.
type Server struct {
	cfg      Config
	db       *engine.DB
	log      *slog.Logger
	upgrader websocket.FastHTTPUpgrader
	// conns counts open connections (and upgrades in progress).
	conns atomic.Int64
	// delivered counts CHANGE messages written to clients.
	delivered atomic.Uint64
	lagged    atomic.Uint64
	subs      atomic.Int64
	// mu guards the open connections, closed by Close.
	mu struct {
		sync.Mutex
		open   map[*conn]struct{}
		closed bool
	}
}

// New returns a stream server for db.
func New(cfg Config, db *engine.DB) *Server {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxConnections, DefaultMaxConnections)
	def(&cfg.MaxSubscriptions, DefaultMaxSubscriptions)
	def(&cfg.MaxPatterns, DefaultMaxPatterns)
	def(&cfg.MaxMessageBytes, DefaultMaxMessageBytes)
	def(&cfg.QueueMessages, DefaultQueueMessages)
	def(&cfg.QueueBytes, DefaultQueueBytes)
	def(&cfg.FeedBuffer, engine.DefaultChangeBuffer)
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = DefaultAuthTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = DefaultPingInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, db: db, log: cfg.Logger}
	s.upgrader = websocket.FastHTTPUpgrader{
		HandshakeTimeout: cfg.WriteTimeout,
		CheckOrigin:      cfg.CheckOrigin,
		Error: func(ctx *fasthttp.RequestCtx, status int, reason error) {
			writeHTTPError(ctx, status, engine.CodeConnection, "CONNECTION_EXCEPTION", reason.Error())
		},
	}
	s.mu.open = map[*conn]struct{}{}
	return s
}

// Stats are counters of the stream.
type Stats struct {
	// Connections and Subscriptions are open now.
	Connections, Subscriptions int64
	// Delivered is the number of CHANGE messages written to clients;
	// Lagged the number of clients disconnected as too slow.
	Delivered, Lagged uint64
}

// Stats returns the stream's counters (the benchmark reads Delivered).
func (s *Server) Stats() Stats {
	return Stats{Connections: s.conns.Load(), Subscriptions: s.subs.Load(), Delivered: s.delivered.Load(), Lagged: s.lagged.Load()}
}

// Handler serves GET /api/v1/stream: it upgrades the connection to a
// WebSocket and runs the protocol on it until either side closes.
func (s *Server) Handler(ctx *fasthttp.RequestCtx) {
	if !websocket.FastHTTPIsWebSocketUpgrade(ctx) {
		ctx.Response.Header.Set("Upgrade", "websocket")
		writeHTTPError(ctx, fasthttp.StatusUpgradeRequired, engine.CodeConnection, "CONNECTION_EXCEPTION",
			"GET /api/v1/stream is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)")
		return
	}
	if s.conns.Load() >= int64(s.cfg.MaxConnections) {
		ctx.Response.Header.Set("Retry-After", "5")
		writeHTTPError(ctx, fasthttp.StatusServiceUnavailable, engine.CodeUnavailable, engine.CatUnavailable,
			"the change stream has its maximum of connections open; retry later")
		return
	}
	// The count is taken in the hijacked handler, which fasthttp skips
	// when the upgrade response cannot be written; upgrades racing past
	// the check above are closed there.
	_ = s.upgrader.Upgrade(ctx, func(ws *websocket.Conn) {
		defer s.conns.Add(-1)
		if s.conns.Add(1) > int64(s.cfg.MaxConnections) {
			closeNow(ws, websocket.CloseTryAgainLater, "the change stream has its maximum of connections open; retry later", s.cfg.WriteTimeout)
			return
		}
		s.serve(ws)
	})
}

// closeNow sends a close frame and closes the connection. fasthttp's
// hijacked connection ignores Close (it closes the socket itself once
// the handler returns), so the socket underneath is closed too: that is
// what unblocks the reader.
func closeNow(ws *websocket.Conn, code int, text string, timeout time.Duration) {
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, clip(text)), time.Now().Add(timeout))
	_ = ws.SetReadDeadline(time.Now())
	if u, ok := ws.NetConn().(interface{ UnsafeConn() net.Conn }); ok {
		_ = u.UnsafeConn().Close()
	}
	_ = ws.Close()
}

// Close disconnects every client (close code 1001, going away) and
// refuses new ones. Call it before closing the database.
func (s *Server) Close() {
	s.mu.Lock()
	s.mu.closed = true
	open := make([]*conn, 0, len(s.mu.open))
	for c := range s.mu.open {
		open = append(open, c)
	}
	s.mu.Unlock()
	for _, c := range open {
		c.shutdown(websocket.CloseGoingAway, "the server is shutting down")
	}
}

// track registers c; false when the server is closed.
func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return false
	}
	s.mu.open[c] = struct{}{}
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.mu.open, c)
	s.mu.Unlock()
}

// writeHTTPError answers a request that is not upgraded, with the
// spec's error body.
func writeHTTPError(ctx *fasthttp.RequestCtx, status int, code, category, message string) {
	b := append([]byte(nil), `{"error":{"code":`...)
	b = jsonio.AppendString(b, code)
	b = append(b, `,"category":`...)
	b = jsonio.AppendString(b, category)
	b = append(b, `,"message":`...)
	b = jsonio.AppendString(b, message)
	b = append(b, "}}"...)
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

var errQueueFull = errors.New("stream: outgoing queue full")
