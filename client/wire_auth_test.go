package client

import (
	"context"
	"crypto/tls"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestWireHelloAuth(t *testing.T) {
	f := startFakeWireServer(t, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range []struct {
		opts WireOptions
		want map[string]any
	}{
		{WireOptions{}, nil},
		{WireOptions{Username: "alice", Password: "s3cret"}, map[string]any{"username": "alice", "password": "s3cret"}},
		{WireOptions{Username: "alice", Password: "s3cret", AuthMethod: WireAuthBasic}, map[string]any{"username": "alice", "password": "s3cret", "method": "basic"}},
		{WireOptions{AuthMethod: WireAuthBearer, Password: "eyJ.tok"}, map[string]any{"method": "bearer", "password": "eyJ.tok"}},
		{WireOptions{AuthMethod: WireAuthAPIKey, Password: "qk_key"}, map[string]any{"method": "api_key", "password": "qk_key"}},
	} {
		s, err := DialTCP(ctx, f.addr(), &c.opts)
		if err != nil {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		s.Close()
		f.mu.Lock()
		got := f.auths[len(f.auths)-1]
		f.mu.Unlock()
		if c.want == nil && got != nil || c.want != nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: HELLO.auth %v, want %v", c.opts, got, c.want)
		}
	}
	// A refused HELLO is the server's *Error.
	_, err := DialTCP(ctx, f.addr(), &WireOptions{Username: "alice", Password: "wrong"})
	var e *Error
	if !errors.As(err, &e) || e.Code != "08001" || e.Category != "AUTH_FAILED" {
		t.Errorf("wrong password: %v", err)
	}
	_, err = DialTCP(ctx, f.addr(), &WireOptions{Username: "alice", Password: "limited"})
	if !errors.As(err, &e) || e.Code != "RATE_LIMIT_EXCEEDED" || e.RetryAfter != 60 {
		t.Errorf("limited: %v (%+v)", err, e)
	}
}

func TestWireTLSOverTCP(t *testing.T) {
	certFile, keyFile, err := writeSelfSignedCert(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	alpn := make(chan string, 10)
	srvConf := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1", WireALPN},
		VerifyConnection: func(cs tls.ConnectionState) error { alpn <- cs.NegotiatedProtocol; return nil }}
	f := startFakeTLSWireServer(t, 100, srvConf)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	trust, err := TLSConfigFromCA(certFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DialTCP(ctx, f.addr(), &WireOptions{TLS: trust, Username: "alice", Password: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Run(ctx, "UNWIND range(1, 3) AS i RETURN i", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if rows.Close(); n != 3 || rows.Err() != nil {
		t.Errorf("rows over TLS: %d, %v", n, rows.Err())
	}
	s.Close()
	if got := <-alpn; got != WireALPN {
		t.Errorf("negotiated ALPN %q, want %s", got, WireALPN)
	}
	// A client that does not trust the certificate fails the handshake.
	if _, err := DialTCP(ctx, f.addr(), &WireOptions{TLS: &tls.Config{MinVersion: tls.VersionTLS12}}); err == nil {
		t.Error("an untrusted certificate was accepted")
	}
	// Plain TCP to a TLS port does not get a session.
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	if _, err := DialTCP(short, f.addr(), nil); err == nil {
		t.Error("plain TCP to a TLS port got a session")
	}
}

func TestTLSConfigFromCA(t *testing.T) {
	if _, err := TLSConfigFromCA(t.TempDir() + "/missing.pem"); err == nil {
		t.Error("a missing CA file was accepted")
	}
	dir := t.TempDir()
	_, keyFile, err := writeSelfSignedCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TLSConfigFromCA(keyFile); err == nil {
		t.Error("a file without certificates was accepted")
	}
}
