package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/metrics"
	qstream "github.com/quiverdb/quiver/frontend/stream"
	"github.com/quiverdb/quiver/frontend/wire"
)

// frontends are the protocols serve speaks on --listen: the HTTP API
// with the change stream's WebSocket on TCP, the wire protocol on the
// same TCP port (connections whose first byte is '{') and on QUIC at the
// same UDP port number.
type frontends struct {
	http   *qhttp.Server
	wire   *wire.Server
	stream *qstream.Server
	errc   chan error // a server that stopped on its own
	// addr is the address listened on, quicFingerprint the QUIC
	// certificate's SHA-256 fingerprint.
	addr, quicFingerprint string
}

// startFrontends listens on o.listen and serves db there; serve logs
// "listening" once it returns.
func startFrontends(o serveOptions, db *engine.DB, reg *metrics.Registry, log *slog.Logger) (*frontends, error) {
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return nil, fmt.Errorf("cannot listen: %w", err)
	}
	// parseServe loaded --tls-cert and --tls-key; without them the data
	// directory keeps a self-signed certificate.
	cert := &wire.Certificate{CertFile: o.tlsCert, KeyFile: o.tlsKey}
	if o.tlsCertificate != nil {
		cert.TLS, cert.Fingerprint = *o.tlsCertificate, wire.Fingerprint(*o.tlsCertificate)
	} else if cert, err = wire.LoadOrCreateCertificate(o.dataDir, "", ""); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot set up the wire protocol's certificate: %w", err)
	}
	if cert.Generated {
		log.Info("generated a self-signed certificate for the wire protocol", "cert", cert.CertFile, "fingerprint", cert.Fingerprint)
	}
	pc, err := net.ListenPacket("udp", ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot listen for QUIC on %s: %w", ln.Addr(), err)
	}
	fe := &frontends{errc: make(chan error, 2)}
	// WebSocket connections are upgraded HTTP ones: the HTTP listener
	// counts them, the stream does not again.
	fe.stream = qstream.New(qstream.Config{Logger: log, MaxConnections: o.maxConnections,
		CheckOrigin: func(*fasthttp.RequestCtx) bool { return true }}, db) // the HTTP server's origin policy has decided
	fe.http = qhttp.New(qhttp.Config{MaxConnections: o.maxConnections, MaxConnectionsPerClient: o.maxConnsPerClient,
		AllowedOrigins: o.allowedOrigins, RateLimit: o.rateLimit, Stream: fe.stream.Handler,
		Metrics: reg.WritePrometheus, Conns: reg, Stats: reg, NodeID: metrics.NodeID(o.dataDir), DataDir: o.dataDir,
		IdleTimeout: qhttp.DefaultIdleTimeout, Logger: log, Version: version}, db)
	fe.wire = wire.New(wire.Config{Version: version, Logger: log, MaxConnections: o.maxConnections,
		MaxConnectionsPerClient: o.maxConnsPerClient, Conns: reg}, db)
	go func() { fe.errc <- fe.http.Serve(fe.wire.Split(ln)) }()
	go func() { fe.errc <- fe.wire.ServeQUIC(pc, wire.TLSConfig(cert.TLS)) }()
	fe.addr, fe.quicFingerprint = ln.Addr().String(), cert.Fingerprint
	return fe, nil
}

// shutdown stops HTTP first (closing its listener closes the shared TCP
// one), then the wire sessions: idle ones at once, busy ones when their
// answer ends, all by ctx's deadline.
func (fe *frontends) shutdown(ctx context.Context) error {
	if err := fe.http.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := fe.wire.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown of the wire protocol: %w", err)
	}
	return nil
}

// metricsListener is the separate listener of QUIVER_METRICS_PORT.
type metricsListener struct {
	l *metrics.Listener
}

// startMetrics starts the metrics listener when QUIVER_METRICS_PORT asks
// for it; nil when it does not.
func startMetrics(reg *metrics.Registry, log *slog.Logger) (*metricsListener, error) {
	addr, err := metrics.ListenAddr(os.Getenv)
	if err != nil || addr == "" {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen for metrics (%s, %s): %w", metrics.EnvBind, metrics.EnvPort, err)
	}
	ml := &metricsListener{l: metrics.NewListener(reg, log)}
	go func() {
		if err := ml.l.Serve(ln); err != nil {
			log.Error("the metrics listener stopped", "error", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String())
	return ml, nil
}

// stop ends the metrics listener, last: /live answers until the end.
func (ml *metricsListener) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = ml.l.Shutdown(ctx)
}
