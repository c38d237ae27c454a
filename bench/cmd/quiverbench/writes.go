package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quiverdb/quiver/bench"
)

// writes measures write throughput, latency, recovery and checkpoints
// (make bench-writes) and writes the "Writes and durability" section of
// the report; with -cpuprofile it profiles one write load in-process
// instead.
func writes(args []string) error {
	fs := flag.NewFlagSet("writes", flag.ExitOnError)
	quiver := fs.String("quiver", "bin/quiver", "the quiver binary (go build -o bin/quiver ./cmd/quiver)")
	kuzu := fs.String("kuzu", "bench/kuzu", "directory of the npm-installed Kùzu runner (empty: no Kùzu side)")
	tmp := fs.String("tmp", os.TempDir(), "where the data directories go: a directory on a disk, not tmpfs")
	clients := fs.String("clients", "1,32", "client counts of the throughput loads")
	duration := fs.Duration("duration", 10*time.Second, "timed part of each Quiver throughput load")
	warmup := fs.Duration("warmup", time.Second, "untimed part before it")
	embedded := fs.Bool("embedded", true, "also run each client count's writes through the engine in this process, without HTTP")
	floor := fs.Duration("floor", 5*time.Second, "timed part of the load without writes ("+bench.FloorStatement+") after each write load (0: none)")
	kuzuWrites := fs.Int("kuzu-writes", 20000, "timed statements of each Kùzu load")
	kuzuWarmup := fs.Int("kuzu-warmup", 1000, "untimed statements before them")
	rounds := fs.Int("rounds", 3, "throughput rounds (medians reported)")
	recovery := fs.Int64("recovery", 1_000_000, "logged commits to recover from (0: no recovery measurement)")
	recoveryClients := fs.Int("recovery-clients", 32, "clients writing them")
	restarts := fs.Int("restarts", 3, "restarts on the log with the page cache warm, and as many with it evicted")
	mdata := fs.String("mdata", "bench/data/M-1", "the M data set for the checkpoint measurement (empty: none)")
	ckRuns := fs.Int("checkpoint-runs", 3, "imports and checkpoints of M")
	out := fs.String("out", "bench/RESULTS.md", "report whose \"Writes and durability\" section is replaced (empty: print the section)")
	note := fs.String("note", "", "a paragraph for the section (what else ran on the machine)")
	notes := fs.String("notes", "bench/writes-notes.md", "markdown file read into the section as \"What limits each number\" (missing: none)")
	commitName := fs.String("commit", "", "the commit the binaries were built from, for the report (default: git describe here)")
	cpuprofile := fs.String("cpuprofile", "", "instead: profile one load of the first -clients count in-process (engine and HTTP server in this process) into this file, its mutex and block profiles into FILE.mutex and FILE.block")
	profileFloor := fs.Bool("profile-floor", false, "with -cpuprofile: profile the load without writes ("+bench.FloorStatement+") instead")
	fs.Parse(args)
	counts, err := clientCounts(*clients)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if *cpuprofile != "" {
		stmt := bench.WriteStatement
		if *profileFloor {
			stmt = bench.FloorStatement
		}
		return profileWrites(ctx, *tmp, stmt, counts[0], *duration, *warmup, *cpuprofile)
	}
	if *commitName == "" {
		*commitName = commit()
	}
	bin, err := filepath.Abs(*quiver)
	if err != nil {
		return err
	}
	if *mdata != "" {
		if _, err := os.Stat(filepath.Join(*mdata, bench.KnowsCSV)); err != nil {
			return fmt.Errorf("writes: the M data set is not at %s (quiverbench gen -scale M -out %s, or -mdata '')", *mdata, *mdata)
		}
	}
	rep, err := bench.RunWrites(ctx, bench.WritesConfig{
		QuiverBin: bin, KuzuDir: *kuzu, TempDir: *tmp, Clients: counts, Duration: *duration, Warmup: *warmup, FloorDuration: *floor, Embedded: *embedded,
		KuzuWrites: *kuzuWrites, KuzuWarmup: *kuzuWarmup, Rounds: *rounds,
		RecoveryCommits: *recovery, RecoveryClients: *recoveryClients, Restarts: *restarts,
		MData: *mdata, CheckpointRuns: *ckRuns, Commit: *commitName, Note: *note, Log: os.Stderr,
	})
	if err != nil {
		return err
	}
	return writeSection(*out, *notes, bench.WritesHeading, func(w io.Writer, notes string) error {
		return bench.WriteWritesSection(w, rep, notes)
	})
}

// profileWrites runs one load of clients sending stmt in-process under a
// CPU profile.
func profileWrites(ctx context.Context, tmp, stmt string, clients int, d, warmup time.Duration, path string) error {
	dir, err := os.MkdirTemp(tmp, "quiverbench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	res, err := bench.ProfileWrites(ctx, filepath.Join(dir, "db"), bench.WriteLoad{Statement: stmt, Clients: clients, Duration: d, Warmup: warmup}, path)
	if err != nil {
		return err
	}
	fmt.Printf("in-process, %d clients, %s: %.0f requests/s, p50 %v, p99 %v, CPU %.0f%% of one core; profile in %s\n",
		clients, stmt, res.Rate(), res.Latency.P50, res.Latency.P99, 100*res.ClientCPU.Seconds()/res.Elapsed.Seconds(), path)
	return nil
}

// clientCounts parses -clients.
func clientCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-clients: %q is not a positive count", f)
		}
		out = append(out, n)
	}
	return out, nil
}
