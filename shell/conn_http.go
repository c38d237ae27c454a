package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/quiverdb/quiver/client"
)

// httpConn speaks the HTTP API: each statement is a request, so a result
// is read whole before it prints (bounded by the client's response
// limit), and session settings (SET) do not carry from one statement to
// the next. Credentials go as HTTP Basic on every request.
type httpConn struct {
	o  *Options
	c  *client.HTTPClient
	tx *client.HTTPTx
}

func newHTTPConn(o *Options) *httpConn {
	scheme := "http"
	var opts []client.HTTPOption
	opts = append(opts, client.WithHTTPClient(&http.Client{}))
	if o.TLS != nil {
		scheme = "https"
		opts = append(opts, client.WithTLSConfig(o.TLS))
	}
	if o.User != "" {
		opts = append(opts, client.WithBasicAuth(o.User, o.Password))
	}
	return &httpConn{o: o, c: client.NewHTTP(scheme+"://"+o.Addr, opts...)}
}

// statusClient is an HTTP client of the shell's server for :status,
// whatever the transport: the HTTP API shares the wire protocol's port.
func statusClient(o *Options) *client.HTTPClient { return newHTTPConn(o).c }

func (c *httpConn) fail(err error) error {
	var ce *client.Error
	if errors.As(err, &ce) {
		return err
	}
	return &connError{fmt.Errorf("the request to %s failed: %w", c.o.Addr, err)}
}

// connect checks that the server answers, with the credentials given.
func (c *httpConn) connect(ctx context.Context) error {
	_, err := c.c.Query(ctx, "RETURN 1 AS ok", nil)
	if err != nil {
		return c.fail(err)
	}
	return nil
}

func (c *httpConn) setGraph(g string) { c.o.Graph = g }

func (c *httpConn) run(ctx context.Context, query string, params map[string]any) (rows, error) {
	c.c.SetGraph(c.o.Graph)
	if kw, rest := leadingKeyword(query); kw == "EXPLAIN" && c.tx == nil {
		p, err := c.c.Explain(ctx, rest, params)
		if err != nil {
			return nil, c.fail(err)
		}
		return &httpRows{plan: asMap(p)}, nil
	}
	var res *client.Result
	var err error
	if c.tx != nil {
		res, err = c.tx.Query(ctx, query, params)
	} else {
		res, err = c.c.Query(ctx, query, params)
	}
	if err != nil {
		return nil, c.fail(err)
	}
	r := &httpRows{res: res, i: -1}
	for _, col := range res.Columns {
		r.cols = append(r.cols, client.WireColumn(col))
	}
	if res.Profile != nil {
		r.profile = asMap(res.Profile)
	}
	md := res.Metadata
	r.summary = map[string]any{"rows": int64(len(res.Rows)), "time_ms": float64(md.ExecutionTimeMS)}
	if md.Write {
		for k, v := range map[string]int64{"nodes_created": md.NodesCreated, "relationships_created": md.RelationshipsCreated,
			"properties_set": md.PropertiesSet, "labels_added": md.LabelsAdded, "nodes_deleted": md.NodesDeleted,
			"relationships_deleted": md.RelationshipsDeleted, "properties_removed": md.PropertiesRemoved, "labels_removed": md.LabelsRemoved} {
			r.summary[k] = v
		}
	}
	return r, nil
}

// leadingKeyword is the statement's first word in upper case, and the
// text after it.
func leadingKeyword(q string) (string, string) {
	q = strings.TrimSpace(q)
	i := strings.IndexFunc(q, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if i < 0 {
		return strings.ToUpper(q), ""
	}
	return strings.ToUpper(q[:i]), q[i+1:]
}

// asMap turns a client struct into the JSON map the wire protocol's
// messages decode to, so both transports render alike.
func asMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

func (c *httpConn) begin(ctx context.Context) error {
	if c.tx != nil {
		return errors.New("a transaction is open already (:commit or :rollback it)")
	}
	c.c.SetGraph(c.o.Graph)
	tx, err := c.c.Begin(ctx, "", 0)
	if err != nil {
		return c.fail(err)
	}
	c.tx = tx
	return nil
}

func (c *httpConn) commit(ctx context.Context) error {
	return endTx(ctx, &c.tx, true, c.fail)
}

func (c *httpConn) rollback(ctx context.Context) error {
	return endTx(ctx, &c.tx, false, c.fail)
}

func (c *httpConn) inTx() bool { return c.tx != nil }

// lost keeps an HTTP transaction: the server holds it until it expires,
// and the next request may reach it again.
func (c *httpConn) lost() bool { return false }

func (c *httpConn) close() error {
	if c.tx != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.tx.Rollback(ctx)
		c.tx = nil
	}
	return nil
}

func (c *httpConn) info() []string {
	out := []string{"transport: HTTP API" + tlsNote(c.o), "address: " + c.c.BaseURL()}
	if c.tx != nil {
		out = append(out, "transaction: "+c.tx.ID+" (expires "+c.tx.ExpiresAt.Format(time.RFC3339)+")")
	}
	return out
}

// httpRows is a whole HTTP result read as rows.
type httpRows struct {
	res     *client.Result
	cols    []client.WireColumn
	i       int
	summary map[string]any
	plan    map[string]any
	profile map[string]any
}

func (r *httpRows) Columns() []client.WireColumn { return r.cols }

func (r *httpRows) Next() bool {
	if r.res == nil || r.i+1 >= len(r.res.Rows) {
		return false
	}
	r.i++
	return true
}

func (r *httpRows) Values() []any {
	if r.res == nil || r.i < 0 || r.i >= len(r.res.Rows) {
		return nil
	}
	return r.res.Rows[r.i]
}

func (r *httpRows) Err() error              { return nil }
func (r *httpRows) Close() error            { r.res = nil; return nil }
func (r *httpRows) Summary() map[string]any { return r.summary }
func (r *httpRows) Plan() map[string]any    { return r.plan }
func (r *httpRows) Profile() map[string]any { return r.profile }
