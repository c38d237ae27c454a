package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/quiverdb/quiver/bench"
)

// restart times `quiver serve` on imported data sets to its first answer
// and measures its memory, and writes the "Restart" section of the report.
func restart(args []string) error {
	fs := flag.NewFlagSet("restart", flag.ExitOnError)
	quiver := fs.String("quiver", "bin/quiver", "the quiver binary (go build -o bin/quiver ./cmd/quiver)")
	scales := fs.String("scales", "M,L", "comma-separated scales to measure, each from bench/data/<scale>-<seed>")
	seed := fs.Uint64("seed", 1, "seed the data sets were generated with")
	data := fs.String("data", "bench/data", "directory of the generated data sets")
	tmp := fs.String("tmp", os.TempDir(), "where the imported directories go (quiverbench-restart-<scale>-<seed>; imported when they hold no base, kept)")
	runs := fs.Int("runs", 3, "starts per scale with the page cache warm, and as many with the directory evicted from it")
	cold := fs.Bool("cold", true, "also start with the directory evicted from the page cache")
	settle := fs.Duration("settle", 5*time.Second, "idle time after the first answer before the steady RSS is read")
	out := fs.String("out", "bench/RESULTS.md", "report whose \"Restart\" section is replaced (empty: print the section)")
	note := fs.String("note", "", "a paragraph for the section (what else ran on the machine)")
	notes := fs.String("notes", "bench/restart-notes.md", "markdown file read into the section as \"Where the time and memory go\" (missing: none)")
	commitName := fs.String("commit", "", "the commit the quiver binary was built from, for the report (default: git describe here)")
	save := fs.String("json", "", "also save the measurements to this file")
	render := fs.String("render", "", "measure nothing: render the section from measurements -json saved (with the current -notes)")
	fs.Parse(args)
	var rep *bench.RestartReport
	if *render != "" {
		b, err := os.ReadFile(*render)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("%s: %w", *render, err)
		}
	} else {
		var err error
		if rep, err = measureRestart(*quiver, *scales, *seed, *data, *tmp, *runs, *cold, *settle, *commitName, *note); err != nil {
			return err
		}
		if *save != "" {
			b, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(*save, b, 0o644); err != nil {
				return err
			}
		}
	}
	return writeSection(*out, *notes, bench.RestartHeading, func(w io.Writer, notes string) error {
		return bench.WriteRestartSection(w, rep, notes)
	})
}

// measureRestart runs bench.MeasureRestart on each scale.
func measureRestart(quiver, scales string, seed uint64, data, tmp string, runs int, cold bool, settle time.Duration, commitName, note string) (*bench.RestartReport, error) {
	if commitName == "" {
		commitName = commit()
	}
	bin, err := filepath.Abs(quiver)
	if err != nil {
		return nil, err
	}
	rep := &bench.RestartReport{Date: time.Now(), Machine: bench.ThisMachine(), Commit: commitName,
		GoVersion: runtime.Version(), Settle: settle, Note: note}
	if rep.FS, err = bench.FilesystemOf(tmp); err != nil {
		return nil, err
	}
	for _, name := range strings.Split(scales, ",") {
		s, err := scaleOf(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		set := fmt.Sprintf("%s-%d", s.Name, seed)
		res, err := bench.MeasureRestart(context.Background(), bench.RestartConfig{
			QuiverBin: bin, Scale: s, Seed: seed, DataSet: filepath.Join(data, set),
			DB: filepath.Join(tmp, "quiverbench-restart-"+set), Runs: runs, Cold: cold, Settle: settle,
			Log: func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) },
		})
		if err != nil {
			return nil, err
		}
		rep.Scales = append(rep.Scales, res)
	}
	return rep, nil
}
