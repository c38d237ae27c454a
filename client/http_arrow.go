package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// Arrow IPC results (docs/arrow.md): QueryArrow asks for a query's rows
// as an Arrow stream and reads them a record batch at a time, so a
// result of any size is never in memory whole.

// ArrowMediaType is the media type of an Arrow IPC stream.
const ArrowMediaType = "application/vnd.apache.arrow.stream"

// ArrowOption configures QueryArrow.
type ArrowOption func(*arrowRequest)

type arrowRequest struct{ compression string }

// WithArrowCompression asks for the stream's buffers compressed: "lz4"
// or "zstd" ("" or "none" for none). It pays where the network, not the
// CPU, bounds the transfer.
func WithArrowCompression(codec string) ArrowOption {
	return func(r *arrowRequest) { r.compression = codec }
}

// ArrowReader reads a result's record batches; it is an
// array.RecordReader. Call Next until it returns false, then Err: a
// query that failed after its first batch was sent ends the stream with
// the server's error, which Err returns as *Error. Release closes the
// response.
type ArrowReader struct {
	*ipc.Reader
	body io.ReadCloser
	tail *tailReader
	err  error
}

// Err is the error that ended the stream: the server's *Error when the
// query failed while its rows streamed, nil at a complete end.
func (r *ArrowReader) Err() error {
	if r.err != nil {
		return r.err
	}
	err := r.Reader.Err()
	if err == nil {
		return nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(r.tail, 1<<20)) // the rest of the failure message
	if e := r.tail.failure(); e != nil {
		r.err = e
	} else {
		r.err = fmt.Errorf("cannot read the Arrow stream: %w", err)
	}
	return r.err
}

// Release frees the reader and closes the response.
func (r *ArrowReader) Release() {
	r.Reader.Release()
	r.body.Close()
}

// QueryArrow runs a statement and returns a reader of its rows as Arrow
// record batches. An error before the first batch (a syntax error, a
// timeout) is returned here, as Query returns it.
func (c *HTTPClient) QueryArrow(ctx context.Context, query string, params map[string]any, opts ...ArrowOption) (*ArrowReader, error) {
	return c.runArrow(ctx, "/api/v1/query", query, params, opts)
}

// QueryArrow runs a statement in the transaction, its rows as Arrow.
func (t *HTTPTx) QueryArrow(ctx context.Context, query string, params map[string]any, opts ...ArrowOption) (*ArrowReader, error) {
	return t.c.runArrow(ctx, t.path("query"), query, params, opts)
}

func (c *HTTPClient) runArrow(ctx context.Context, path, query string, params map[string]any, opts []ArrowOption) (*ArrowReader, error) {
	var ar arrowRequest
	for _, o := range opts {
		o(&ar)
	}
	b, err := json.Marshal(c.withGraph(queryBody(ctx, query, params)))
	if err != nil {
		return nil, fmt.Errorf("cannot encode the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("cannot make the request: %w", err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	c.authorize(req, path)
	req.Header.Set("Content-Type", "application/json")
	accept := ArrowMediaType
	if ar.compression != "" {
		accept += "; compression=" + ar.compression
	}
	req.Header.Set("Accept", accept)
	if tp, ok := ctx.Value(traceKey{}).(string); ok && tp != "" {
		req.Header.Set("traceparent", tp)
	}
	resp, err := c.send(req)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return nil, fmt.Errorf("POST %s: cannot read the answer: %w", path, err)
		}
		return nil, answerError(resp, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != ArrowMediaType {
		resp.Body.Close()
		return nil, fmt.Errorf("POST %s: the answer is %q, not an Arrow stream", path, ct)
	}
	tail := &tailReader{r: resp.Body}
	rd, err := ipc.NewReader(tail)
	if err != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(tail, 1<<20))
		resp.Body.Close()
		if e := tail.failure(); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("POST %s: cannot read the Arrow stream: %w", path, err)
	}
	return &ArrowReader{Reader: rd, body: resp.Body, tail: tail}, nil
}

// tailKeep bounds the bytes a tailReader keeps: more than a failure
// message (whose error text the server cuts short) takes.
const tailKeep = 64 << 10

// tailReader keeps the last bytes read through it, where a failed
// stream's error is.
type tailReader struct {
	r    io.Reader
	last []byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.last = append(t.last, p[:n]...)
	if over := len(t.last) - tailKeep; over > tailKeep {
		t.last = append(t.last[:0], t.last[over:]...)
	}
	return n, err
}

// failure finds the failure message a server ends a failed stream with:
// a continuation marker, a length eight bytes past the end of the
// stream, and the error's JSON body.
func (t *tailReader) failure() *Error {
	b := t.last
	for at := bytes.LastIndex(b, []byte{0xFF, 0xFF, 0xFF, 0xFF}); at >= 0; at = bytes.LastIndex(b[:at], []byte{0xFF, 0xFF, 0xFF, 0xFF}) {
		if len(b) < at+8 || int(binary.LittleEndian.Uint32(b[at+4:])) != len(b)-at-8+8 {
			continue
		}
		var body struct {
			Error *errorJSON `json:"error"`
		}
		if err := decodeJSON(b[at+8:], &body); err == nil && body.Error != nil {
			return body.Error.toError(http.StatusOK, 0)
		}
	}
	return nil
}
