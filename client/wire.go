package client

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/valyala/fastjson"
)

// The wire protocol's client: a WireSession is one session of the
// JSON-lines protocol (docs/wire-protocol.md) over plain TCP or a QUIC
// stream. It keeps the server's session state (SET statements, the open
// transaction) for as long as it is open, and streams results under the
// protocol's flow control: WireRows pulls FetchSize more rows each time
// it has read the ones it holds, so memory does not grow with a result.

// WireOptions configure a wire session. The zero value is ready to use.
type WireOptions struct {
	// Client names the program in HELLO (the server may log it).
	Client string
	// Username and Password go in HELLO.auth, when Username or
	// AuthMethod is set (docs/wire-protocol.md, Authentication).
	Username, Password string
	// AuthMethod says what Password carries: WireAuthBasic (or "") the
	// user's password, WireAuthBearer an access token (HTTPClient.Login),
	// WireAuthAPIKey an API key; the last two need no Username.
	AuthMethod string
	// TLS, when set, makes DialTCP speak TLS to a server started with
	// --tls-cert (the wire protocol runs inside TLS on the same port);
	// its ALPN is set to "quiver/1". DialQUIC takes its own.
	TLS *tls.Config
	// FetchSize is how many rows each PULL asks for; zero means 1000,
	// -1 all the rest at once.
	FetchSize int
	// MaxMessageBytes caps one message line from the server; zero means
	// 64 MiB.
	MaxMessageBytes int
}

// WireALPN is the application protocol QUIC connections negotiate, and
// TLS connections over TCP (WireOptions.TLS).
const WireALPN = "quiver/1"

// The HELLO.auth methods (WireOptions.AuthMethod).
const (
	WireAuthBasic  = "basic"
	WireAuthBearer = "bearer"
	WireAuthAPIKey = "api_key"
)

// wireVersion is the protocol version the client speaks.
const wireVersion = "1.0"

// wireStream is the byte stream under a session.
type wireStream interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
}

// WireSession is one session of the wire protocol. It is not safe for
// concurrent use: one goroutine runs its statements one at a time, and
// a program opens more sessions for concurrency (each DialQUIC opens a
// QUIC connection of its own).
type WireSession struct {
	conn   wireStream
	r      *bufio.Reader
	w      *bufio.Writer
	opts   WireOptions
	id     string
	server string
	maxQ   int
	levels []string
	// rows is the result being read, closed before the next request.
	rows *WireRows
	// broken is the transport failure that ended the session.
	broken error
	// dial reopens the transport at the leader's address, addr is where
	// the session is, bookmark the highest the server gave
	// (wire_follow.go).
	dial     dialer
	addr     string
	bookmark uint64
	// graph is the graph RUN_GQL and BEGIN name (SetGraph; "": the
	// session's).
	graph string
	// inTx is set while a transaction Begin opened is open: a 25006
	// then is not followed (the transaction lives here).
	inTx bool
	// parser, keys and num serve decodeMessage (wire_decode.go).
	parser fastjson.Parser
	keys   map[string]string
	num    []byte
}

// DialTCP opens a session over TCP: addr is the server's --listen
// address (the HTTP API's port serves both). With opts.TLS the session
// runs inside TLS, as a server with --tls-cert requires.
func DialTCP(ctx context.Context, addr string, opts *WireOptions) (*WireSession, error) {
	dial := func(ctx context.Context, addr string) (wireStream, error) {
		var d net.Dialer
		var c net.Conn
		var err error
		if opts != nil && opts.TLS != nil {
			tc := opts.TLS.Clone()
			tc.NextProtos = []string{WireALPN}
			td := tls.Dialer{NetDialer: &d, Config: tc}
			c, err = td.DialContext(ctx, "tcp", addr)
		} else {
			c, err = d.DialContext(ctx, "tcp", addr)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot connect to %s: %w", addr, err)
		}
		return c.(wireStream), nil
	}
	c, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	s, err := startWireSession(ctx, c, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	s.dial, s.addr = dial, addr
	return s, nil
}

// DialQUIC opens a session over QUIC (UDP, the same port number as the
// HTTP API). tlsConf verifies the server: a config with the server's CA,
// or PinnedTLSConfig with the fingerprint the server logs for its
// self-signed certificate. The ALPN is set to "quiver/1".
func DialQUIC(ctx context.Context, addr string, tlsConf *tls.Config, opts *WireOptions) (*WireSession, error) {
	if tlsConf == nil {
		return nil, errors.New("DialQUIC needs a TLS configuration (PinnedTLSConfig for a self-signed server)")
	}
	dial := func(ctx context.Context, addr string) (wireStream, error) { return dialQUICStream(ctx, addr, tlsConf) }
	qs, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	s, err := startWireSession(ctx, qs, opts)
	if err != nil {
		qs.Close()
		return nil, err
	}
	s.dial, s.addr = dial, addr
	return s, nil
}

// dialQUICStream opens a QUIC connection and its one stream.
func dialQUICStream(ctx context.Context, addr string, tlsConf *tls.Config) (wireStream, error) {
	tc := tlsConf.Clone()
	tc.NextProtos = []string{WireALPN}
	if tc.MinVersion < tls.VersionTLS13 {
		tc.MinVersion = tls.VersionTLS13
	}
	conn, err := quic.DialAddr(ctx, addr, tc, &quic.Config{KeepAlivePeriod: 15 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s over QUIC: %w", addr, err)
	}
	st, err := conn.OpenStreamSync(ctx)
	if err != nil {
		conn.CloseWithError(0, "")
		return nil, fmt.Errorf("cannot open a QUIC stream to %s: %w", addr, err)
	}
	return &quicStream{Stream: st, conn: conn}, nil
}

// quicStream closes its connection with the stream: one session per
// connection.
type quicStream struct {
	*quic.Stream
	conn *quic.Conn
}

func (q *quicStream) Close() error {
	q.Stream.CancelRead(0)
	err := q.Stream.Close()
	_ = q.conn.CloseWithError(0, "")
	return err
}

// startWireSession says HELLO and reads WELCOME.
func startWireSession(ctx context.Context, c wireStream, opts *WireOptions) (*WireSession, error) {
	s := &WireSession{conn: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 16<<10)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.FetchSize == 0 {
		s.opts.FetchSize = 1000
	}
	if s.opts.MaxMessageBytes <= 0 {
		s.opts.MaxMessageBytes = 64 << 20
	}
	hello := map[string]any{"type": "HELLO", "version": wireVersion}
	if s.opts.Client != "" {
		hello["client"] = s.opts.Client
	}
	if s.opts.Username != "" || s.opts.AuthMethod != "" {
		a := map[string]any{"password": s.opts.Password}
		if s.opts.Username != "" {
			a["username"] = s.opts.Username
		}
		if s.opts.AuthMethod != "" {
			a["method"] = s.opts.AuthMethod
		}
		hello["auth"] = a
	}
	stop := s.watch(ctx)
	defer stop()
	if err := s.send(hello); err != nil {
		return nil, err
	}
	m, err := s.recv()
	if err != nil {
		return nil, err
	}
	if err := s.expect(m, "WELCOME"); err != nil {
		return nil, err
	}
	s.id, _ = m["session_id"].(string)
	s.server, _ = m["server"].(string)
	if caps, ok := m["capabilities"].(map[string]any); ok {
		if n, ok := caps["max_query_size"].(int64); ok {
			s.maxQ = int(n)
		}
		if ls, ok := caps["supported_isolation_levels"].([]any); ok {
			for _, l := range ls {
				if l, ok := l.(string); ok {
					s.levels = append(s.levels, l)
				}
			}
		}
	}
	return s, nil
}

// ID is the server's session id.
func (s *WireSession) ID() string { return s.id }

// ServerVersion is the server's version string.
func (s *WireSession) ServerVersion() string { return s.server }

// MaxQuerySize is the longest query text the server takes, in bytes.
func (s *WireSession) MaxQuerySize() int { return s.maxQ }

// IsolationLevels lists the isolation levels Begin accepts.
func (s *WireSession) IsolationLevels() []string { return s.levels }

// Run runs one statement and streams its rows; the caller reads them
// (Next, Row) and closes the WireRows. A statement with writes has run
// and, outside a transaction, committed once Run returns. An error the
// server answered with is an *Error. ctx bounds Run and every read of
// the rows; cancelling it ends the session.
func (s *WireSession) Run(ctx context.Context, query string, params map[string]any) (*WireRows, error) {
	return s.run(ctx, query, params, "")
}

// Ping checks that the session is alive.
func (s *WireSession) Ping(ctx context.Context) error {
	_, err := s.request(ctx, map[string]any{"type": "PING"})
	return err
}

// Close ends the session: the server rolls back its open transaction.
func (s *WireSession) Close() error {
	if s.broken != nil && errors.Is(s.broken, errWireClosed) {
		return nil
	}
	s.broken = errWireClosed
	return s.conn.Close()
}

var errWireClosed = errors.New("client: the wire session is closed")

func (s *WireSession) run(ctx context.Context, query string, params map[string]any, txID string) (*WireRows, error) {
	if err := s.closeRows(); err != nil {
		return nil, err
	}
	if params == nil {
		params = map[string]any{}
	}
	m := s.withBookmark(map[string]any{"type": "RUN_GQL", "query": query, "params": params})
	if txID != "" {
		m["transaction_id"] = txID
	}
	stop := s.watch(ctx)
	defer func() { stop() }() // stop is replaced after a reconnect
	if err := s.send(m); err != nil {
		return nil, err
	}
	// The answer starts with SCHEMA (EXPLAIN for a plan) or ERROR.
	first, err := s.recv()
	if err != nil {
		return nil, err
	}
	if leader := leaderOf(first); leader != "" && txID == "" && !s.inTx {
		// A write on a member that does not lead: once to the leader.
		stop()
		if rerr := s.reconnect(ctx, leader); rerr != nil {
			e := wireError(first)
			e.Message += " (" + rerr.Error() + ")"
			return nil, e
		}
		stop = s.watch(ctx)
		if err := s.send(s.withBookmark(m)); err != nil {
			return nil, err
		}
		if first, err = s.recv(); err != nil {
			return nil, err
		}
	}
	r := &WireRows{s: s, ctx: ctx}
	switch first["type"] {
	case "SCHEMA":
		fields, _ := first["fields"].([]any)
		for _, f := range fields {
			if f, ok := f.(map[string]any); ok {
				name, _ := f["name"].(string)
				typ, _ := f["type"].(string)
				r.cols = append(r.cols, WireColumn{Name: name, Type: typ})
			}
		}
	case "EXPLAIN":
		r.plan = first
	default:
		if err := s.expect(first, "SCHEMA"); err != nil {
			return nil, err
		}
	}
	s.rows = r
	return r, nil
}

// request sends one message and reads its SUCCESS.
func (s *WireSession) request(ctx context.Context, m map[string]any) (map[string]any, error) {
	if err := s.closeRows(); err != nil {
		return nil, err
	}
	stop := s.watch(ctx)
	defer stop()
	if err := s.send(m); err != nil {
		return nil, err
	}
	ans, err := s.recv()
	if err != nil {
		return nil, err
	}
	if err := s.expect(ans, "SUCCESS"); err != nil {
		return nil, err
	}
	return ans, nil
}

// closeRows closes the result still open, if any.
func (s *WireSession) closeRows() error {
	if s.broken != nil {
		return s.broken
	}
	if s.rows != nil {
		return s.rows.Close()
	}
	return nil
}

// watch applies ctx to the I/O until stop: its deadline, and its
// cancellation, which breaks the session (the protocol's place is lost).
func (s *WireSession) watch(ctx context.Context) (stop func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	dl, _ := ctx.Deadline()
	if ctx.Err() != nil {
		// Done already: the I/O fails at once. AfterFunc would set this
		// from its own goroutine, perhaps after the exchange succeeded.
		dl = time.Unix(1, 0)
	}
	_ = s.conn.SetDeadline(dl)
	after := context.AfterFunc(ctx, func() { _ = s.conn.SetDeadline(time.Unix(1, 0)) })
	return func() {
		if !after() && ctx.Err() != nil {
			s.fail(ctx.Err())
		}
	}
}

func (s *WireSession) fail(err error) {
	if s.broken == nil {
		s.broken = fmt.Errorf("client: the wire session failed: %w", err)
		s.conn.Close()
	}
}

// send writes one message.
func (s *WireSession) send(m map[string]any) error {
	if s.broken != nil {
		return s.broken
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("cannot encode the message: %w", err)
	}
	b = append(b, '\n')
	if _, err := s.w.Write(b); err != nil {
		s.fail(err)
		return s.broken
	}
	if err := s.w.Flush(); err != nil {
		s.fail(err)
		return s.broken
	}
	return nil
}

// recv reads one message. Numbers that are integers decode as int64,
// others as float64.
func (s *WireSession) recv() (map[string]any, error) {
	if s.broken != nil {
		return nil, s.broken
	}
	line, err := s.readLine()
	if err != nil {
		s.fail(err)
		return nil, s.broken
	}
	m, err := s.decodeLine(line)
	if err == nil {
		s.noteBookmark(m)
	}
	return m, err
}

// decodeLine decodes a message line, failing the session when it is not
// a JSON object.
func (s *WireSession) decodeLine(line []byte) (map[string]any, error) {
	m, err := s.decodeMessage(line)
	if err != nil {
		s.fail(fmt.Errorf("the server sent a line that is not a JSON object: %w", err))
		return nil, s.broken
	}
	return m, nil
}

// readLine reads one line of at most MaxMessageBytes.
func (s *WireSession) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(line)+len(chunk) > s.opts.MaxMessageBytes {
			return nil, fmt.Errorf("a message from the server is longer than %d bytes (WireOptions.MaxMessageBytes)", s.opts.MaxMessageBytes)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// expect turns anything but a message of type typ into an error: an
// ERROR into *Error, another message into a protocol failure.
func (s *WireSession) expect(m map[string]any, typ string) error {
	switch m["type"] {
	case typ:
		return nil
	case "ERROR":
		return wireError(m)
	}
	err := fmt.Errorf("client: the server answered %v where %s was due", m["type"], typ)
	s.fail(err)
	return err
}

// wireError converts an ERROR message.
func wireError(m map[string]any) *Error {
	e := &Error{}
	e.Code, _ = m["code"].(string)
	e.Category, _ = m["category"].(string)
	e.Message, _ = m["message"].(string)
	if ra, ok := m["retry_after"].(int64); ok { // RATE_LIMIT_EXCEEDED: the login limiter
		e.RetryAfter = int(ra)
	}
	if pos, ok := m["position"].(map[string]any); ok {
		line, _ := pos["line"].(int64)
		col, _ := pos["column"].(int64)
		e.Line, e.Column = int(line), int(col)
	}
	if d, ok := m["details"].(map[string]any); ok {
		if l, ok := d["leader"].(map[string]any); ok {
			e.LeaderID, _ = l["id"].(string)
			e.LeaderAddress, _ = l["address"].(string)
		}
	}
	return e
}

// wireValue converts decoded JSON: json.Number to int64 when it is an
// integer that fits, float64 otherwise.
func wireValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			if i, err := x.Int64(); err == nil {
				return i
			}
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i, e := range x {
			x[i] = wireValue(e)
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = wireValue(e)
		}
		return x
	}
	return v
}
