package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
)

// shutdownGrace is how long in-flight requests may run after a signal.
const shutdownGrace = 10 * time.Second

// serve opens the database, serves the HTTP API until SIGINT or SIGTERM,
// then shuts down gracefully.
func serve(o serveOptions) error {
	// Catch signals first: once "listening" is logged a client may act on
	// it, and a SIGTERM must then mean a graceful stop.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigc)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: o.logLevel}))
	db, err := engine.Open(o.dataDir, engine.Options{QueryTimeout: o.queryTimeout, Logger: log, ImportDir: o.importDir})
	if err != nil {
		return fmt.Errorf("cannot open the database: %w", err)
	}
	defer db.Close()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("cannot listen: %w", err)
	}
	srv := qhttp.New(qhttp.Config{MaxConnections: o.maxConnections, Logger: log, Version: version}, db)
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
