package shell

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/client"
)

// conn is the shell's way to the server: the wire protocol's session
// (conn_wire.go) or the HTTP API (conn_http.go).
type conn interface {
	// connect opens the connection (again, after one was lost).
	connect(ctx context.Context) error
	// run runs one statement, in the open transaction if any; the rows
	// must be closed before the next call.
	run(ctx context.Context, query string, params map[string]any) (rows, error)
	begin(ctx context.Context) error
	commit(ctx context.Context) error
	rollback(ctx context.Context) error
	// inTx reports an open transaction.
	inTx() bool
	// lost forgets a connection that failed (its transaction is gone
	// with it); the next run connects again. It reports whether a
	// transaction was open.
	lost() bool
	close() error
	// info describes the connection for :status.
	info() []string
	// setGraph makes later statements and transactions run on graph.
	setGraph(graph string)
}

// rows is a result being read: *client.WireRows, or an HTTP result
// adapted to it (httpRows).
type rows interface {
	Columns() []client.WireColumn
	Next() bool
	Values() []any
	Err() error
	Close() error
	Summary() map[string]any
	Plan() map[string]any
	Profile() map[string]any
}

// newConn makes the connection the options ask for, unopened.
func newConn(o *Options) (conn, error) {
	switch o.Transport {
	case TransportTCP, TransportQUIC:
		if o.Transport == TransportQUIC && o.TLS == nil {
			return nil, errors.New("--quic needs --tls-fingerprint (the fingerprint the server logs at start) or --tls-ca")
		}
		return &wireConn{o: o}, nil
	case TransportHTTP:
		return newHTTPConn(o), nil
	}
	return nil, fmt.Errorf("unknown transport %q", o.Transport)
}

// serverError reports whether err is an answer of the server that
// leaves the connection usable: any *client.Error but the connection
// exceptions (class 08, which the server sends before it closes).
func serverError(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && !strings.HasPrefix(ce.Code, "08")
}

// wireConn is a session of the wire protocol, opened again after it is
// lost (a Ctrl-C closes it to stop a query).
type wireConn struct {
	o    *Options
	sess *client.WireSession
	tx   *client.WireTx
}

func (c *wireConn) connect(ctx context.Context) error {
	if c.sess != nil {
		return nil
	}
	opts := &client.WireOptions{Client: c.o.ClientName, Username: c.o.User, Password: c.o.Password}
	var s *client.WireSession
	var err error
	if c.o.Transport == TransportQUIC {
		s, err = client.DialQUIC(ctx, c.o.Addr, c.o.TLS, opts)
	} else {
		opts.TLS = c.o.TLS
		s, err = client.DialTCP(ctx, c.o.Addr, opts)
	}
	if err != nil {
		if serverError(err) {
			return err
		}
		return &connError{err}
	}
	c.sess = s
	return nil
}

// fail turns an error of the session into the shell's: a server's
// answer stays, anything else ends the session.
func (c *wireConn) fail(err error) error {
	if serverError(err) {
		return err
	}
	return &connError{fmt.Errorf("the connection to %s was lost: %w", c.o.Addr, err)}
}

func (c *wireConn) setGraph(g string) { c.o.Graph = g }

func (c *wireConn) run(ctx context.Context, query string, params map[string]any) (rows, error) {
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	c.sess.SetGraph(c.o.Graph)
	var r *client.WireRows
	var err error
	if c.tx != nil {
		r, err = c.tx.Run(ctx, query, params)
	} else {
		r, err = c.sess.Run(ctx, query, params)
	}
	if err != nil {
		return nil, c.fail(err)
	}
	return &wireRows{WireRows: r, c: c}, nil
}

// wireRows marks the session's failures as connection errors.
type wireRows struct {
	*client.WireRows
	c *wireConn
}

func (r *wireRows) Err() error {
	if err := r.WireRows.Err(); err != nil {
		return r.c.fail(err)
	}
	return nil
}

func (r *wireRows) Close() error {
	if err := r.WireRows.Close(); err != nil {
		return r.c.fail(err)
	}
	return nil
}

func (c *wireConn) begin(ctx context.Context) error {
	if c.tx != nil {
		return errors.New("a transaction is open already (:commit or :rollback it)")
	}
	if err := c.connect(ctx); err != nil {
		return err
	}
	c.sess.SetGraph(c.o.Graph)
	tx, err := c.sess.Begin(ctx, "")
	if err != nil {
		return c.fail(err)
	}
	c.tx = tx
	return nil
}

func (c *wireConn) commit(ctx context.Context) error {
	return endTx(ctx, &c.tx, true, c.fail)
}

func (c *wireConn) rollback(ctx context.Context) error {
	return endTx(ctx, &c.tx, false, c.fail)
}

func (c *wireConn) inTx() bool { return c.tx != nil }

func (c *wireConn) lost() bool {
	had := c.tx != nil
	c.tx = nil
	if c.sess != nil {
		c.sess.Close()
		c.sess = nil
	}
	return had
}

func (c *wireConn) close() error {
	c.lost()
	return nil
}

func (c *wireConn) info() []string {
	out := []string{"transport: wire protocol over " + strings.ToUpper(c.o.Transport) + tlsNote(c.o), "address: " + c.o.Addr}
	if c.sess != nil {
		out = append(out, "server version: "+c.sess.ServerVersion(), "session: "+c.sess.ID())
	} else {
		out = append(out, "session: none (the next statement connects)")
	}
	if c.tx != nil {
		out = append(out, "transaction: "+c.tx.ID())
	}
	return out
}

func tlsNote(o *Options) string {
	if o.TLS != nil && o.Transport != TransportQUIC {
		return " with TLS"
	}
	return ""
}
