package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// HTTPClient speaks Quiver's HTTP API (docs/http-api.md). It is safe for
// concurrent use. Every call takes a context: its cancellation abandons
// the request (the server then cancels the query), and its deadline is
// sent as the query's timeout.
type HTTPClient struct {
	base     string
	hc       *http.Client
	header   http.Header
	maxBytes int64
	// cred is the credential every request carries (http_auth.go); nil
	// for none. Login and Refresh replace it while requests run.
	cred atomic.Pointer[credential]
	// bookmark is the highest bookmark an answer carried
	// (http_follow.go).
	bookmark atomic.Uint64
	// graph is the graph statements and transactions run on (SetGraph).
	graph atomic.Pointer[string]
}

// SetGraph makes the client's later statements, batches and transactions
// run on graph ("" for the server's default graph): each request carries
// it as "graph".
func (c *HTTPClient) SetGraph(graph string) { c.graph.Store(&graph) }

// Graph is the graph SetGraph chose, "" for none.
func (c *HTTPClient) Graph() string {
	if g := c.graph.Load(); g != nil {
		return *g
	}
	return ""
}

// withGraph adds the chosen graph to a request body.
func (c *HTTPClient) withGraph(b map[string]any) map[string]any {
	if g := c.Graph(); g != "" {
		b["graph"] = g
	}
	return b
}

// HTTPOption configures an HTTPClient.
type HTTPOption func(*HTTPClient)

// DefaultMaxResponseBytes bounds the answer the client reads into memory.
const DefaultMaxResponseBytes = 256 << 20

// WithHTTPClient sends the requests with hc (its transport, proxies, TLS)
// instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) HTTPOption { return func(c *HTTPClient) { c.hc = hc } }

// WithHeader adds a header to every request. For credentials, use
// WithBearerToken, WithAPIKey or WithBasicAuth (http_auth.go), which
// Login and Logout can replace.
func WithHeader(key, value string) HTTPOption {
	return func(c *HTTPClient) { c.header.Add(key, value) }
}

// WithMaxResponseBytes bounds the answer read into memory (a result's
// JSON); a larger one is an error. The default is DefaultMaxResponseBytes.
func WithMaxResponseBytes(n int64) HTTPOption { return func(c *HTTPClient) { c.maxBytes = n } }

// NewHTTP returns a client of the server at baseURL, such as
// "http://127.0.0.1:3141", or "https://…" with WithTLSConfig.
func NewHTTP(baseURL string, opts ...HTTPOption) *HTTPClient {
	c := &HTTPClient{base: strings.TrimRight(baseURL, "/"), hc: http.DefaultClient, header: http.Header{}, maxBytes: DefaultMaxResponseBytes}
	for _, o := range opts {
		o(c)
	}
	c.hc = followNoRedirects(c.hc)
	return c
}

// BaseURL is the server's URL the client was made with, without a
// trailing slash.
func (c *HTTPClient) BaseURL() string { return c.base }

// traceKey keys a context's traceparent.
type traceKey struct{}

// ContextWithTraceparent returns a context whose requests carry the W3C
// traceparent header tp ("00-<trace id>-<parent id>-<flags>"): the
// server logs the query's lines with the trace id and answers with a
// traceparent of the same trace.
func ContextWithTraceparent(ctx context.Context, tp string) context.Context {
	return context.WithValue(ctx, traceKey{}, tp)
}

// Query runs a statement with auto-commit. params maps parameter names
// (without $) to values.
func (c *HTTPClient) Query(ctx context.Context, query string, params map[string]any) (*Result, error) {
	return c.runQuery(ctx, "/api/v1/query", query, params)
}

// Profile runs a statement and returns its rows with the work of each
// operator (Result.Profile).
func (c *HTTPClient) Profile(ctx context.Context, query string, params map[string]any) (*Result, error) {
	return c.runQuery(ctx, "/api/v1/query/profile", query, params)
}

// Explain returns a statement's plan without running it.
func (c *HTTPClient) Explain(ctx context.Context, query string, params map[string]any) (*Plan, error) {
	var p Plan
	if err := c.call(ctx, http.MethodPost, "/api/v1/query/explain", c.withGraph(queryBody(ctx, query, params)), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (c *HTTPClient) runQuery(ctx context.Context, path, query string, params map[string]any) (*Result, error) {
	var r resultJSON
	if err := c.call(ctx, http.MethodPost, path, c.withGraph(queryBody(ctx, query, params)), &r); err != nil {
		return nil, err
	}
	return r.result(http.StatusOK)
}

// queryBody is a query request. The context's deadline becomes its
// timeout, less a twentieth: the server's 408 (40003) then arrives
// before the context ends, and the caller learns that the query timed
// out rather than only that the request was abandoned.
func queryBody(ctx context.Context, query string, params map[string]any) map[string]any {
	b := map[string]any{"query": query}
	if params != nil {
		b["parameters"] = jsonParams(params)
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		b["timeout"] = max((left - left/20).Milliseconds(), 1)
	}
	return b
}

// Health is GET /api/v1/health's answer.
type Health struct {
	Status        string            `json:"status"`
	Version       string            `json:"version"`
	UptimeSeconds int64             `json:"uptime_seconds"`
	Checks        map[string]string `json:"checks"`
}

// Health asks whether the server is up. It is not counted against the
// rate limit.
func (c *HTTPClient) Health(ctx context.Context) (*Health, error) {
	var h Health
	if err := c.call(ctx, http.MethodGet, "/api/v1/health", nil, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// Status is GET /api/v1/status's answer.
type Status struct {
	Version       string `json:"version"`
	UptimeSeconds int64  `json:"uptime_seconds"`
	NodeID        string `json:"node_id"`
	Role          string `json:"role"`
	Statistics    struct {
		TotalNodes         int64   `json:"total_nodes"`
		TotalRelationships int64   `json:"total_relationships"`
		QueriesPerSecond   float64 `json:"queries_per_second"`
		ActiveConnections  int64   `json:"active_connections"`
	} `json:"statistics"`
	Storage struct {
		TotalBytes int64 `json:"total_bytes"`
		UsedBytes  int64 `json:"used_bytes"`
		FreeBytes  int64 `json:"free_bytes"`
	} `json:"storage"`
}

// Status returns the server's version, role, counts and storage.
func (c *HTTPClient) Status(ctx context.Context) (*Status, error) {
	var s Status
	if err := c.call(ctx, http.MethodGet, "/api/v1/status", nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// call sends a request and decodes a 2xx answer into out; any other
// answer becomes *Error.
func (c *HTTPClient) call(ctx context.Context, method, path string, body any, out any) error {
	_, err := c.callAt(ctx, c.base, method, path, body, out)
	return err
}

// callAt is call on the server at base; it returns the base of the
// server that answered (another member's, after a redirect to the
// leader: http_follow.go).
func (c *HTTPClient) callAt(ctx context.Context, base, method, path string, body any, out any) (string, error) {
	err := c.callAtInto(ctx, &base, method, path, body, out)
	return base, err
}

func (c *HTTPClient) callAtInto(ctx context.Context, base *string, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("cannot encode the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, *base+path, rd)
	if err != nil {
		return fmt.Errorf("cannot make the request: %w", err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	c.authorize(req, path)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tp, ok := ctx.Value(traceKey{}).(string); ok && tp != "" {
		req.Header.Set("traceparent", tp)
	}
	resp, err := c.send(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if r := resp.Request; r != nil && (r.URL.Host != req.URL.Host || r.URL.Scheme != req.URL.Scheme) {
		u := r.URL
		*base = baseOf(u) // redirected to another member
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return fmt.Errorf("%s %s: cannot read the answer: %w", method, path, err)
	}
	if int64(len(raw)) > c.maxBytes {
		return fmt.Errorf("%s %s: the answer exceeds %d bytes: return fewer rows (LIMIT) or raise WithMaxResponseBytes", method, path, c.maxBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return answerError(resp, raw)
	}
	if err := decodeJSON(raw, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// answerError converts an error answer: the spec's body, or, from
// something else on the way (a proxy), its status and text.
func answerError(resp *http.Response, raw []byte) *Error {
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	var body struct {
		Error *errorJSON `json:"error"`
	}
	if decodeJSON(raw, &body) == nil && body.Error != nil && body.Error.Code != "" {
		return body.Error.toError(resp.StatusCode, retry)
	}
	text := strings.TrimSpace(string(raw))
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return &Error{Status: resp.StatusCode, Message: fmt.Sprintf("HTTP %s: %s", resp.Status, text), RetryAfter: retry}
}

// decodeJSON decodes one JSON value, numbers as json.Number.
func decodeJSON(raw []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("the answer is not the JSON expected: %w", err)
	}
	return nil
}

// jsonParams prepares parameters for encoding: a float64 or float32 with
// no fraction is written with ".0", so that the server reads a FLOAT
// (encoding/json would write 2.0 as 2, an INTEGER).
func jsonParams(v any) any {
	switch x := v.(type) {
	case float64:
		return floatJSON(x)
	case float32:
		return floatJSON(float64(x))
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonParams(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonParams(e)
		}
		return out
	}
	return v
}

// floatJSON writes f as a JSON number that reads back as a float; NaN
// and infinities have no JSON form and are left for the encoder to
// refuse.
func floatJSON(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.RawMessage(s)
}

// HTTPTx is an explicit transaction over HTTP (docs/transactions.md). Its
// methods may not be called concurrently: the server runs one statement
// of a transaction at a time.
type HTTPTx struct {
	c *HTTPClient
	// base is the server the transaction lives on: the leader a
	// follower redirected BEGIN to, or the client's.
	base string
	// ID is the server's transaction_id.
	ID string
	// Isolation is the transaction's isolation level.
	Isolation string
	// ExpiresAt is when the server rolls the transaction back if it has
	// not ended.
	ExpiresAt time.Time
}

// Begin opens a transaction. isolation is READ_COMMITTED,
// REPEATABLE_READ or SERIALIZABLE ("" for the server's default,
// READ_COMMITTED); timeout is its lifetime (0 for the server's default).
func (c *HTTPClient) Begin(ctx context.Context, isolation string, timeout time.Duration) (*HTTPTx, error) {
	body := map[string]any{}
	if isolation != "" {
		body["isolation_level"] = isolation
	}
	if timeout > 0 {
		body["timeout"] = max(timeout.Milliseconds(), 1)
	}
	var out struct {
		ID        string `json:"transaction_id"`
		Isolation string `json:"isolation_level"`
		ExpiresAt string `json:"expires_at"`
	}
	base, err := c.callAt(ctx, c.base, http.MethodPost, "/api/v1/transaction/begin", c.withGraph(body), &out)
	if err != nil {
		return nil, err
	}
	if out.ID == "" {
		return nil, errors.New("POST /api/v1/transaction/begin: the answer has no transaction_id")
	}
	exp, _ := time.Parse(time.RFC3339Nano, out.ExpiresAt)
	return &HTTPTx{c: c, base: base, ID: out.ID, Isolation: out.Isolation, ExpiresAt: exp}, nil
}

func (t *HTTPTx) path(action string) string {
	return "/api/v1/transaction/" + url.PathEscape(t.ID) + "/" + action
}

// Query runs a statement in the transaction.
func (t *HTTPTx) Query(ctx context.Context, query string, params map[string]any) (*Result, error) {
	var r resultJSON
	if _, err := t.c.callAt(ctx, t.base, http.MethodPost, t.path("query"), queryBody(ctx, query, params), &r); err != nil {
		return nil, err
	}
	return r.result(http.StatusOK)
}

// Commit commits the transaction. A serialization failure (40001) means
// it lost to a concurrent commit and was rolled back: run it again.
func (t *HTTPTx) Commit(ctx context.Context) error {
	var out struct{}
	return t.c.callTx(ctx, t.base, http.MethodPost, t.path("commit"), nil, &out)
}

// Rollback rolls the whole transaction back.
func (t *HTTPTx) Rollback(ctx context.Context) error {
	var out struct{}
	return t.c.callTx(ctx, t.base, http.MethodPost, t.path("rollback"), nil, &out)
}

// RollbackTo undoes the writes made after the savepoint (made with
// SAVEPOINT name); the transaction stays open.
func (t *HTTPTx) RollbackTo(ctx context.Context, savepoint string) error {
	var out struct{}
	return t.c.callTx(ctx, t.base, http.MethodPost, t.path("rollback"), map[string]any{"to_savepoint": savepoint}, &out)
}

// Statement is one statement of a batch.
type Statement struct {
	Query      string         `json:"query"`
	Parameters map[string]any `json:"parameters,omitempty"`
}

// Batch runs statements in order. transactional true runs them as one
// transaction: all or nothing, and the first failure is the error
// returned. false runs each on its own: a failed one has its entry's
// Err set and the others still run.
func (c *HTTPClient) Batch(ctx context.Context, stmts []Statement, transactional bool) (*BatchResult, error) {
	qs := make([]map[string]any, len(stmts))
	for i, s := range stmts {
		qs[i] = map[string]any{"query": s.Query}
		if s.Parameters != nil {
			qs[i]["parameters"] = jsonParams(s.Parameters)
		}
	}
	var out struct {
		Results     []resultJSON `json:"results"`
		TotalTimeMS float64      `json:"total_time_ms"`
	}
	if err := c.call(ctx, http.MethodPost, "/api/v1/batch", c.withGraph(map[string]any{"queries": qs, "transaction": transactional}), &out); err != nil {
		return nil, err
	}
	br := &BatchResult{TotalTimeMS: out.TotalTimeMS, Results: make([]BatchEntry, len(out.Results))}
	for i := range out.Results {
		r := &out.Results[i]
		e := BatchEntry{Index: i}
		if r.Index != nil {
			e.Index = *r.Index
		}
		switch {
		case r.Error != nil:
			e.Err = r.Error.toError(http.StatusOK, 0)
		case len(r.Explain) > 0:
			e.Plan = &Plan{}
			if err := decodeJSON(r.Explain, e.Plan); err != nil {
				return nil, err
			}
		default:
			res, err := r.result(http.StatusOK)
			if err != nil {
				return nil, err
			}
			e.Result = res
		}
		br.Results[i] = e
	}
	return br, nil
}
