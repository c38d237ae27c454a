package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/quiverdb/quiver/bench"
)

// runProtocols measures the protocols (bench.RunProtocols) and writes
// the "Protocols" section of a report.
func runProtocols(args []string) error {
	fs := flag.NewFlagSet("protocols", flag.ExitOnError)
	quiver := fs.String("quiver", "bin/quiver", "the quiver binary")
	tmp := fs.String("tmp", os.TempDir(), "where the data directories go")
	rounds := fs.Int("rounds", 3, "rounds, each on a new server")
	trips := fs.Int("round-trips", 5000, "timed round trips per protocol and round")
	warmup := fs.Int("warmup", 500, "untimed round trips before them")
	rows := fs.Int64("rows", 10_000_000, "rows of the streamed result")
	subs := fs.Int("subscribers", 100, "change-stream subscribers during the write load (0: none)")
	clients := fs.Int("clients", 32, "clients of the write load")
	duration := fs.Duration("duration", 10*time.Second, "timed part of the write load")
	out := fs.String("out", "bench/RESULTS.md", "report whose \"Protocols\" section is replaced (empty: print it)")
	note := fs.String("note", "", "a paragraph for the section")
	notes := fs.String("notes", "bench/protocols-notes.md", "markdown read into the section (missing: none)")
	commitName := fs.String("commit", "", "the commit the binary was built from (default: git describe here)")
	fs.Parse(args)
	if *commitName == "" {
		*commitName = commit()
	}
	bin, err := filepath.Abs(*quiver)
	if err != nil {
		return err
	}
	rep, err := bench.RunProtocols(context.Background(), bench.ProtocolsConfig{QuiverBin: bin, TempDir: *tmp, Rounds: *rounds,
		RoundTrips: *trips, Warmup: *warmup, StreamRows: *rows, Subscribers: *subs, WriteClients: *clients, WriteDuration: *duration,
		Commit: *commitName, Note: *note, Log: os.Stderr})
	if err != nil {
		return err
	}
	return writeSection(*out, *notes, bench.ProtocolsHeading, func(w io.Writer, notes string) error {
		return bench.WriteProtocolsSection(w, rep, notes)
	})
}
