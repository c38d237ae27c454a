package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// The split listener serves HTTP and the wire protocol on one port.
func TestSplitKeepsHTTP(t *testing.T) {
	db := openDB(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Logger: quietLogger(), Version: "v", SniffTimeout: 300 * time.Millisecond}, db)
	httpLn := srv.Split(ln)
	hs := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.SetBodyString("http:" + string(ctx.Path()))
	}}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(httpLn) }()
	addr := ln.Addr().String()

	for i := 0; i < 3; i++ {
		status, body, err := fasthttp.Get(nil, "http://"+addr+"/hello")
		if err != nil || status != 200 || string(body) != "http:/hello" {
			t.Fatalf("HTTP through the split listener: %d %q %v", status, body, err)
		}
		c := dial(t, addr)
		if r := c.ok(`RETURN 41 + 1 AS x`); num(t, r.rows[0]["x"]) != 42 {
			t.Fatalf("wire through the split listener: %v", r.rows)
		}
	}
	// The nc example: one line in, a WELCOME line out.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, `{"type":"HELLO","version":"1.0"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"type":"WELCOME","version":"1.0"`) {
		t.Fatalf("nc-style HELLO got %q %v", line, err)
	}
	// A silent connection is dropped after the sniff timeout and holds
	// nothing up meanwhile.
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if status, _, err := fasthttp.Get(nil, "http://"+addr+"/again"); err != nil || status != 200 {
		t.Fatalf("HTTP beside a silent connection: %d %v", status, err)
	}
	_ = silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("silent connection: %v, want EOF", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.ShutdownWithContext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Errorf("HTTP serve: %v", err)
	}
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// startQUIC serves db over QUIC on a loopback UDP port.
func startQUIC(t *testing.T, cfg Config, db *engine.DB) (*Server, string, *Certificate) {
	t.Helper()
	cert, err := LoadOrCreateCertificate(t.TempDir(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger, cfg.Version = quietLogger(), "v"
	srv := New(cfg, db)
	done := make(chan error, 1)
	go func() { done <- srv.ServeQUIC(pc, TLSConfig(cert.TLS)) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv, pc.LocalAddr().String(), cert
}

// clientTLS trusts exactly cert.
func clientTLS(t *testing.T, cert *Certificate) *tls.Config {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.TLS.Certificate[0]}))
	return &tls.Config{RootCAs: pool, ServerName: "localhost", NextProtos: []string{ALPN}}
}

func dialQUIC(t *testing.T, addr string, tc *tls.Config) *quic.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := quic.DialAddr(ctx, addr, tc, &quic.Config{KeepAlivePeriod: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseWithError(0, "") })
	return conn
}

func openStream(t *testing.T, conn *quic.Conn) *tconn {
	t.Helper()
	st, err := conn.OpenStreamSync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_ = st.SetDeadline(time.Now().Add(60 * time.Second))
	return &tconn{t: t, c: st, r: bufio.NewReader(st)}
}

// Every message type over QUIC, two sessions on one connection.
func TestQUICSessions(t *testing.T) {
	var counts connCounter
	_, addr, cert := startQUIC(t, Config{Window: 10, Conns: &counts}, openDB(t))
	conn := dialQUIC(t, addr, clientTLS(t, cert))
	if p := conn.ConnectionState().TLS.NegotiatedProtocol; p != ALPN {
		t.Errorf("ALPN %q", p)
	}
	a, b := openStream(t, conn), openStream(t, conn)
	wa, wb := a.hello(), b.hello()
	if wa["session_id"] == wb["session_id"] {
		t.Error("two streams share a session")
	}
	a.send(`{"type":"PING"}`)
	a.expect("SUCCESS")
	a.send(`{"type":"BEGIN"}`)
	a.expect("SUCCESS")
	a.ok(`CREATE (:Q {i: 1})`)
	if r := b.ok(`MATCH (q:Q) RETURN count(q) AS c`); num(t, r.rows[0]["c"]) != 0 {
		t.Error("uncommitted write visible")
	}
	a.send(`{"type":"COMMIT"}`)
	a.expect("SUCCESS")
	a.send(`{"type":"BEGIN"}`)
	a.expect("SUCCESS")
	a.send(`{"type":"ROLLBACK"}`)
	a.expect("SUCCESS")
	r := b.run(`UNWIND range(1, 25) AS i RETURN i`, nil)
	if !r.paused || len(r.rows) != 10 {
		t.Fatalf("window: %d rows, paused %v", len(r.rows), r.paused)
	}
	b.send(`{"type":"PULL","n":10}`)
	if r = b.readResult(); !r.paused || len(r.rows) != 10 {
		t.Fatalf("PULL: %d rows, paused %v", len(r.rows), r.paused)
	}
	b.send(`{"type":"DISCARD"}`)
	b.expect("SUCCESS")
	if r = b.ok(`EXPLAIN MATCH (q:Q) RETURN q`); r.explain == nil {
		t.Error("no EXPLAIN")
	}
	if r = b.ok(`PROFILE MATCH (q:Q) RETURN q`); r.profile == nil || len(r.rows) != 1 {
		t.Error("no PROFILE")
	}
	b.send(`{"type":"NOPE"}`)
	b.expectError(engine.CodeData)
	if counts.opened.Load() != 1 {
		t.Errorf("Conns.Opened called %d times for one QUIC connection", counts.opened.Load())
	}
}

// A QUIC client that opens no stream is closed at the HELLO timeout, and
// the ALPN must be quiver/1.
func TestQUICIdleAndALPN(t *testing.T) {
	_, addr, cert := startQUIC(t, Config{HelloTimeout: 300 * time.Millisecond}, openDB(t))
	conn := dialQUIC(t, addr, clientTLS(t, cert))
	select {
	case <-conn.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a connection without a session stays open")
	}
	tc := clientTLS(t, cert)
	tc.NextProtos = []string{"h3"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if c, err := quic.DialAddr(ctx, addr, tc, nil); err == nil {
		c.CloseWithError(0, "")
		t.Fatal("a connection with ALPN h3 was accepted")
	}
}

func TestShutdownEndsSessions(t *testing.T) {
	db := openDB(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Logger: quietLogger()}, db)
	done := make(chan error, 1)
	go func() { done <- srv.ServeTCP(ln) }()
	c := dial(t, ln.Addr().String())
	c.send(`{"type":"BEGIN"}`)
	c.expect("SUCCESS")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.expectError(engine.CodeUnavailable)
	c.expectClosed()
	if n := db.OpenTransactions(); n != 0 {
		t.Errorf("%d transactions open after shutdown", n)
	}
}

func TestCertificate(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreateCertificate(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !a.Generated || len(a.Fingerprint) != 95 {
		t.Errorf("first start: %+v", a)
	}
	fi, err := os.Stat(filepath.Join(dir, "tls", "wire-key.pem"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi, err)
	}
	b, err := LoadOrCreateCertificate(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if b.Generated || b.Fingerprint != a.Fingerprint {
		t.Errorf("second start made a new certificate: %s vs %s", b.Fingerprint, a.Fingerprint)
	}
	leaf, err := x509.ParseCertificate(b.TLS.Certificate[0])
	if err != nil || leaf.PublicKeyAlgorithm != x509.ECDSA || leaf.VerifyHostname("localhost") != nil {
		t.Errorf("certificate: %v %v", leaf, err)
	}
	// The operator's files.
	c, err := LoadOrCreateCertificate("", a.CertFile, a.KeyFile)
	if err != nil || c.Fingerprint != a.Fingerprint || c.Generated {
		t.Errorf("from files: %+v %v", c, err)
	}
	if _, err := LoadOrCreateCertificate("", a.CertFile, ""); err == nil {
		t.Error("a certificate without its key was accepted")
	}
	if _, err := LoadOrCreateCertificate("", filepath.Join(dir, "none.pem"), a.KeyFile); err == nil {
		t.Error("a missing certificate file was accepted")
	}
	// A damaged stored pair is replaced.
	if err := os.WriteFile(a.CertFile, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadOrCreateCertificate(dir, "", "")
	if err != nil || !d.Generated || d.Fingerprint == a.Fingerprint {
		t.Errorf("damaged pair: %+v %v", d, err)
	}
}

// One client's silent connections take at most its share of the
// connections awaiting their first byte: past it its new ones are closed
// at once, and when one of the silent ones goes, it may connect again.
func TestSplitBoundsOneClientsSilentConnections(t *testing.T) {
	db := openDB(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Logger: quietLogger(), Version: "v", SniffTimeout: time.Minute}, db)
	httpLn := srv.Split(ln)
	defer httpLn.Close()
	addr := ln.Addr().String()
	silent := make([]net.Conn, maxSniffingPerClient)
	for i := range silent {
		if silent[i], err = net.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		defer silent[i].Close()
	}
	// The accept loop takes connections in order: once the next one is
	// closed unread, all of the silent ones are being sniffed.
	closedAtOnce := func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = c.Read(make([]byte, 1))
		return errors.Is(err, io.EOF)
	}
	if !closedAtOnce() {
		t.Fatalf("a connection beyond %d silent ones of one client was not closed", maxSniffingPerClient)
	}
	silent[0].Close()
	// The release follows the silent connection's close: a new
	// connection is served once it has happened.
	welcomed := func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, `{"type":"HELLO","version":"1.0"}`+"\n")
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.HasPrefix(line, `{"type":"WELCOME"`)
	}
	for deadline := time.Now().Add(10 * time.Second); !welcomed(); {
		if time.Now().After(deadline) {
			t.Fatal("no connection was served after a silent one closed")
		}
	}
}
