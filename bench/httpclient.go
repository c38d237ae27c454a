package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
)

// HTTPServer is Quiver's HTTP API serving db on a loopback port of this
// process, and a client for it.
type HTTPServer struct {
	URL    string
	srv    *qhttp.Server
	client *http.Client
}

// StartHTTP serves db on 127.0.0.1 at a free port.
func StartHTTP(db *engine.DB) (*HTTPServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := qhttp.New(qhttp.Config{Logger: quiet, Version: "bench"}, db)
	go srv.Serve(ln)
	return &HTTPServer{URL: "http://" + ln.Addr().String(), srv: srv, client: &http.Client{}}, nil
}

// Close stops the server.
func (h *HTTPServer) Close() error { return h.srv.Shutdown(context.Background()) }

// Query posts text to /api/v1/query and returns the normalised rows.
func (h *HTTPServer) Query(ctx context.Context, text string) (Rows, error) {
	return postQuery(ctx, h.client, h.URL, text)
}

// postQuery posts text to base's /api/v1/query and returns the normalised
// rows; an answer other than 200 is an error carrying its body.
func postQuery(ctx context.Context, client *http.Client, base, text string) (Rows, error) {
	body, _ := json.Marshal(map[string]any{"query": text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/query", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	return DecodeHTTPResult(raw)
}

// DecodeHTTPResult turns a query result document (SPEC.md: schema.fields,
// data rows keyed by column name) into rows in schema order.
func DecodeHTTPResult(raw []byte) (Rows, error) {
	var doc struct {
		Schema struct {
			Fields []struct{ Name string } `json:"fields"`
		} `json:"schema"`
		Data []map[string]any `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("query result: %w", err)
	}
	out := make(Rows, len(doc.Data))
	for i, obj := range doc.Data {
		row := make([]any, len(doc.Schema.Fields))
		for c, f := range doc.Schema.Fields {
			row[c] = Normalize(obj[f.Name])
		}
		out[i] = row
	}
	return out, nil
}
