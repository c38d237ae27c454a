// Command quiverbench is the benchmark harness's command line (make bench):
//
//	quiverbench gen -scale S -out DIR        writes DIR/persons.csv, DIR/knows.csv
//	                                         (-dataset snb: the SNB-like files)
//	quiverbench run -scale S -data DIR ...   loads both engines, times Q1–Q9
//	                                         (-dataset snb: S01–), writes
//	                                         RESULTS.md
//	quiverbench query -db DIR [-q Q1,Q5] ... times queries on an imported
//	                                         directory (-cpuprofile for pprof)
//	quiverbench writes ...                   write throughput and latency (1
//	                                         and 32 clients, beside Kùzu),
//	                                         recovery, checkpoint; writes the
//	                                         "Writes and durability" section
//	quiverbench restart [-scales M,L] ...    `quiver serve` on imported data sets:
//	                                         time to the first answer, peak and
//	                                         steady RSS; writes the "Restart"
//	                                         section
//	quiverbench algo [-scale 20] ...         times the algo.* procedures on a
//	                                         Kronecker graph beside the GAP
//	                                         kernels; writes RESULTS-algo.md
//	quiverbench protocols ...                round trips and streaming over
//	                                         HTTP, wire TCP and wire QUIC; change
//	                                         events to 100 subscribers under
//	                                         writes; writes the "Protocols"
//	                                         section
//	quiverbench arrow [-rows 1000000] ...    a wide result over HTTP as JSON
//	                                         and as Arrow, and in process;
//	                                         writes the "Arrow results over
//	                                         HTTP" section
//	quiverbench vector [-n 1000000] ...      vector search: exact and HNSW
//	                                         recall@10, QPS, build time and
//	                                         memory beside Kùzu's vector index
//
// Generation is a separate invocation so that its memory does not count in
// the peak RSS the run reports for Quiver (this process).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: quiverbench gen|run|query|writes|restart|algo|protocols|arrow|vector [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "query":
		err = query(os.Args[2:])
	case "writes":
		err = writes(os.Args[2:])
	case "restart":
		err = restart(os.Args[2:])
	case "algo":
		err = algo(os.Args[2:])
	case "protocols":
		err = runProtocols(os.Args[2:])
	case "arrow":
		err = runArrow(os.Args[2:])
	case "vector":
		err = vectorBench(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q (want gen, run, query, writes, restart, algo, protocols, arrow or vector)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quiverbench:", err)
		os.Exit(1)
	}
}

func scaleOf(name string) (bench.Scale, error) {
	s, ok := bench.Scales[strings.ToUpper(name)]
	if !ok {
		return s, fmt.Errorf("unknown scale %q (S, M or L)", name)
	}
	return s, nil
}

// snbScaleOf is the SNB-like data set's scale of that name.
func snbScaleOf(name string) (bench.SNBScale, error) {
	s, ok := bench.SNBScales[strings.ToUpper(name)]
	if !ok {
		return s, fmt.Errorf("unknown SNB scale %q (XS, S or M)", name)
	}
	return s, nil
}

// datasetOf is the data set of that -dataset name.
func datasetOf(name string) (*bench.Dataset, error) {
	ds, ok := bench.Datasets[name]
	if !ok {
		return nil, fmt.Errorf("unknown data set %q (knows or snb)", name)
	}
	return ds, nil
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	dataset := fs.String("dataset", "knows", "knows (Person/KNOWS) or snb (the SNB-like social network)")
	scale := fs.String("scale", "S", "S (100k/1M), M (1M/10M) or L (10M/100M); snb: XS (10k/100k), S (100k/1M) or M (1M/10M)")
	seed := fs.Uint64("seed", 1, "generator seed")
	out := fs.String("out", "", "output directory (required)")
	pq := fs.Bool("parquet", false, "also write persons.parquet and knows.parquet (for run -format parquet)")
	fs.Parse(args)
	if _, err := datasetOf(*dataset); err != nil {
		return err
	}
	if *dataset == "snb" {
		return genSNB(*scale, *seed, *out, *pq)
	}
	s, err := scaleOf(*scale)
	if err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("gen: -out is required")
	}
	fmt.Fprintf(os.Stderr, "generating %s: %d nodes, %d edges, seed %d into %s\n", s.Name, s.Nodes, s.Edges, *seed, *out)
	g := bench.Generate(s.Nodes, s.Edges, *seed)
	if err := g.WriteCSV(*out); err != nil {
		return err
	}
	if *pq {
		return g.WriteParquet(*out)
	}
	return nil
}

func genSNB(scale string, seed uint64, out string, pq bool) error {
	s, err := snbScaleOf(scale)
	if err != nil {
		return err
	}
	if out == "" {
		return fmt.Errorf("gen: -out is required")
	}
	if pq {
		return fmt.Errorf("gen: -parquet is for the knows data set only")
	}
	fmt.Fprintf(os.Stderr, "generating SNB-like %s: %d persons, %d nodes, seed %d into %s\n", s.Name, s.Persons, s.NodeCount(), seed, out)
	return bench.GenerateSNB(s, seed).WriteCSV(out)
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	scale := fs.String("scale", "S", "scale the data set was generated at (for the report)")
	seed := fs.Uint64("seed", 1, "seed the data set was generated with (for the report)")
	data := fs.String("data", "", "data set directory written by gen (required)")
	kuzu := fs.String("kuzu", "bench/kuzu", "directory of the npm-installed Kùzu runner")
	duckdb := fs.String("duckdb", "bench/duckdb", "directory of the npm-installed DuckDB runner, which times the queries' SQL forms in the same run; empty leaves DuckDB out")
	runs := fs.Int("runs", 5, "timed runs per query and engine (median reported)")
	warmup := fs.Int("warmup", 1, "untimed warm-up runs per query and engine")
	out := fs.String("out", "bench/RESULTS.md", "report file")
	note := fs.String("note", "", "a paragraph for the report")
	skip := fs.String("skip", "", "comma-separated suite queries not to run (e.g. Q6 at scale L, where Kùzu takes minutes)")
	loader := fs.String("loader", "import", "how Quiver loads the data set: import (offline bulk import) or cypher (UNWIND batches)")
	format := fs.String("format", "csv", "the files the import loader reads: csv, or parquet (written by gen -parquet; Kùzu reads the CSVs)")
	suiteName := fs.String("suite", "", "the queries: nine (Q1–Q9) or wide (issue 17's wider suite, W01–) for -dataset knows, snb (S01–) for -dataset snb; empty is the data set's own (nine, snb)")
	dataset := fs.String("dataset", "knows", "the data set in -data: knows (gen's Person/KNOWS graph) or snb (gen -dataset snb)")
	fs.Parse(args)
	ds, err := datasetOf(*dataset)
	if err != nil {
		return err
	}
	var suite []bench.Query
	switch {
	case *suiteName == "" || *suiteName == "nine" && ds == bench.KnowsDataset || *suiteName == "snb" && ds == bench.SNBDataset:
	case *suiteName == "wide" && ds == bench.KnowsDataset:
		suite = bench.WideSuite
	default:
		return fmt.Errorf("run: -suite %q does not run on -dataset %s (knows: nine or wide; snb: snb)", *suiteName, ds.Name)
	}
	var s bench.Scale
	if ds == bench.SNBDataset {
		ss, err := snbScaleOf(*scale)
		if err != nil {
			return err
		}
		s = bench.Scale{Name: ss.Name, Nodes: ss.NodeCount()}
	} else if s, err = scaleOf(*scale); err != nil {
		return err
	}
	if *data == "" {
		return fmt.Errorf("run: -data is required")
	}
	var l bench.Loader
	switch *loader {
	case "import":
		if *format != "csv" && *format != "parquet" {
			return fmt.Errorf("run: -format must be csv or parquet, not %q", *format)
		}
		l = bench.ImportLoader{Parquet: *format == "parquet"}
	case "cypher":
		l = bench.CypherLoader{Log: os.Stderr}
	default:
		return fmt.Errorf("run: -loader must be import or cypher, not %q", *loader)
	}
	rep, err := bench.Run(context.Background(), bench.Config{
		Scale: s, Seed: *seed, Dataset: ds, DataDir: *data, KuzuDir: *kuzu, DuckDBDir: *duckdb, Runs: *runs, Warmup: *warmup,
		Loader: l, Commit: commit(), Log: os.Stderr, Note: *note, Skip: skipList(*skip), Suite: suite, Wide: suite != nil,
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := bench.WriteMarkdown(&buf, rep); err != nil {
		return err
	}
	// The sections `quiverbench writes`, `restart`, `protocols` and `arrow`
	// keep in the report stay, and the export's, kept by hand.
	report := buf.String()
	if old, err := os.ReadFile(*out); err == nil {
		for _, h := range []string{bench.WritesHeading, bench.RestartHeading, bench.ProtocolsHeading, bench.ArrowHTTPHeading, bench.ExportHeading} {
			if sec := bench.ExtractSection(string(old), h); sec != "" {
				report = bench.SpliceSection(report, h, sec)
			}
		}
	}
	if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", *out)
	if len(rep.Mismatches) > 0 {
		return fmt.Errorf("the engines' answers differ:\n%s", strings.Join(rep.Mismatches, "\n"))
	}
	return nil
}

// commit names the checked-out commit, "-dirty" when the tree has changes.
func commit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// skipList parses -skip: upper-cased names, empty entries dropped.
func skipList(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.ToUpper(strings.TrimSpace(n)); n != "" {
			out = append(out, n)
		}
	}
	return out
}
