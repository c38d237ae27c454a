package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"

	"github.com/quiverdb/quiver/frontend/metrics"
	"github.com/quiverdb/quiver/frontend/wire"
)

// Transport security of serve (docs/security.md, TLS). With
// authentication on, passwords (Basic, HELLO.auth, logins) and tokens
// cross the network with every request: serve refuses to listen on an
// address other hosts can reach without TLS, unless the operator says a
// proxy in front terminates TLS (--allow-insecure-auth). The metrics
// listener, whose scrapes carry credentials too, follows the same rule.

// isLoopback reports whether a listen address (host:port) accepts
// connections from this host only: 127.0.0.0/8, ::1 or "localhost". An
// empty host and 0.0.0.0 listen on every interface; any other name may
// resolve anywhere.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkAuthTransport refuses authentication in clear text on a
// non-loopback address: the query listener's (--listen), and the metrics
// listener's (QUIVER_METRICS_BIND, read through getenv) when it runs.
// TLS (--tls-cert) secures both; --allow-insecure-auth waives the rule.
func checkAuthTransport(o serveOptions, getenv func(string) string) error {
	if !o.authEnabled || o.tlsCertificate != nil || o.allowInsecureAuth {
		return nil
	}
	if !isLoopback(o.listen) {
		return fmt.Errorf("--auth-enabled with --listen %s, which other hosts can reach, and no TLS: passwords and tokens would cross the network in clear text; "+
			"give --tls-cert and --tls-key, listen on a loopback address (127.0.0.1), or, behind a proxy that terminates TLS, add --allow-insecure-auth", o.listen)
	}
	// A bad metrics address is startMetrics' error to report.
	if addr, err := metrics.ListenAddr(getenv); err == nil && addr != "" && !isLoopback(addr) {
		return fmt.Errorf("--auth-enabled with the metrics listener on %s (%s), which other hosts can reach, and no TLS: scrapes would carry credentials in clear text; "+
			"give --tls-cert and --tls-key, bind it to 127.0.0.1, or add --allow-insecure-auth", addr, metrics.EnvBind)
	}
	return nil
}

// certReloader holds the operator's certificate for every TLS listener
// (HTTPS and the wire protocol on the main port, QUIC, the metrics
// listener): each handshake reads the current one, and reload (SIGHUP)
// replaces it from the files. A reload that fails keeps the old one.
type certReloader struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
}

func newCertReloader(certFile, keyFile string, cert *tls.Certificate) *certReloader {
	r := &certReloader{certFile: certFile, keyFile: keyFile}
	r.cur.Store(cert)
	return r
}

// getCertificate is tls.Config.GetCertificate.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c := r.cur.Load()
	if c == nil {
		return nil, errors.New("no TLS certificate")
	}
	return c, nil
}

// reload reads the files again; on failure the current certificate stays.
func (r *certReloader) reload(log *slog.Logger) {
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		log.Error("cannot reload the TLS certificate: keeping the current one", "cert", r.certFile, "key", r.keyFile, "error", err)
		return
	}
	r.cur.Store(&c)
	log.Info("reloaded the TLS certificate", "cert", r.certFile, "fingerprint", wire.Fingerprint(c))
}
