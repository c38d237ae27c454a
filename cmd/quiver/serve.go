package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
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

// serve opens the database, serves the HTTP API until SIGINT or SIGTERM,
// then shuts down gracefully.
func serve(o serveOptions) error {
	// Catch signals first: once "listening" is logged a client may act on
	// it, and a SIGTERM must then mean a graceful stop.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigc)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: o.logLevel}))
	limitMemory(o.maxMemory, log)
	maxMemory, maxPerQuery := o.maxMemory, o.maxMemoryPerQuery
	if maxMemory == 0 {
		maxMemory = -1 // none
	}
	if maxPerQuery == 0 {
		maxPerQuery = -1
	}
	db, err := engine.Open(o.dataDir, engine.Options{QueryTimeout: o.queryTimeout, Logger: log, ImportDir: o.importDir,
		MaxConnections: o.maxConnections, MaxMemory: maxMemory, MaxMemoryPerQuery: maxPerQuery, WatchHeap: true, AlgoCacheBytes: o.algoCache,
		IdleTimeout: qhttp.DefaultIdleTimeout, CheckpointInterval: o.checkpointInterval, CheckpointWALBytes: o.checkpointWALBytes})
	if err != nil {
		return fmt.Errorf("cannot open the database: %w", err)
	}
	defer db.Close()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("cannot listen: %w", err)
	}
	srv := qhttp.New(qhttp.Config{MaxConnections: o.maxConnections, MaxConnectionsPerClient: o.maxConnsPerClient,
		AllowedOrigins: o.allowedOrigins, IdleTimeout: qhttp.DefaultIdleTimeout, Logger: log, Version: version}, db)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", o.dataDir, "version", version)

	select {
	case err := <-errc:
		return fmt.Errorf("server stopped: %w", err)
	case sig := <-sigc:
		log.Info("shutting down", "signal", sig.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
