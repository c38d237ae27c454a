package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/quiverdb/quiver/engine"
)

// graphImportDir is where `quiver import --graph name` writes: the graph's
// directory under dataDir, once the name is checked to be new there. The
// data directory is opened (and so locked) for the check: a served one is
// refused.
func graphImportDir(dataDir, graph string, enc *engine.Encryption) (string, error) {
	db, err := engine.Open(dataDir, engine.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), CheckpointInterval: -1, Encryption: enc})
	if err != nil {
		return "", err
	}
	defer db.Close()
	name, err := engine.NormalGraphName(graph)
	if err != nil {
		return "", err
	}
	if name == engine.DefaultGraph || slices.Contains(db.Graphs(context.Background()), name) {
		return "", fmt.Errorf("graph %s already exists in %s: import into a new graph (DROP GRAPH %s first to replace it)", name, dataDir, name)
	}
	// A staging directory, which a server's start leaves alone; one left
	// by an interrupted import of the same name goes first.
	dir := filepath.Join(dataDir, engine.GraphsDirName, ".import-"+name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", err
	}
	return dir, db.Close()
}

// registerImportedGraph enters the imported graph in the data directory's
// catalog: CREATE GRAPH opens the base the import wrote. Until then a
// start of the server removes the directory as a graph's left behind.
func registerImportedGraph(dataDir, graph string, enc *engine.Encryption, stdout io.Writer) error {
	db, err := engine.Open(dataDir, engine.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), CheckpointInterval: -1, Encryption: enc})
	if err != nil {
		return err
	}
	defer db.Close()
	name, _ := engine.NormalGraphName(graph)
	graphs := filepath.Join(dataDir, engine.GraphsDirName)
	if err := os.Rename(filepath.Join(graphs, ".import-"+name), filepath.Join(graphs, name)); err != nil {
		return err
	}
	res, err := db.Query(context.Background(), "CREATE GRAPH `"+name+"`", nil)
	if err != nil {
		return fmt.Errorf("the import is in %s but could not be entered as graph %s: %w", filepath.Join(dataDir, engine.GraphsDirName, name), name, err)
	}
	res.Close()
	fmt.Fprintf(stdout, "graph %s created in %s\n", name, dataDir)
	return db.Close()
}
