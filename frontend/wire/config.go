package wire

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/serving"
)

// Config configures the wire server. Zero fields take the defaults below
// (docs/wire-protocol.md, Limits).
type Config struct {
	// Version is the server version string WELCOME.server reports.
	Version string
	// Cluster, when set, makes the server a member of a replicated
	// cluster: a write on a follower fails with an ERROR naming the
	// leader (details.leader), and RUN_GQL and BEGIN take a bookmark
	// and a consistency (cluster.go). Nil for a single server.
	Cluster serving.Cluster
	Logger  *slog.Logger
	// Auth, when set and enabled, makes HELLO carry credentials and
	// checks each statement's principal (auth.go); nil or disabled:
	// every session may do everything.
	Auth *auth.Service
	// TLS, when set, makes Split speak TLS only: the wire protocol and
	// HTTP both inside it (tlssplit.go). QUIC has its own configuration.
	TLS *tls.Config
	// MaxConnections caps the open wire connections, TCP and QUIC
	// together (a QUIC connection counts once, whatever its streams);
	// zero means DefaultMaxConnections. The HTTP server has its own.
	MaxConnections int
	// MaxConnectionsPerClient caps the open wire connections of one
	// client address; zero means DefaultMaxConnectionsPerClient, or
	// MaxConnections when that is lower.
	MaxConnectionsPerClient int
	// ReservedConnections are the slots of MaxConnections that
	// connections without a completed HELLO cannot take (ceiling.go);
	// zero means a tenth of MaxConnections, negative none.
	ReservedConnections int
	// Saturation, when set, records the server-wide connection ceiling
	// being reached (a connection evicted or refused), shared with the
	// HTTP server, whose health reports it; nil: the server keeps its
	// own.
	Saturation *serving.Saturation
	// MaxStreamsPerConn caps the concurrent sessions (bidirectional
	// streams) of one QUIC connection; zero means DefaultMaxStreamsPerConn.
	MaxStreamsPerConn int
	// MaxQuerySize caps a query's text in bytes, the max_query_size
	// WELCOME announces; zero means engine.MaxQueryBytes (1 MiB).
	MaxQuerySize int
	// HelloTimeout is how long a new connection (or QUIC stream) has to
	// send its whole HELLO; zero means DefaultHelloTimeout.
	HelloTimeout time.Duration
	// IdleTimeout closes a session that sent no message this long while
	// the server waits for one (also while a result waits for PULL);
	// zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// WriteTimeout bounds one write to a client that stops reading; zero
	// means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// SniffTimeout is how long Split waits for a TCP connection's first
	// byte; zero means DefaultSniffTimeout.
	SniffTimeout time.Duration
	// Window is the number of rows a result sends before it waits for
	// the client's first PULL; zero means DefaultWindow.
	Window int
	// Conns, when set, is told about every wire connection opened and
	// closed (TCP connections and QUIC connections, not streams), for
	// the connection metrics.
	Conns interface {
		Opened()
		Closed()
	}
}

// Defaults of Config.
const (
	DefaultMaxConnections          = 1000
	DefaultMaxConnectionsPerClient = 256
	DefaultMaxStreamsPerConn       = 16
	DefaultHelloTimeout            = 10 * time.Second
	DefaultIdleTimeout             = 5 * time.Minute
	DefaultWriteTimeout            = time.Minute
	DefaultSniffTimeout            = 10 * time.Second
	DefaultWindow                  = 1000
)

// ProtocolVersion is the protocol version WELCOME answers; a HELLO may
// ask for any 1.x.
const ProtocolVersion = "1.0"

// ALPN is the application protocol QUIC connections negotiate.
const ALPN = "quiver/1"

// lineSlack is how much longer than MaxQuerySize a message line may be:
// the rest of a RUN_GQL (its parameters, escapes in the query text). A
// longer line is refused unread.
const lineSlack = 64 << 10

func (c Config) withDefaults() Config {
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.MaxConnectionsPerClient <= 0 {
		c.MaxConnectionsPerClient = DefaultMaxConnectionsPerClient
	}
	c.MaxConnectionsPerClient = min(c.MaxConnectionsPerClient, c.MaxConnections)
	if c.ReservedConnections == 0 {
		c.ReservedConnections = c.MaxConnections / 10
	}
	if c.Saturation == nil {
		c.Saturation = &serving.Saturation{}
	}
	if c.MaxStreamsPerConn <= 0 {
		c.MaxStreamsPerConn = DefaultMaxStreamsPerConn
	}
	if c.MaxQuerySize <= 0 {
		c.MaxQuerySize = engine.MaxQueryBytes
	}
	if c.HelloTimeout <= 0 {
		c.HelloTimeout = DefaultHelloTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.SniffTimeout <= 0 {
		c.SniffTimeout = DefaultSniffTimeout
	}
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// maxLine is the longest message line the server reads.
func (c Config) maxLine() int { return c.MaxQuerySize + lineSlack }
