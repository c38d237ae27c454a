package http

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	nethttp "net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

func ipPrincipal(s string) principal { return principal{addr: netip.MustParseAddr(s)} }

// The window: limit requests, then refusals that do not count, then a
// fresh window once the hour is over; peek counts nothing.
func TestRateLimiterWindow(t *testing.T) {
	l := newRateLimiter(3, slog.New(slog.NewTextHandler(io.Discard, nil)))
	p, other := ipPrincipal("192.0.2.1"), ipPrincipal("192.0.2.2")
	const t0 = 1_700_000_000
	for i, want := range []uint32{2, 1, 0} {
		d := l.take(p, t0+int64(i))
		if !d.allowed || d.remaining != want || d.reset != t0+rateWindow {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	for i := range 5 {
		if d := l.take(p, t0+100+int64(i)); d.allowed || d.remaining != 0 || d.reset != t0+rateWindow {
			t.Fatalf("refusal %d: %+v", i, d)
		}
	}
	if d := l.peek(p, t0+200); d.allowed || d.remaining != 0 {
		t.Errorf("peek over the limit: %+v", d)
	}
	if d := l.take(other, t0+200); !d.allowed || d.remaining != 2 || d.reset != t0+200+rateWindow {
		t.Errorf("another principal: %+v", d)
	}
	if d := l.peek(other, t0+201); !d.allowed || d.remaining != 2 {
		t.Errorf("peek counted or misread: %+v", d)
	}
	if d := l.take(p, t0+rateWindow); !d.allowed || d.remaining != 2 || d.reset != t0+2*rateWindow {
		t.Errorf("next window: %+v", d)
	}
	if newRateLimiter(0, nil) != nil || newRateLimiter(-1, nil) != nil {
		t.Error("a zero or negative limit made a limiter")
	}
}

// An IPv6 client counts by its /64; IPv4 addresses, mapped or not, are
// one principal each.
func TestPrincipalOf(t *testing.T) {
	cases := []struct{ remote, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"},
		{"::1", "::"},
	}
	for _, c := range cases {
		var ctx fasthttp.RequestCtx
		ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.ParseIP(c.remote), Port: 9}, nil)
		if got := principalOf(&ctx, nil); got.addr != netip.MustParseAddr(c.want) || got.name != "" {
			t.Errorf("%s: principal %v, want %s", c.remote, got, c.want)
		}
	}
}

// Ended windows are swept away, and a shard full of live ones lets new
// principals through uncounted, with a warning, rather than refusing them.
func TestRateLimiterBoundedTable(t *testing.T) {
	var logged strings.Builder
	l := newRateLimiter(1, slog.New(slog.NewTextHandler(&logged, nil)))
	const t0 = 1_700_000_000
	perShard := maxRatePrincipals / rateShards
	// Fill shard 0 with live windows.
	var addrs []principal
	for i := uint32(0); len(addrs) < perShard; i++ {
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], i)
		p := principal{addr: netip.AddrFrom4(a)}
		if l.shardOf(p) == 0 {
			addrs = append(addrs, p)
			l.take(p, t0)
		}
	}
	if n := len(l.shards[0].mu.entries); n != perShard {
		t.Fatalf("shard 0 holds %d entries, want %d", n, perShard)
	}
	var extra principal
	for i := uint32(1 << 31); ; i++ {
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], i)
		if extra = (principal{addr: netip.AddrFrom4(a)}); l.shardOf(extra) == 0 {
			break
		}
	}
	for range 3 {
		if d := l.take(extra, t0+10); !d.allowed {
			t.Fatalf("a new principal of a full shard was refused: %+v", d)
		}
	}
	if !strings.Contains(logged.String(), "rate-limit table is full") {
		t.Errorf("no warning: %q", logged.String())
	}
	if d := l.take(addrs[0], t0+10); d.allowed {
		t.Errorf("a counted principal got past its limit while the table was full")
	}
	// An hour later every window ended: the next insert sweeps them.
	if d := l.take(extra, t0+rateWindow+1); !d.allowed || d.remaining != 0 {
		t.Fatalf("after the sweep: %+v", d)
	}
	if n := len(l.shards[0].mu.entries); n != 1 {
		t.Errorf("after the sweep shard 0 holds %d entries, want 1", n)
	}
	if d := l.take(extra, t0+rateWindow+2); d.allowed {
		t.Errorf("the swept-in principal is not counted: %+v", d)
	}
}

// rateHeaders reads the three headers; -1 for one that is missing.
func rateHeaders(h nethttp.Header) (limit, remaining, reset int64) {
	get := func(k string) int64 {
		n, err := strconv.ParseInt(h.Get(k), 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	return get("X-RateLimit-Limit"), get("X-RateLimit-Remaining"), get("X-RateLimit-Reset")
}

// Over HTTP: every answer carries the headers (errors, 404, 405, a
// streamed result, a transport error, a preflight), the limit's next
// request gets the spec's 429, and the health endpoint is not counted.
func TestRateLimitOverHTTP(t *testing.T) {
	const limit = 8
	base := startServer(t, Config{RateLimit: limit, MaxBodyBytes: 4096}, openDB(t, engine.Options{}))
	before := time.Now().Unix()
	big := `{"query":"UNWIND range(1, 40000) AS i RETURN i, 'row number ' + toString(i) AS s"}`
	requests := []struct {
		name, method, path, body string
		status                   int
	}{
		{"query", "POST", "/api/v1/query", `{"query":"RETURN 1 AS x"}`, 200},
		{"syntax error", "POST", "/api/v1/query", `{"query":"RETRUN 1"}`, 400},
		{"unknown path", "GET", "/api/v1/nothing", ``, 404},
		{"wrong method", "GET", "/api/v1/query", ``, 405},
		{"streamed", "POST", "/api/v1/query", big, 200},
		{"too large", "POST", "/api/v1/query", `{"query":"RETURN '` + strings.Repeat("x", 5000) + `'"}`, 413},
		{"preflight", "OPTIONS", "/api/v1/query", ``, 204},
		{"experimental", "POST", "/query", `{"query":"RETURN 1 AS x"}`, 200},
	}
	for i, r := range requests {
		req, _ := nethttp.NewRequest(r.method, base+r.path, strings.NewReader(r.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		lim, rem, reset := rateHeaders(resp.Header)
		if resp.StatusCode != r.status || lim != limit || rem != int64(limit-1-i) || reset < before+rateWindow || reset > time.Now().Unix()+rateWindow {
			t.Errorf("%s: %d, headers limit %d remaining %d reset %d; body %.200s", r.name, resp.StatusCode, lim, rem, reset, raw)
		}
	}
	// Health is exempt: it shows the standing without using it up.
	for range 3 {
		status, out, hdr := call(t, "GET", base+"/api/v1/health", "")
		if _, rem, _ := rateHeaders(hdr); status != 200 || rem != 0 {
			t.Fatalf("health at the limit: %d %v remaining %d", status, out, rem)
		}
	}
	for _, path := range []string{"/api/v1/query", "/api/v1/transaction/begin"} {
		req, _ := nethttp.NewRequest("POST", base+path, strings.NewReader(`{"query":"CREATE (:Over)"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var body struct {
			Error map[string]json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("429 body: %v: %s", err, raw)
		}
		var retry int64
		_ = json.Unmarshal(body.Error["retry_after"], &retry)
		lim, rem, reset := rateHeaders(resp.Header)
		after, _ := strconv.ParseInt(resp.Header.Get("Retry-After"), 10, 64)
		if resp.StatusCode != 429 || string(body.Error["code"]) != `"RATE_LIMIT_EXCEEDED"` ||
			!strings.Contains(string(body.Error["message"]), "8 requests per hour") || body.Error["category"] != nil {
			t.Errorf("%s over the limit: %d %s", path, resp.StatusCode, raw)
		}
		if lim != limit || rem != 0 || retry <= 0 || retry > rateWindow || after != retry || reset-time.Now().Unix() > retry {
			t.Errorf("%s over the limit: limit %d remaining %d reset %d Retry-After %d retry_after %d", path, lim, rem, reset, after, retry)
		}
	}
	// The refused write did not happen. (This request is refused too.)
	status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (n:Over) RETURN count(*) AS n"}`)
	if status != 429 {
		t.Errorf("still over the limit: %d %v", status, out)
	}
}

// A server without a limit writes no rate-limit headers.
func TestNoRateLimitNoHeaders(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	for range 3 {
		status, _, hdr := call(t, "POST", base+"/api/v1/query", `{"query":"RETURN 1 AS x"}`)
		if status != 200 || hdr.Get("X-RateLimit-Limit") != "" || hdr.Get("X-RateLimit-Remaining") != "" {
			t.Fatalf("%d %v", status, hdr)
		}
	}
}

// BenchmarkRateLimit measures the limiter on the request path, in
// parallel: "spread" is many clients (a map hit and a CAS each), "one" a
// single client every goroutine contends on, "headers" adds writing the
// three response headers, as every response does.
func BenchmarkRateLimit(b *testing.B) {
	l := newRateLimiter(1<<30, slog.New(slog.NewTextHandler(io.Discard, nil)))
	now := time.Now().Unix()
	const clients = 4096
	ps := make([]principal, clients)
	for i := range ps {
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], 0x0a000000+uint32(i)*7919)
		ps[i] = principal{addr: netip.AddrFrom4(a)}
	}
	var seq atomic.Uint64
	b.Run("spread", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := seq.Add(1) * 977
			for pb.Next() {
				i++
				if !l.take(ps[i%clients], now).allowed {
					b.Fatal("refused")
				}
			}
		})
	})
	b.Run("one", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !l.take(ps[0], now).allowed {
					b.Fatal("refused")
				}
			}
		})
	})
	b.Run("headers", func(b *testing.B) {
		s := &Server{limiter: l}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var ctx fasthttp.RequestCtx
			ctx.Init(&fasthttp.Request{}, &net.TCPAddr{IP: net.IPv4(10, 0, 0, byte(seq.Add(1))), Port: 9}, nil)
			ctx.Request.SetRequestURI("/api/v1/query")
			for pb.Next() {
				if s.limitRequest(&ctx, now, nil) != nil {
					b.Fatal("refused")
				}
			}
		})
	})
}
