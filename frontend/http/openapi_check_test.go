package http

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	nethttp "net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// The HTTP test suite's traffic is checked against the OpenAPI document
// (openapi.json): every request the tests send through net/http's
// default transport, and every answer they read, goes through
// contractCheck. An answer must match the document (its status among
// the operation's, its headers, its body's schema, with no field the
// document does not name); a request the server accepted (2xx) must
// match too. A request the server refused may be anything: the suite
// sends malformed ones on purpose, and the answer is checked against the
// error shape. TestMain fails the run when anything drifted.

var contract struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error

	mu       sync.Mutex
	drift    []string // the first 50 drifts
	drifts   int      // every drift
	checked  int
	statuses map[string]bool // "METHOD path status" seen, for the coverage test
}

func loadContract() (*openapi3.T, routers.Router, error) {
	contract.once.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(openAPIDocument)
		if err != nil {
			contract.err = fmt.Errorf("openapi.json does not load: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			contract.err = fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
			return
		}
		// Tests listen on random loopback ports: match paths on any host.
		doc.Servers = nil
		router, err := legacy.NewRouter(doc)
		if err != nil {
			contract.err = err
			return
		}
		// An Arrow stream's body is bytes to the document: its content is
		// checked by the Arrow tests (arrow_*_test.go).
		openapi3filter.RegisterBodyDecoder("application/vnd.apache.arrow.stream", openapi3filter.FileBodyDecoder)
		contract.doc, contract.router = doc, router
		contract.statuses = map[string]bool{}
	})
	return contract.doc, contract.router, contract.err
}

// contractCheck is a RoundTripper that checks each exchange against the
// document once the answer's body has been read (or closed).
type contractCheck struct{ base nethttp.RoundTripper }

func (c contractCheck) RoundTrip(req *nethttp.Request) (*nethttp.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	resp, err := c.base.RoundTrip(req)
	if err != nil || !isAPIPath(req.URL.Path) || req.Method == nethttp.MethodOptions || resp.StatusCode == nethttp.StatusSwitchingProtocols {
		return resp, err
	}
	resp.Body = &checkedBody{rc: resp.Body, req: req, reqBody: reqBody, resp: resp}
	return resp, nil
}

// CloseIdleConnections closes the base transport's idle connections
// (http.Client.CloseIdleConnections reaches them through it).
func (c contractCheck) CloseIdleConnections() {
	if ci, ok := c.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// maxCheckedBody bounds what is kept of an answer to check its body: a
// larger one (the streaming tests' results of 100 MB) is checked without
// its body, so that the check does not hold it in memory.
const maxCheckedBody = 8 << 20

func isAPIPath(p string) bool { return strings.HasPrefix(p, "/api/") || p == "/query" }

// checkedBody keeps what the test reads of an answer and checks the
// exchange at EOF, or at Close (without the body when it was not read
// to the end: a test that stops reading a stream).
type checkedBody struct {
	rc      io.ReadCloser
	req     *nethttp.Request
	reqBody []byte
	resp    *nethttp.Response
	buf     bytes.Buffer
	big     bool // past maxCheckedBody: checked without the body
	done    bool
}

func (b *checkedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if !b.big {
		b.buf.Write(p[:n])
		if b.buf.Len() > maxCheckedBody {
			b.big = true
			b.buf = bytes.Buffer{}
		}
	}
	if err == io.EOF && !b.done {
		b.done = true
		checkExchange(b.req, b.reqBody, b.resp, b.buf.Bytes(), !b.big)
	}
	return n, err
}

func (b *checkedBody) Close() error {
	if !b.done {
		b.done = true
		checkExchange(b.req, b.reqBody, b.resp, nil, false)
	}
	return b.rc.Close()
}

// checkExchange checks one request and its answer, noting any drift.
func checkExchange(req *nethttp.Request, reqBody []byte, resp *nethttp.Response, body []byte, whole bool) {
	_, router, err := loadContract()
	if err != nil {
		noteDrift("%v", err)
		return
	}
	what := fmt.Sprintf("%s %s → %d", req.Method, req.URL.Path, resp.StatusCode)
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, ferr := router.FindRoute(r)
	contract.mu.Lock()
	contract.checked++
	contract.mu.Unlock()
	if ferr != nil {
		// No such operation: the server must have refused it, in the
		// error shape.
		if resp.StatusCode < 400 {
			noteDrift("%s: the server answered an operation the document does not have (%v)", what, ferr)
		} else if whole {
			checkErrorBody(what, body)
		}
		return
	}
	contract.mu.Lock()
	contract.statuses[fmt.Sprintf("%s %s %d", req.Method, route.Path, resp.StatusCode)] = true
	contract.mu.Unlock()
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if resp.StatusCode/100 == 2 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			noteDrift("%s: the server accepted a request the document refuses: %v\nrequest: %.300s", what, err, reqBody)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: !whole}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		noteDrift("%s: the answer does not match the document: %v\nbody: %.300s", what, err, body)
	}
}

// checkErrorBody checks an answer of no documented operation against
// the Error schema.
func checkErrorBody(what string, body []byte) {
	doc, _, _ := loadContract()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		noteDrift("%s: an error answer that is not JSON: %.200s", what, body)
		return
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		noteDrift("%s: an error answer that does not match Error: %v\nbody: %.300s", what, err, body)
	}
}

func noteDrift(format string, args ...any) {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	contract.drifts++
	if len(contract.drift) < 50 {
		contract.drift = append(contract.drift, fmt.Sprintf(format, args...))
	}
}

func TestMain(m *testing.M) {
	nethttp.DefaultTransport = contractCheck{base: nethttp.DefaultTransport}
	code := m.Run()
	contract.mu.Lock()
	drift, drifts, checked := contract.drift, contract.drifts, contract.checked
	contract.mu.Unlock()
	if drifts > 0 {
		fmt.Fprintf(os.Stderr, "the HTTP API drifted from openapi.json in %d of %d checked exchanges (the first %d):\n", drifts, checked, len(drift))
		for _, d := range drift {
			fmt.Fprintln(os.Stderr, "  -", d)
		}
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// TestOpenAPIDocumentNamesEveryRoute: the document's operations are
// exactly the server's routes, with their methods.
func TestOpenAPIDocumentNamesEveryRoute(t *testing.T) {
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	served := map[string]bool{}
	for path, r := range routes {
		served[r.method+" "+path] = true
	}
	for _, action := range []string{"query", "commit", "rollback"} {
		r, ok := transactionRoute(transactionPrefix + "0123/" + action)
		if !ok {
			t.Fatalf("no transaction route for %s", action)
		}
		served[r.method+" "+transactionPrefix+"{transaction_id}/"+action] = true
	}
	var missing, extra []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("routes the document does not describe: %v; operations the server does not serve: %v", missing, extra)
	}
}

// TestOpenAPIServed: GET /api/v1/openapi.json answers the document,
// without credentials even when authentication is on.
func TestOpenAPIServed(t *testing.T) {
	f := newAuthFixture(t, Config{})
	a := f.send("GET", openAPIPath, "")
	if a.status != 200 || !bytes.Equal([]byte(a.raw), openAPIDocument) {
		t.Fatalf("GET %s: %d, %d bytes (want the %d of the document)", openAPIPath, a.status, len(a.raw), len(openAPIDocument))
	}
	if a := f.send("GET", "/api/v1/status", ""); a.status != 401 {
		t.Fatalf("status without credentials: %d, want 401 (authentication is on)", a.status)
	}
}

// TestContractCheckCatchesDrift: the check refuses an answer with a
// field the document does not name, a status it does not list, and a
// wrong type, so that the suite's silence means something.
func TestContractCheckCatchesDrift(t *testing.T) {
	if _, _, err := loadContract(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"an unknown field", "/api/v1/health", 200, `{"status":"healthy","version":"v","uptime_seconds":1,"checks":{"database":"ok","storage":"ok","replication":"ok","connections":"ok"},"extra":1}`},
		{"an undocumented status", "/api/v1/health", 418, `{"error":{"code":"22000","message":"x"}}`},
		{"a wrong type", "/api/v1/health", 200, `{"status":"healthy","version":"v","uptime_seconds":"1","checks":{"database":"ok","storage":"ok","replication":"ok","connections":"ok"}}`},
	} {
		before := driftCount()
		req, _ := nethttp.NewRequest("GET", "http://127.0.0.1:1"+c.path, nil)
		resp := &nethttp.Response{StatusCode: c.status, Header: nethttp.Header{"Content-Type": {"application/json"}}}
		checkExchange(req, nil, resp, []byte(c.body), true)
		if driftCount() != before+1 {
			t.Errorf("%s: not caught", c.name)
		}
		forgetDrift(before)
	}
	before := driftCount()
	req, _ := nethttp.NewRequest("GET", "http://127.0.0.1:1/api/v1/health", nil)
	resp := &nethttp.Response{StatusCode: 200, Header: nethttp.Header{"Content-Type": {"application/json"}}}
	checkExchange(req, nil, resp, []byte(`{"status":"healthy","version":"v","uptime_seconds":1,"checks":{"database":"ok","storage":"ok","replication":"ok","connections":"ok"}}`), true)
	if driftCount() != before {
		t.Error("a conforming answer was refused")
		forgetDrift(before)
	}
}

func driftCount() int {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	return contract.drifts
}

// forgetDrift drops the drift the test above provoked on purpose.
func forgetDrift(n int) {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	contract.drift = contract.drift[:min(n, len(contract.drift))]
	contract.drifts = n
}
