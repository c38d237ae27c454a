package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// Silent connections from many addresses, more than the sniffing bound
// holds, cannot lock new clients out: at the bound the connection
// awaited longest is closed to make room, the newcomer that sends its
// request at once is served, and the HTTP listener hears that the
// ceiling was reached. Handed-on connections tell when they were
// accepted, so that the HTTP head's deadline counts the sniffing.
func TestSplitEvictsTheLongestSilentConnection(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 3*maxSniffing {
		t.Fatalf("this test needs %d open files, the limit is %d (%v): raise it (ulimit -n)", 3*maxSniffing, lim.Cur, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Logger: quietLogger(), Version: "v", SniffTimeout: time.Minute}, openDB(t))
	httpLn := srv.Split(ln)
	var hits atomic.Int64
	httpLn.(interface{ OnCeiling(func()) }).OnCeiling(func() { hits.Add(1) })
	var accepted atomic.Int64 // unix nanoseconds of the last request's connection's accept
	hs := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		if a, ok := ctx.Conn().(interface{ AcceptedAt() time.Time }); ok {
			accepted.Store(a.AcceptedAt().UnixNano())
		}
		ctx.SetBodyString("ok")
	}}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(httpLn) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.ShutdownWithContext(ctx)
		_ = srv.Shutdown(ctx)
		<-served
	}()
	addr := ln.Addr().String()
	// maxSniffing silent connections, 32 from each of many addresses
	// (below one client's share).
	silent := make([]net.Conn, maxSniffing)
	for i := range silent {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 4, 0, byte(1+i/32))}}
		if silent[i], err = d.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		defer silent[i].Close()
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		h := httpLn.(*httpListener)
		h.sniffs.mu.Lock()
		n := h.sniffs.order.Len()
		h.sniffs.mu.Unlock()
		if n == maxSniffing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d silent connections are being sniffed", n, maxSniffing)
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := time.Now()
	status, body, err := fasthttp.GetTimeout(nil, "http://"+addr+"/x", 10*time.Second)
	if err != nil || status != 200 || string(body) != "ok" {
		t.Fatalf("HTTP beside %d silent connections: %d %q %v", maxSniffing, status, body, err)
	}
	if at := time.Unix(0, accepted.Load()); at.Before(before.Add(-time.Second)) || at.After(time.Now()) {
		t.Errorf("the handed-on connection says it was accepted at %v, the request began at %v", at, before)
	}
	_ = silent[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := silent[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the longest silent connection: %v, want it closed (EOF)", err)
	}
	if hits.Load() == 0 {
		t.Error("the HTTP listener was not told that the sniffing bound was reached")
	}
}
