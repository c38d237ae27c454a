package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiverdb/quiver/bench"
)

// algo times the algo.* procedures on a Graph500 Kronecker graph (make
// bench-algo), generating it first when the data directory lacks it, and
// writes bench/RESULTS-algo.md.
func algo(args []string) error {
	fs := flag.NewFlagSet("algo", flag.ExitOnError)
	scale := fs.Int("scale", 20, "Kronecker scale: 2^scale vertices, 16·2^scale edges (22: the GAP anchors' size)")
	seed := fs.Uint64("seed", 1, "generator seed (also picks the BFS and SSSP sources)")
	data := fs.String("data", "", "directory of the generated CSVs (default bench/data/kron<scale>-<seed>; generated when missing)")
	tmp := fs.String("tmp", os.TempDir(), "where the graph is imported for the run (removed after)")
	runs := fs.Int("runs", 3, "timed runs per algorithm")
	warmup := fs.Int("warmup", 1, "untimed runs first")
	only := fs.String("only", "", "comma-separated algorithms to run (bfs, pagerank, wcc, sssp, cdlp, lcc; default all)")
	out := fs.String("out", "bench/RESULTS-algo.md", "report file (empty: print it)")
	note := fs.String("note", "", "a paragraph for the report (what else ran on the machine)")
	reference := fs.String("reference", "", "compiled bench/gapref/gapref.cc, its kernels timed before each of Quiver's runs (empty: none)")
	gap := fs.String("gap", "", "directory of GAP's compiled bfs, pr, cc and sssp (make bench-algo: bin/gapbs), each timed on the same graph before Quiver's runs (empty: none)")
	fs.Parse(args)
	if *data == "" {
		*data = filepath.Join("bench", "data", fmt.Sprintf("kron%d-%d", *scale, *seed))
	}
	if _, err := os.Stat(filepath.Join(*data, bench.KronEdgesFile)); err != nil {
		start := time.Now()
		st, err := bench.WriteKronecker(*data, *scale, *seed, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "generated %d vertices and %d edges into %s in %.1f s\n", st.Vertices, st.Edges, *data, time.Since(start).Seconds())
	}
	db, err := os.MkdirTemp(*tmp, "quiverbench-algo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(db)
	var names []string
	for _, n := range strings.Split(*only, ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			names = append(names, n)
		}
	}
	rep, err := bench.RunAlgo(context.Background(), bench.AlgoOptions{Scale: *scale, Seed: *seed, Data: *data,
		DB: filepath.Join(db, "data"), Runs: *runs, Warmup: *warmup, Only: names, Reference: *reference, GAP: *gap, Commit: commit(), Note: *note, Log: os.Stderr})
	if err != nil {
		return err
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if err := bench.WriteAlgoMarkdown(w, rep); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(os.Stderr, "wrote %s\n", *out)
	}
	return nil
}
