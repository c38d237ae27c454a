package main

import (
	"context"
	"flag"
	"io"
	"os"
	"runtime/pprof"

	"github.com/quiverdb/quiver/bench"
)

// runArrow measures a wide result over HTTP as JSON and as Arrow
// (bench.RunArrowHTTP) and writes the "Arrow results over HTTP" section.
func runArrow(args []string) error {
	fs := flag.NewFlagSet("arrow", flag.ExitOnError)
	rows := fs.Int64("rows", 1_000_000, "rows of the result")
	reps := fs.Int("reps", 3, "runs of each measure (the median is reported)")
	tmp := fs.String("tmp", os.TempDir(), "where the data directory goes")
	out := fs.String("out", "bench/RESULTS.md", "report whose section is replaced (empty: print it)")
	note := fs.String("note", "", "a paragraph for the section")
	notes := fs.String("notes", "bench/arrow-notes.md", "markdown read into the section (missing: none)")
	commitName := fs.String("commit", "", "the commit measured (default: git describe here)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (server and client) to this file")
	fs.Parse(args)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *commitName == "" {
		*commitName = commit()
	}
	rep, err := bench.RunArrowHTTP(context.Background(), bench.ArrowHTTPConfig{Rows: *rows, Reps: *reps, TempDir: *tmp,
		Commit: *commitName, Note: *note, Log: os.Stderr})
	if err != nil {
		return err
	}
	return writeSection(*out, *notes, bench.ArrowHTTPHeading, func(w io.Writer, notes string) error {
		return bench.WriteArrowHTTPSection(w, rep, notes)
	})
}
