package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// inputList collects repeated `--nodes Label=file` flags.
type inputList []engine.ImportInput

func (l *inputList) String() string { return fmt.Sprint(*l) }

func (l *inputList) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=FILE, not %q", s)
	}
	*l = append(*l, engine.ImportInput{Name: name, Path: path})
	return nil
}

// importArgs is what `quiver import` was asked: the import, and where to
// write optional CPU and heap profiles of it (for tuning the loader).
type importArgs struct {
	engine.ImportOptions
	cpuProfile, memProfile string
	// fromExport is the folder of an export to import (its manifest
	// names the files); its schema script is run once the data is in.
	fromExport string
	manifest   *engine.ExportManifest
	// encryption, when a key is given, encrypts the new directory at rest
	// once it is built (docs/encryption.md).
	encryption *engine.Encryption
	// graph is the graph to create by the import ("": the directory's
	// default graph; docs/graphs.md).
	graph string
}

// parseImport parses import's flags.
func parseImport(args []string) (importArgs, error) {
	var o importArgs
	var nodes, rels inputList
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Dir, "data-dir", "./quiver-data", "data directory to create (must not exist or be empty)")
	fs.Var(&nodes, "nodes", "node file: Label=file.csv (or .parquet), Label1:Label2=file.csv for several labels (repeatable)")
	fs.Var(&rels, "relationships", "relationship file: TYPE=file.csv or TYPE=file.parquet (repeatable)")
	fs.StringVar(&o.IDColumn, "id-column", "id", "node files' key column")
	fs.StringVar(&o.FromColumn, "from-column", "from", "relationship files' start node key column")
	fs.StringVar(&o.ToColumn, "to-column", "to", "relationship files' end node key column")
	fs.StringVar(&o.Graphalytics, "graphalytics", "", "an LDBC Graphalytics graph instead of node and relationship files: the path prefix NAME of NAME.v, NAME.e and NAME.properties (label V, type E)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the import to this file (go tool pprof)")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile, taken at the end of the import, to this file")
	fs.StringVar(&o.fromExport, "from-export", "", "import the folder `quiver export` (or CALL quiver.export) wrote: its files, then its indexes and constraints (docs/export.md)")
	delim := fs.String("delimiter", ",", "field delimiter (one byte; \\t for tab)")
	keys := defineKeyFlags(fs)
	fs.StringVar(&o.graph, "graph", "", "import into a new graph of this name in the data directory, which may already hold other graphs (docs/graphs.md)")
	if err := parseFlags(fs, args); err != nil {
		return o, err
	}
	var err error
	if o.encryption, err = keys.encryption(os.Getenv); err != nil {
		return o, err
	}
	if *delim == `\t` {
		*delim = "\t"
	}
	if len(*delim) != 1 || *delim == "\"" || *delim == "\n" {
		return o, fmt.Errorf("--delimiter must be one byte other than a quote or newline, not %q", *delim)
	}
	o.Delimiter = (*delim)[0]
	if o.fromExport != "" {
		if len(nodes)+len(rels) > 0 || o.Graphalytics != "" {
			return o, errors.New("--from-export imports an export's folder alone: leave out --nodes, --relationships and --graphalytics")
		}
		m, err := fromExport(&o.ImportOptions, o.fromExport)
		o.manifest = m
		return o, err
	}
	if o.Graphalytics != "" {
		if len(nodes)+len(rels) > 0 {
			return o, errors.New("--graphalytics imports a Graphalytics graph alone: leave out --nodes and --relationships")
		}
		return o, nil
	}
	if len(nodes) == 0 {
		return o, errors.New("no node files: give --nodes Label=file.csv (or --graphalytics NAME)")
	}
	o.Nodes, o.Rels = nodes, rels
	return o, nil
}

// runImport imports, showing its progress on stderr (import_progress.go:
// bars on a terminal, plain lines otherwise), and prints the summary.
func runImport(a importArgs, stdout, stderr *os.File) error {
	o := a.ImportOptions
	if a.cpuProfile != "" {
		f, err := os.Create(a.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	dataDir := o.Dir
	if a.graph != "" {
		var err error
		if o.Dir, err = graphImportDir(o.Dir, a.graph, a.encryption); err != nil {
			return err
		}
	}
	show := newImportProgress(stderr, isTerminal(stderr))
	o.Progress = show.tracker
	sum, err := engine.Import(o)
	show.stop()
	for _, d := range sum.StaleImports {
		fmt.Fprintf(stderr, "removed %s, left by an interrupted import\n", d)
	}
	if err != nil {
		return err
	}
	if a.memProfile != "" {
		if err := writeHeapProfile(a.memProfile); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "imported %d nodes and %d relationships into %s in %.2f s (%.1f MB of input read, %.1f MB written)\n",
		sum.Nodes, sum.Relationships, o.Dir, sum.Seconds, float64(sum.InputBytes)/1e6, float64(sum.Bytes)/1e6)
	if a.manifest != nil {
		n, err := replaySchema(o.Dir, a.fromExport, a.manifest)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "ran %d schema statements of %s\n", n, a.manifest.Schema)
	}
	if a.graph != "" {
		if a.encryption != nil {
			// Built plain, then encrypted under the data directory's
			// keyring, before the graph is entered in the catalog.
			key, err := a.encryption.Key()
			if err != nil {
				return err
			}
			n, err := engine.EncryptGraphImport(dataDir, o.Dir, key, nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "encrypted %d files of %s at rest\n", n, o.Dir)
		}
		return registerImportedGraph(dataDir, a.graph, a.encryption, stdout)
	}
	if a.encryption != nil {
		// Built plain (the loader writes through the operating system),
		// then encrypted as quiver encrypt does.
		key, err := a.encryption.Key()
		if err != nil {
			return err
		}
		n, err := engine.EncryptDataDir(o.Dir, key, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "encrypted %d files of %s at rest\n", n, o.Dir)
	}
	return nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
