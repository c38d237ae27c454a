package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// exportArgs is what `quiver export` was asked.
type exportArgs struct {
	dataDir, out, format string
	encryption           *engine.Encryption // the key of an encrypted data directory
	graph                string             // the graph to export ("": the default)
}

func parseExport(args []string) (exportArgs, error) {
	var a exportArgs
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.dataDir, "data-dir", "./quiver-data", "data directory to export (no server may hold it: export a served one with CALL quiver.export)")
	fs.StringVar(&a.out, "out", "", "folder to write (must not exist or be empty; its parent must exist)")
	fs.StringVar(&a.format, "format", engine.ExportParquet, "file format: parquet or csv")
	keys := defineKeyFlags(fs)
	fs.StringVar(&a.graph, "graph", "", "the graph to export (the default graph when left out; docs/graphs.md)")
	if err := parseFlags(fs, args); err != nil {
		return a, err
	}
	var err error
	if a.encryption, err = keys.encryption(os.Getenv); err != nil {
		return a, err
	}
	if a.out == "" {
		return a, errors.New("no output folder: give --out DIR")
	}
	a.format = strings.ToLower(a.format)
	if a.format != engine.ExportParquet && a.format != engine.ExportCSV {
		return a, fmt.Errorf("--format is parquet or csv, not %q", a.format)
	}
	return a, nil
}

// runExport opens the data directory as a server would (taking its lock,
// replaying its log), exports the latest version with its progress on
// stderr, and prints the summary. A directory a server holds is refused
// with the way to export through the server.
func runExport(a exportArgs, stdout, stderr *os.File) error {
	fi, err := os.Stat(a.dataDir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a data directory", a.dataDir)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := engine.Open(a.dataDir, engine.Options{Logger: log, CheckpointInterval: -1, Encryption: a.encryption})
	if err != nil {
		var held *engine.DirInUseError
		if errors.As(err, &held) {
			return fmt.Errorf("%w; to export a served database, run CALL quiver.export('%s') through its server, which writes under its --export-dir (docs/export.md)", err, filepath.Base(a.out))
		}
		return err
	}
	defer db.Close()
	g := db
	if a.graph != "" {
		if g, _, err = db.Graph(context.Background(), a.graph); err != nil {
			return err
		}
	}
	show := newProgressShow(stderr, isTerminal(stderr), "export")
	sum, err := g.Export(engine.ExportOptions{Dir: a.out, Format: a.format, Progress: show.tracker})
	show.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d nodes and %d relationships from %s to %s in %.2f s (%d files, %.1f MB written)\n",
		sum.Nodes, sum.Relationships, a.dataDir, a.out, sum.Seconds, sum.Files, float64(sum.Bytes)/1e6)
	return db.Close()
}

// fromExport fills an import's files from the manifest of the export in
// dir (engine.ImportFromExport).
func fromExport(o *engine.ImportOptions, dir string) (*engine.ExportManifest, error) {
	return engine.ImportFromExport(o, dir)
}

// replaySchema runs an export's schema script on the database imported
// into dataDir: its indexes and constraints, as the export had them.
func replaySchema(dataDir, exportDir string, m *engine.ExportManifest) (int, error) {
	script, err := os.ReadFile(filepath.Join(exportDir, m.Schema))
	if err != nil {
		return 0, err
	}
	if len(engine.ExportSchemaStatements(string(script))) == 0 {
		return 0, nil
	}
	db, err := engine.Open(dataDir, engine.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), CheckpointInterval: -1})
	if err != nil {
		return 0, err
	}
	n, err := db.ApplySchemaScript(context.Background(), string(script))
	if err != nil {
		db.Close()
		return 0, fmt.Errorf("%s: %w", m.Schema, err)
	}
	return n, db.Close()
}
