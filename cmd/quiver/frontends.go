package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/console"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/metrics"
	"github.com/quiverdb/quiver/frontend/serving"
	qstream "github.com/quiverdb/quiver/frontend/stream"
	"github.com/quiverdb/quiver/frontend/wire"
)

// frontends are the protocols serve speaks on --listen: the HTTP API
// with the change stream's WebSocket on TCP, the wire protocol on the
// same TCP port (connections whose first byte is '{') and on QUIC at the
// same UDP port number. With --tls-cert the TCP port speaks TLS only
// (HTTPS, WSS and the wire protocol inside TLS).
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
// "listening" once it returns. certs is the operator's certificate
// (nil without --tls-cert), authSvc the authentication service.
func startFrontends(o serveOptions, db *engine.DB, mem *member, reg *metrics.Registry, certs *certReloader, authSvc *auth.Service, log *slog.Logger) (*frontends, error) {
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return nil, fmt.Errorf("cannot listen: %w", err)
	}
	// QUIC always has TLS: the operator's certificate (reloadable), or
	// the self-signed one the data directory keeps.
	var quicTLS *tls.Config
	var fingerprint string
	if certs != nil {
		quicTLS = &tls.Config{GetCertificate: certs.getCertificate, MinVersion: tls.VersionTLS13, NextProtos: []string{wire.ALPN}}
		fingerprint = wire.Fingerprint(*certs.cur.Load())
	} else {
		cert, err := wire.LoadOrCreateCertificate(o.dataDir, "", "")
		if o.lockedDir != nil {
			cert, err = wire.LoadOrCreateCertificateFS(o.lockedDir.FS(), o.dataDir)
		}
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("cannot set up the wire protocol's certificate: %w", err)
		}
		if cert.Generated {
			log.Info("generated a self-signed certificate for the wire protocol", "cert", cert.CertFile, "fingerprint", cert.Fingerprint)
		}
		quicTLS, fingerprint = wire.TLSConfig(cert.TLS), cert.Fingerprint
	}
	pc, err := net.ListenPacket("udp", ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot listen for QUIC on %s: %w", ln.Addr(), err)
	}
	fe := &frontends{errc: make(chan error, 2)}
	// WebSocket connections are upgraded HTTP ones: the HTTP listener
	// counts them, the stream does not again.
	scfg := qstream.Config{Logger: log, MaxConnections: o.maxConnections,
		CheckOrigin: func(*fasthttp.RequestCtx) bool { return true }} // the HTTP server's origin policy has decided
	if authSvc.Enabled() {
		scfg.Authenticate = func(authorization, addr string) (*engine.Principal, error) {
			return authSvc.Authenticate(context.Background(), auth.Credentials{Authorization: authorization, Address: addr, Protocol: "stream"})
		}
		scfg.Current, scfg.Auditor = authSvc.Current, authSvc
	}
	fe.stream = qstream.New(scfg, db)
	// One record of the connection ceilings reached, HTTP's and the wire
	// protocol's: health reports either as degraded.
	sat := &serving.Saturation{}
	var con qhttp.Console
	if o.console {
		con = console.New()
	}
	var cl serving.Cluster // nil for a single server (not a nil *member)
	followerWrites := ""
	if mem != nil {
		cl, followerWrites = mem, o.cluster.followerWrites
	}
	fe.http = qhttp.New(qhttp.Config{Cluster: cl, RedirectWrites: followerWrites == followerRedirect, Console: con, MaxConnections: o.maxConnections, MaxConnectionsPerClient: o.maxConnsPerClient,
		ReservedConnections: o.reservedConns, HeaderTimeout: o.headerTimeout, MinBodyRate: o.minBodyRate, Saturation: sat,
		AllowedOrigins: o.allowedOrigins, RateLimit: o.rateLimit, Stream: fe.stream.Handler,
		Metrics: reg.WritePrometheus, Conns: reg, Stats: reg, NodeID: metrics.NodeID(o.dataDir), DataDir: o.dataDir,
		IdleTimeout: qhttp.DefaultIdleTimeout, Logger: log, Version: version, Auth: authSvc}, db)
	wcfg := wire.Config{Version: version, Logger: log, MaxConnections: o.maxConnections,
		MaxConnectionsPerClient: o.maxConnsPerClient, ReservedConnections: o.reservedConns, Saturation: sat, Conns: reg, Auth: authSvc, Cluster: cl}
	if certs != nil {
		wcfg.TLS = wire.MainTLSConfig(certs.getCertificate)
	}
	fe.wire = wire.New(wcfg, db)
	go func() { fe.errc <- fe.http.Serve(fe.wire.Split(ln)) }()
	go func() { fe.errc <- fe.wire.ServeQUIC(pc, quicTLS) }()
	fe.addr, fe.quicFingerprint = ln.Addr().String(), fingerprint
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
// for it; nil when it does not. With certs it serves TLS; with
// authentication on, /metrics refuses scrapes until setAuth.
func startMetrics(reg *metrics.Registry, certs *certReloader, authEnabled bool, log *slog.Logger) (*metricsListener, error) {
	addr, err := metrics.ListenAddr(os.Getenv)
	if err != nil || addr == "" {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen for metrics (%s, %s): %w", metrics.EnvBind, metrics.EnvPort, err)
	}
	scheme := "http"
	if certs != nil {
		ln = tls.NewListener(ln, &tls.Config{GetCertificate: certs.getCertificate, MinVersion: tls.VersionTLS12, NextProtos: []string{wire.ALPNHTTP}})
		scheme = "https"
	}
	ml := &metricsListener{l: metrics.NewListener(reg, log)}
	// Until the database is open (serve sets the HTTP server's health),
	// the detailed /health says starting.
	start := time.Now()
	ml.l.SetHealth(func() serving.Health {
		return serving.Health{Version: version, Uptime: time.Since(start), Storage: serving.CheckStarting,
			QueryEngine: serving.CheckStarting, Connections: serving.CheckHealthy}
	})
	if authEnabled {
		ml.l.RequireAuth()
	}
	go func() {
		if err := ml.l.Serve(ln); err != nil {
			log.Error("the metrics listener stopped", "error", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String(), "scheme", scheme, "auth", authEnabled)
	return ml, nil
}

// stop ends the metrics listener, last: /live answers until the end.
func (ml *metricsListener) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = ml.l.Shutdown(ctx)
}
