package bench

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/wire"
)

// TestTimeProtocols times every protocol client against servers in this
// process, wired as quiver serve wires them (HTTP and wire on one TCP
// port, QUIC on the same UDP port): every round trip answers, the
// streams count exactly the rows the query yields, and a query failing
// while its rows stream is an error.
func TestTimeProtocols(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ws := wire.New(wire.Config{Logger: quiet, Version: "bench"}, db)
	hs := qhttp.New(qhttp.Config{Logger: quiet, Version: "bench"}, db)
	go hs.Serve(ws.Split(ln))
	cert, err := wire.LoadOrCreateCertificate(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	go ws.ServeQUIC(pc, wire.TLSConfig(cert.TLS))
	defer func() {
		hs.Shutdown(context.Background())
		ws.Shutdown(context.Background())
	}()
	ctx := context.Background()
	addr := ln.Addr().String()
	dials := map[string]func() (ProtocolClient, error){
		"HTTP":             func() (ProtocolClient, error) { return DialHTTP(addr), nil },
		"wire, TCP":        func() (ProtocolClient, error) { return DialWireTCP(ctx, addr) },
		"wire, TCP, lines": func() (ProtocolClient, error) { return DialWireLines(ctx, addr) },
		"wire, QUIC":       func() (ProtocolClient, error) { return DialWireQUIC(ctx, addr, cert.Fingerprint) },
	}
	for name, dial := range dials {
		t.Run(name, func(t *testing.T) {
			c, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tm, err := TimeProtocol(ctx, name, c, 5, 20, 30_000)
			if err != nil {
				t.Fatal(err)
			}
			if tm.RoundTrips.N != 20 || tm.Rows != 30_000 || tm.RowsPerSecond() <= 0 {
				t.Fatalf("timing %+v", tm)
			}
			if _, err := c.Stream(ctx, "UNWIND range(1, 5000) AS i RETURN 10 / (i - 4000)"); err == nil {
				t.Fatal("a query failing while its rows stream must be an error")
			}
			if err := c.RoundTrip(ctx); err != nil {
				t.Fatalf("after a failed stream: %v", err)
			}
		})
	}
}
