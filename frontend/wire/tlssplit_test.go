package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// tlsSplit serves Split on a TLS port: HTTP answers whether the request
// came over TLS. It returns the address and a client configuration that
// trusts the server's self-signed certificate.
func tlsSplit(t *testing.T, sniff time.Duration) (addr string, client *tls.Config) {
	t.Helper()
	certPEM, keyPEM, err := selfSigned()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	getCert := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
	srv := New(Config{Logger: quietLogger(), Version: "v", SniffTimeout: sniff, TLS: MainTLSConfig(getCert)}, openDB(t))
	hs := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		if ctx.IsTLS() {
			ctx.SetBodyString("https:" + string(ctx.Path()))
		} else {
			ctx.SetBodyString("http:" + string(ctx.Path()))
		}
	}}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(srv.Split(ln)) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.ShutdownWithContext(ctx)
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-served
	})
	return ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "localhost"}
}

// dialTLS connects with TLS (ALPN protos) and wraps the connection as a
// test client.
func dialTLS(t *testing.T, addr string, conf *tls.Config, protos ...string) (*tconn, *tls.Conn) {
	t.Helper()
	conf = conf.Clone()
	conf.NextProtos = protos
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, conf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	return &tconn{t: t, c: c, r: bufio.NewReaderSize(c, 1<<20)}, c
}

// A TLS port serves HTTPS and the wire protocol inside TLS, by ALPN or
// by the first decrypted byte.
func TestTLSSplitServesBoth(t *testing.T) {
	addr, conf := tlsSplit(t, 5*time.Second)
	hconf := conf.Clone()
	hconf.NextProtos = []string{"h2", ALPNHTTP} // the server has no h2: http/1.1 is chosen
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: hconf}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	for range 2 {
		resp, err := hc.Get("https://" + addr + "/hello")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "https:/hello" || resp.TLS == nil || resp.TLS.NegotiatedProtocol != ALPNHTTP {
			t.Fatalf("HTTPS: %d %q %+v", resp.StatusCode, body, resp.TLS)
		}
	}
	for _, protos := range [][]string{nil, {ALPN}, {"h2", ALPN}} {
		c, tc := dialTLS(t, addr, conf, protos...)
		c.hello()
		if r := c.ok(`RETURN 41 + 1 AS x`); num(t, r.rows[0]["x"]) != 42 {
			t.Fatalf("wire over TLS (ALPN %v): %v", protos, r.rows)
		}
		if v := tc.ConnectionState().Version; v < tls.VersionTLS12 {
			t.Errorf("TLS version %x", v)
		}
	}
	// HTTP without ALPN: the first decrypted byte decides.
	_, tc := dialTLS(t, addr, conf)
	io.WriteString(tc, "GET /raw HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	b, _ := io.ReadAll(tc)
	if !strings.HasPrefix(string(b), "HTTP/1.1 200") || !strings.HasSuffix(string(b), "https:/raw") {
		t.Errorf("HTTPS without ALPN: %q", b)
	}
}

// A plaintext client of a TLS port is told so and closed; a handshake
// below TLS 1.2, a stalled one, or garbage are closed.
func TestTLSSplitRefusesPlaintext(t *testing.T) {
	addr, conf := tlsSplit(t, 300*time.Millisecond)

	c := dialRaw(t, addr)
	c.send(`{"type":"HELLO","version":"1.0"}`)
	if m := c.expectError("08000"); !strings.Contains(m["message"].(string), "speaks TLS") {
		t.Errorf("plaintext HELLO: %v", m)
	}
	c.expectClosed()

	resp, err := http.Get("http://" + addr + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "this port speaks TLS") {
		t.Errorf("plaintext HTTP: %d %q", resp.StatusCode, body)
	}

	old := conf.Clone()
	old.MaxVersion = tls.VersionTLS11
	if c, err := tls.Dial("tcp", addr, old); err == nil {
		c.Close()
		t.Error("a TLS 1.1 handshake succeeded")
	}

	for _, first := range []string{"\x00\x01", "\x16"} { // garbage; a handshake that stalls
		raw, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		start := time.Now()
		io.WriteString(raw, first)
		_ = raw.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = io.Copy(io.Discard, raw)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%q: the connection was not closed", first)
		}
		if first == "\x16" && time.Since(start) < 250*time.Millisecond {
			t.Errorf("a stalled handshake was closed after %v, before the sniff timeout", time.Since(start))
		}
	}
}
