package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/client"
)

// A ProtocolClient is one client connection of a protocol the server
// speaks: the HTTP API, or the wire protocol over TCP or QUIC. The
// protocols measurement times the same two things over each.
type ProtocolClient interface {
	// RoundTrip runs TrivialQuery and waits for its whole answer.
	RoundTrip(ctx context.Context) error
	// Stream runs query and reads every row as the server sends it,
	// keeping none: it returns how many rows arrived.
	Stream(ctx context.Context, query string) (int64, error)
	Close() error
}

// TrivialQuery is the round trip's statement: parse, plan and one row, so
// the time is the protocol's.
const TrivialQuery = "RETURN 1 AS x"

// StreamQuery returns a statement yielding rows integers, 1 to rows.
func StreamQuery(rows int64) string {
	return "UNWIND range(1, " + strconv.FormatInt(rows, 10) + ") AS i RETURN i"
}

// httpProtocol is the HTTP API: round trips through fasthttp's client
// (it allocates nothing per request), streams through net/http, whose
// body is read as it arrives.
type httpProtocol struct {
	base   string
	hc     *fasthttp.HostClient
	req    *fasthttp.Request
	resp   *fasthttp.Response
	stream *http.Client
}

// DialHTTP is a ProtocolClient over the HTTP API at addr (host:port).
func DialHTTP(addr string) ProtocolClient {
	p := &httpProtocol{base: "http://" + addr, hc: &fasthttp.HostClient{Addr: addr, MaxConns: 1, ReadTimeout: time.Minute},
		req: fasthttp.AcquireRequest(), resp: fasthttp.AcquireResponse(),
		stream: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}}
	p.req.SetRequestURI(p.base + "/api/v1/query")
	p.req.Header.SetMethod(fasthttp.MethodPost)
	p.req.Header.SetContentType("application/json")
	p.req.SetBodyString(`{"query":"` + TrivialQuery + `"}`)
	return p
}

func (p *httpProtocol) RoundTrip(ctx context.Context) error {
	if err := p.hc.Do(p.req, p.resp); err != nil {
		return err
	}
	if p.resp.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("HTTP %d: %s", p.resp.StatusCode(), p.resp.Body())
	}
	return nil
}

// Stream reads the response through a small buffer and counts the rows
// from the metadata the response ends with (rows_returned), after
// checking that the body closed properly.
func (p *httpProtocol) Stream(ctx context.Context, query string) (int64, error) {
	body := `{"query":` + strconv.Quote(query) + `}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/api/v1/query", bytes.NewBufferString(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.stream.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	// Keep the last 4 KiB: the metadata and any failure are at the end.
	r := bufio.NewReaderSize(resp.Body, 256<<10)
	var tail []byte
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			tail = append(tail, buf[:n]...)
			if len(tail) > 4096 {
				tail = append(tail[:0], tail[len(tail)-4096:]...)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	i := bytes.LastIndex(tail, []byte(`"rows_returned":`))
	if i < 0 || bytes.Contains(tail, []byte(`"error":`)) {
		return 0, fmt.Errorf("the response ended without its metadata: …%s", tail[max(0, len(tail)-300):])
	}
	rest := tail[i+len(`"rows_returned":`):]
	j := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if j < 0 {
		j = len(rest)
	}
	return strconv.ParseInt(string(rest[:j]), 10, 64)
}

func (p *httpProtocol) Close() error {
	fasthttp.ReleaseRequest(p.req)
	fasthttp.ReleaseResponse(p.resp)
	p.hc.CloseIdleConnections()
	p.stream.CloseIdleConnections()
	return nil
}

// ProtocolTiming is what one protocol measured in one round.
type ProtocolTiming struct {
	Protocol string
	// RoundTrips is the trivial query's latency, one client, one
	// request at a time.
	RoundTrips LatencySummary
	// Rows streamed and the time from sending the query to its last row.
	Rows    int64
	Elapsed time.Duration
}

// RowsPerSecond is the streaming rate.
func (t ProtocolTiming) RowsPerSecond() float64 {
	if t.Elapsed <= 0 {
		return 0
	}
	return float64(t.Rows) / t.Elapsed.Seconds()
}

// TimeProtocol runs warmup untimed round trips, then n timed ones, then
// streams rows rows, all on one client.
func TimeProtocol(ctx context.Context, name string, c ProtocolClient, warmup, n int, rows int64) (ProtocolTiming, error) {
	t := ProtocolTiming{Protocol: name}
	for range warmup {
		if err := c.RoundTrip(ctx); err != nil {
			return t, fmt.Errorf("%s: round trip: %w", name, err)
		}
	}
	lat := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if err := c.RoundTrip(ctx); err != nil {
			return t, fmt.Errorf("%s: round trip: %w", name, err)
		}
		lat = append(lat, time.Since(t0))
	}
	t.RoundTrips = Summarize(lat)
	if rows > 0 {
		t0 := time.Now()
		got, err := c.Stream(ctx, StreamQuery(rows))
		t.Elapsed = time.Since(t0)
		if err != nil {
			return t, fmt.Errorf("%s: stream: %w", name, err)
		}
		if got != rows {
			return t, fmt.Errorf("%s: streamed %d rows, want %d", name, got, rows)
		}
		t.Rows = got
	}
	return t, nil
}

// wireProtocol is the wire protocol through the Go client, over TCP or
// QUIC: rows are pulled in the client's default windows (1000 rows).
type wireProtocol struct {
	s *client.WireSession
}

// DialWireTCP is a ProtocolClient over the wire protocol on TCP.
func DialWireTCP(ctx context.Context, addr string) (ProtocolClient, error) {
	s, err := client.DialTCP(ctx, addr, nil)
	if err != nil {
		return nil, err
	}
	return &wireProtocol{s: s}, nil
}

// DialWireQUIC is a ProtocolClient over the wire protocol on QUIC,
// trusting the certificate of the given SHA-256 fingerprint.
func DialWireQUIC(ctx context.Context, addr, fingerprint string) (ProtocolClient, error) {
	s, err := client.DialQUIC(ctx, addr, client.PinnedTLSConfig(fingerprint), nil)
	if err != nil {
		return nil, err
	}
	return &wireProtocol{s: s}, nil
}

func (p *wireProtocol) RoundTrip(ctx context.Context) error {
	_, err := p.Stream(ctx, TrivialQuery)
	return err
}

func (p *wireProtocol) Stream(ctx context.Context, query string) (int64, error) {
	rows, err := p.s.Run(ctx, query, nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

func (p *wireProtocol) Close() error { return p.s.Close() }
