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

	"github.com/quiverdb/quiver/engine"
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
// SIGINT or SIGTERM, then shuts down gracefully.
func serve(o serveOptions) error {
	// Catch signals first: once "listening" is logged a client may act on
	// it, and a SIGTERM must then mean a graceful stop.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigc)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: o.logLevel}))
	for _, note := range o.notes {
		log.Info(note)
	}
	limitMemory(o.maxMemory, log)
	maxMemory, maxPerQuery := o.maxMemory, o.maxMemoryPerQuery
	if maxMemory == 0 {
		maxMemory = -1 // none
	}
	if maxPerQuery == 0 {
		maxPerQuery = -1
	}
	// The metrics listener starts before the database opens, so /live
	// answers and /ready says false while recovery runs.
	reg := metrics.NewRegistry()
	defer reg.Close()
	ml, err := startMetrics(reg, log)
	if err != nil {
		return err
	}
	if ml != nil {
		defer ml.stop()
	}
	db, err := engine.Open(o.dataDir, engine.Options{QueryTimeout: o.queryTimeout, Logger: log, ImportDir: o.importDir,
		MaxConnections: o.maxConnections, MaxMemory: maxMemory, MaxMemoryPerQuery: maxPerQuery, WatchHeap: true, AlgoCacheBytes: o.algoCache,
		IdleTimeout: qhttp.DefaultIdleTimeout, CheckpointInterval: o.checkpointInterval, CheckpointWALBytes: o.checkpointWALBytes,
		Observer: reg})
	if err != nil {
		return fmt.Errorf("cannot open the database: %w", err)
	}
	defer db.Close()
	reg.SetDatabase(db)
	fe, err := startFrontends(o, db, reg, log)
	if err != nil {
		return err
	}
	defer fe.stream.Close() // before db.Close: clients get 1001 first
	// Ready before "listening" is logged: a client acting on the line
	// finds /ready true.
	if ml != nil {
		ml.l.SetReady(true)
	}
	log.Info("listening", "addr", fe.addr, "data_dir", o.dataDir, "version", version, "quic_fingerprint", fe.quicFingerprint)
	select {
	case err := <-fe.errc:
		return fmt.Errorf("server stopped: %w", err)
	case sig := <-sigc:
		log.Info("shutting down", "signal", sig.String())
	}
	if ml != nil {
		ml.l.SetReady(false)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := fe.shutdown(ctx); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}
