package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/quiverdb/quiver/cluster"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/metrics"
)

// shutdownGrace is how long in-flight requests may run after a signal.
const shutdownGrace = 10 * time.Second

// serveGCPercent is the collector's GOGC under a memory limit: the limit,
// not GOGC, bounds the heap near the budget, so GOGC only decides how
// often a small heap is collected. Short write statements allocate
// briskly (a commit copies the chunks it writes), and at the default 100
// an empty or small database spends a third of its CPU collecting
// (bench/RESULTS.md, "Writes and durability").
const serveGCPercent = 400

// limitMemory sets the Go runtime's soft memory limit (GOMEMLIMIT) to the
// server's budget, so the collector works harder as the budget nears
// instead of letting garbage double the heap, and with it GOGC to
// serveGCPercent. A GOMEMLIMIT or GOGC the operator set in the
// environment wins.
func limitMemory(budget int64, log *slog.Logger) {
	if budget <= 0 {
		return
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		log.Info("memory budget", "max_memory", budget, "gomemlimit", env+" (from the environment)")
		return
	}
	debug.SetMemoryLimit(budget)
	log.Info("memory budget", "max_memory", budget, "gomemlimit", budget)
}

// serve opens the database, serves every protocol (frontends.go) until
// SIGINT or SIGTERM, then shuts down gracefully. SIGHUP reloads the TLS
// certificate.
func serve(o serveOptions) error {
	// Catch signals first: once "listening" is logged a client may act on
	// it, and a SIGTERM must then mean a graceful stop.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigc)
	hupc := make(chan os.Signal, 1)
	signal.Notify(hupc, syscall.SIGHUP)
	defer signal.Stop(hupc)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: o.logLevel}))
	for _, note := range o.notes {
		log.Info(note)
	}
	limitMemory(o.maxMemory, log)
	maxMemory, maxPerQuery := engineBudgets(o)
	var certs *certReloader
	if o.tlsCertificate != nil {
		certs = newCertReloader(o.tlsCert, o.tlsKey, o.tlsCertificate)
	}
	// The metrics listener starts before the database opens, so /live
	// answers and /ready says false while recovery runs.
	reg := metrics.NewRegistry()
	defer reg.Close()
	ml, err := startMetrics(reg, certs, o.authEnabled, log)
	if err != nil {
		return err
	}
	if ml != nil {
		defer ml.stop()
	}
	// The data directory is created and locked before anything is
	// written into it: a second server is refused before it touches a
	// file, and a new (or mistyped) directory is still new when the
	// database opens, which says so.
	dataDir, err := engine.LockDataDir(o.dataDir, engine.Options{Logger: log, Encryption: o.encryption})
	if err != nil {
		return fmt.Errorf("cannot open the database: %w", err)
	}
	o.lockedDir = dataDir
	// The audit trail opens next and closes last: the engine and the
	// authentication service append to it until they are closed.
	auditLog, err := auth.OpenAuditLog(o.dataDir, auth.AuditOptions{FS: dataDir.FS(), Logger: log})
	if err != nil {
		dataDir.Release()
		return fmt.Errorf("cannot open the audit log: %w", err)
	}
	defer func() {
		if err := auditLog.Close(); err != nil {
			log.Error("closing the audit log", "error", err)
		}
	}()
	eopts := engine.Options{QueryTimeout: o.queryTimeout, Logger: log, Encryption: o.encryption, ImportDir: o.importDir, ExportDir: o.exportDir,
		MaxConnections: o.maxConnections, MaxMemory: maxMemory, MaxMemoryPerQuery: maxPerQuery, WatchHeap: true, AlgoCacheBytes: o.algoCache,
		IdleTimeout: qhttp.DefaultIdleTimeout, CheckpointInterval: o.checkpointInterval, CheckpointWALBytes: o.checkpointWALBytes,
		CDCRetention: o.cdcRetention, Observer: reg, Auditor: auditLog, PlanCacheEntries: planCacheEntries(o.planCache)}
	var db *engine.DB
	var mem *member
	var reopens *reopenWatch // nil for a single server
	if o.cluster != nil {
		// A member: raft's log lives in the data directory too, and
		// closing the node closes the database.
		reopens = newReopenWatch()
		node, err := openMember(o, dataDir, eopts, reopens, log)
		if err != nil {
			return err
		}
		defer func() {
			if err := node.Close(); err != nil {
				log.Error("closing the cluster member", "error", err)
			}
		}()
		db, mem = node.DB(), &member{n: node, peerHTTP: o.cluster.httpAddresses(o)}
		reopens.node = node
	} else {
		if db, err = dataDir.Open(eopts); err != nil {
			return fmt.Errorf("cannot open the database: %w", err)
		}
		defer db.Close()
		if err := cluster.RegisterPrimaryProcedures(db, metrics.NodeID(o.dataDir), o.listen); err != nil {
			return err
		}
	}
	st := serveState{o: o, mem: mem, reg: reg, ml: ml, certs: certs, auditLog: auditLog, log: log, sigc: sigc, hupc: hupc}
	err = serveInTurn(db, reopens, st.serveDatabase, func(db *engine.DB) error {
		// A member far behind installed a snapshot: its database is a
		// new one, the one the frontends served is closed. Serve the new
		// one on the same address (clients reconnect).
		log.Info("the member installed a snapshot: serving its new database", "applied", mem.n.Bookmark())
		return nil
	})
	if err == nil {
		log.Info("stopped")
	}
	return err
}

// serveState is what serve keeps across the databases a member serves
// in turn (serveDatabase).
type serveState struct {
	o          serveOptions
	mem        *member
	reg        *metrics.Registry
	ml         *metricsListener
	certs      *certReloader
	auditLog   *auth.AuditLog
	log        *slog.Logger
	sigc, hupc chan os.Signal
}

// serveDatabase serves db on every protocol until SIGINT or SIGTERM
// (false), a frontend's failure (its error), or swapped closing (true:
// the member's database was replaced; the frontends are stopped).
func (st *serveState) serveDatabase(db *engine.DB, swapped <-chan struct{}) (bool, error) {
	o, reg, ml, log := st.o, st.reg, st.ml, st.log
	reg.SetDatabase(db)
	if err := auth.RegisterAuditProcedures(db, st.auditLog); err != nil {
		return false, fmt.Errorf("cannot register the audit procedures: %w", err)
	}
	authSvc, err := auth.Open(auth.Config{DB: db, Audit: st.auditLog, Enabled: o.authEnabled,
		AdminPassword: os.Getenv("QUIVER_ADMIN_PASSWORD"), BootstrapOut: os.Stderr, Logger: log})
	if err != nil {
		return false, fmt.Errorf("cannot start authentication: %w", err)
	}
	defer func() { // after the frontends, before the database
		if ml != nil {
			ml.l.SetAuth(nil) // /metrics answers 503 from here on
		}
		if err := authSvc.Close(); err != nil {
			log.Error("closing authentication", "error", err)
		}
	}()
	if ml != nil {
		ml.l.SetAuth(authSvc)
	}
	logSecurity(o, log)
	fe, err := startFrontends(o, db, st.mem, reg, st.certs, authSvc, log)
	if err != nil {
		return false, err
	}
	defer fe.stream.Close() // before db.Close: clients get 1001 first
	// Ready before "listening" is logged: a client acting on the line
	// finds /ready true.
	if ml != nil {
		ml.l.SetHealth(fe.http.Health)
		ml.l.SetReady(true)
	}
	log.Info("listening", "addr", fe.addr, "data_dir", o.dataDir, "version", version, "quic_fingerprint", fe.quicFingerprint)
	swap, err := waitForStop(fe.errc, st.sigc, st.hupc, swapped, st.certs, log)
	if err != nil {
		return false, err
	}
	if ml != nil {
		ml.l.SetReady(false)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := fe.shutdown(ctx); err != nil {
		return false, err
	}
	return swap, nil
}

// engineBudgets are the server's and a query's memory budgets as the
// engine takes them: -1 for none.
func engineBudgets(o serveOptions) (maxMemory, maxPerQuery int64) {
	maxMemory, maxPerQuery = o.maxMemory, o.maxMemoryPerQuery
	if maxMemory == 0 {
		maxMemory = -1 // none
	}
	if maxPerQuery == 0 {
		maxPerQuery = -1
	}
	return maxMemory, maxPerQuery
}

// waitForStop serves until SIGINT or SIGTERM (false, nil), a frontend's
// failure (its error) or swapped closing (true), reloading the TLS
// certificate on SIGHUP.
func waitForStop(errc <-chan error, sigc, hupc <-chan os.Signal, swapped <-chan struct{}, certs *certReloader, log *slog.Logger) (bool, error) {
	for {
		select {
		case err := <-errc:
			return false, fmt.Errorf("server stopped: %w", err)
		case sig := <-sigc:
			log.Info("shutting down", "signal", sig.String())
			return false, nil
		case <-swapped:
			log.Info("restarting the frontends on the member's new database")
			return true, nil
		case <-hupc:
			if certs == nil {
				log.Info("SIGHUP: no --tls-cert to reload")
				continue
			}
			certs.reload(log)
		}
	}
}

// logSecurity says at start whether authentication is on, how clients
// authenticate, and whether the listeners speak TLS.
func logSecurity(o serveOptions, log *slog.Logger) {
	tlsOn := o.tlsCertificate != nil
	if !o.authEnabled {
		log.Info("authentication is off: every client may read, write and administer (--auth-enabled turns it on)", "tls", tlsOn)
		return
	}
	log.Info("authentication is on", "http", "bearer, api_key, basic", "wire", "HELLO.auth (basic, bearer, api_key)",
		"stream", "AUTH Bearer", "metrics", "bearer, api_key, basic", "tls", tlsOn)
	if !tlsOn && !isLoopback(o.listen) {
		log.Warn("authentication without TLS on a non-loopback address (--allow-insecure-auth): credentials cross the network in clear text unless a proxy terminates TLS", "listen", o.listen)
	}
}

// planCacheEntries is --plan-cache-entries as the engine takes it: zero
// there means the default, negative none.
func planCacheEntries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
