package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// The algorithm benchmark (quiverbench algo, make bench-algo) times the
// algo.* procedures on a Kronecker graph (kronecker.go) imported with
// quiver import, beside the GAP Benchmark Suite's reference kernels
// measured on the same machine (issue 14). Each algorithm is timed two
// ways, the load excluded from both:
//
//   - in the procedure: the ProcedureCall operator's own time when
//     `CALL … YIELD nodeId, value RETURN nodeId.id, value` runs under
//     PROFILE: the projection of the graph, the algorithm and the
//     filling of the yielded columns. The rest of that run's time
//     (parsing, planning, the RETURN's columns, pulling the rows) is what
//     CALL … YIELD and a row per vertex cost: measured within the one
//     run, it does not carry the run-to-run variation of two runs'
//     difference;
//   - through the query language: the same statement without PROFILE,
//     every batch pulled to the end in process, wall time.
//
// The engine keeps an algorithm's projection of the graph between calls
// on the same committed version (the projection cache, docs/algorithms.md),
// so the timed runs, after a warm-up, measure the algorithm on a built
// projection, as GAP's times exclude building its graph. Each algorithm's
// first call after a commit is timed too (its cold call: the projection
// built, then the algorithm), and the projection alone as a cold BFS with
// maxDepth 0 (it reaches the source only). The commit is an empty change
// (a node created and deleted in one statement): it makes a new version,
// which no cached projection matches. A collection runs before every
// timed query, so that one run's garbage is not collected in the next.

// AlgoCase is one timed algorithm: its name, the GAP kernel it compares
// with, and its call (a CALL clause with $source where it needs one, and
// the yielded value's name).
type AlgoCase struct {
	Name, GAP string
	// Call is the procedure call, Value its yield; Source tells whether
	// it starts from a vertex (then the statement starts with MATCH (s:V
	// {id: $source}) and the call names s).
	Call, Value string
	Source      bool
	// Anchor is GAP's 2-thread time at scale 22 (0: none).
	Anchor time.Duration
	// Once runs the algorithm one time only, without warm-up, whatever
	// the options say (LCC: minutes at scale 20).
	Once bool
	// Ref is the same-run reference kernel's command (reference.go; the
	// source vertex follows for BFS and SSSP), empty for none. Check is
	// the statement whose one row holds the two checksums the reference
	// answers with (reached vertices and the sum of their depths, …),
	// Tolerance how far apart they may be, relative.
	Ref, Check string
	Tolerance  float64
}

// GAPScale is the scale of the GAP anchors.
const GAPScale = 22

// AlgoCases are the algorithms of the benchmark, in report order. The
// graph is undirected and stored once per edge, so the calls read it with
// direction 'UNDIRECTED' (WCC ignores direction; LCC and CDLP count in ∪
// out neighbours, which the natural direction already gives).
var AlgoCases = []AlgoCase{
	{Name: "bfs", GAP: "direction-optimizing BFS", Source: true, Value: "depth", Anchor: 114 * time.Millisecond,
		Call: "algo.bfs.stream({sourceNode: s, direction: 'UNDIRECTED'})",
		// (an unreachable vertex's depth is the largest INTEGER)
		Ref: "bfs", Check: "WITH depth WHERE depth < 9223372036854775807 RETURN count(*), sum(depth)"},
	{Name: "pagerank", GAP: "PageRank, 10 iterations", Value: "score", Anchor: 1060 * time.Millisecond,
		Call: "algo.pagerank.stream({direction: 'UNDIRECTED', maxIterations: 10, tolerance: 0.0})",
		// float sums (GAP's type) against float64 sums of float32
		// contributions
		Ref: "pr", Check: "RETURN sum(score * score), max(score)", Tolerance: 1e-3},
	{Name: "wcc", GAP: "CC (Afforest)", Value: "componentId", Anchor: 180 * time.Millisecond,
		Call: "algo.wcc.stream({})",
		Ref:  "cc", Check: "WITH componentId, count(*) AS size RETURN count(*), max(size)"},
	{Name: "sssp", GAP: "delta-stepping SSSP", Source: true, Value: "distance", Anchor: 1320 * time.Millisecond,
		Call: "algo.sssp.stream({sourceNode: s, relationshipWeightProperty: 'weight', direction: 'UNDIRECTED'})",
		Ref:  "sssp", Check: "WITH distance WHERE distance < 1.0e300 RETURN count(*), sum(distance)"},
	{Name: "cdlp", GAP: "–", Value: "communityId",
		Call: "algo.cdlp.stream({maxIterations: 10})"},
	{Name: "lcc", GAP: "–", Value: "coefficient", Once: true,
		Call: "algo.lcc.stream({})"},
}

// projectionCall times the projection: a BFS that stops at the source.
const projectionCall = "algo.bfs.stream({sourceNode: s, direction: 'UNDIRECTED', maxDepth: 0, includeUnreachable: false})"

// statement is the text that runs c, returning ret.
func (c AlgoCase) statement(call, ret string) string { return c.yield(call) + " RETURN " + ret }

// yield is the text that runs call, up to its YIELD.
func (c AlgoCase) yield(call string) string {
	s := "CALL " + call + " YIELD nodeId, " + c.Value
	if c.Source {
		s = "MATCH (s:V {id: $source}) " + s
	}
	return s
}

// AlgoOptions configure RunAlgo.
type AlgoOptions struct {
	Scale int
	Seed  uint64
	// Data holds the generated CSV files (WriteKronecker); DB is the data
	// directory to import them into (it must not exist; removed after).
	Data, DB string
	// Runs timed runs per algorithm after Warmup untimed ones; a run
	// from a source vertex takes the next of Runs sources.
	Runs, Warmup int
	// Only, when set, names the algorithms to run.
	Only []string
	// Reference, when set, is the compiled same-run reference
	// (bench/gapref/gapref.cc, reference.go), each kernel timed just
	// before each of Quiver's runs of the same algorithm.
	Reference string
	// GAP, when set, is the directory of GAP's compiled kernels (bfs,
	// pr, cc, sssp; gap.go), each run with Runs trials on the same graph
	// just before Quiver's runs of the matching algorithm.
	GAP    string
	Commit string
	Note   string
	Log    io.Writer
}

// AlgoTiming is one algorithm's measurements.
type AlgoTiming struct {
	Case AlgoCase
	// Procedure, Overhead and Query are the runs' times (see the file
	// comment); Rows the rows a query returned (the last run's).
	Procedure, Overhead, Query []time.Duration
	Rows                       int64
	// Cold is the procedure time of the first call after a commit and
	// with the projection cache emptied: a projection's build.
	Cold time.Duration
	// AfterCommit is the procedure times of calls after a commit that
	// changed one relationship (their projections patched from the
	// cached one), two per timed run from that run's source: after the
	// commit that creates the relationship and after the one that
	// deletes it again; none for a case run once.
	AfterCommit []time.Duration
	// Edges is, for BFS, the input edges with both ends reached (the
	// Graph500 count for TEPS), per run.
	Edges []int64
	// Reference is the same-run reference kernel's time in the
	// generator's numbering just before each of Quiver's runs (with
	// AlgoOptions.Reference); ReferenceHub, for PageRank, its time in
	// the hub numbering.
	Reference, ReferenceHub []time.Duration
	// GAP is GAP's own kernel run on the same graph (AlgoOptions.GAP),
	// nil without it.
	GAP *GAPRun
}

// AlgoReport is a run of the algorithm benchmark.
type AlgoReport struct {
	Date      time.Time
	Machine   Machine
	Commit    string
	GoVersion string
	Note      string
	Load      [3]float64 // load average before the timed runs
	Mem       MemProbe   // random-read latency before the timed runs
	Kron      KronStats
	Seed      uint64
	// Import is `quiver import`'s time, Open the opening of the imported
	// directory; neither is in any algorithm's time.
	Import, Open time.Duration
	// Projection is the cold BFS to depth 0's procedure time, per run.
	Projection []time.Duration
	Timings    []AlgoTiming
}

// RunAlgo imports the generated graph and times the algorithms.
func RunAlgo(ctx context.Context, o AlgoOptions) (*AlgoReport, error) {
	a := &algoRun{o: o, runs: max(o.Runs, 1), logf: func(format string, v ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", v...)
		}
	}}
	r := &AlgoReport{Date: time.Now(), Machine: ThisMachine(), Commit: o.Commit, GoVersion: runtime.Version(), Note: o.Note, Seed: o.Seed}
	r.Kron = KronStats{Scale: o.Scale, Vertices: 1 << o.Scale}
	defer os.RemoveAll(o.DB)
	if err := a.open(r); err != nil {
		return nil, err
	}
	defer a.close()
	var err error
	if a.sources, err = algoSources(ctx, a.db, o.Seed, r.Kron.Vertices, a.runs); err != nil {
		return nil, err
	}
	if l, err := LoadAvg(); err == nil {
		r.Load = l
	}
	r.Mem = ProbeMemory()
	a.logf("random reads: %s", r.Mem)
	for _, c := range AlgoCases {
		if len(o.Only) > 0 && !slices.Contains(o.Only, c.Name) {
			continue
		}
		t, err := a.timeCase(ctx, c, r.Kron.Vertices)
		if err != nil {
			return nil, err
		}
		r.Timings = append(r.Timings, t)
	}
	if r.Projection, err = a.timeProjection(ctx); err != nil {
		return nil, err
	}
	a.logf("projection: median %.3f s", MedianOf(r.Projection).Seconds())
	return r, nil
}

// algoRun is one run of the algorithm benchmark over the imported graph:
// the database, the sources every case starts from, and the reference
// kernels once a case needs them.
type algoRun struct {
	o       AlgoOptions
	runs    int
	logf    func(string, ...any)
	db      *engine.DB
	sources []int64
	ref     *Reference
}

// open imports the generated graph into o.DB and opens it, recording both
// times and the graph's edge counts in r.
func (a *algoRun) open(r *AlgoReport) error {
	a.logf("importing %s", a.o.Data)
	start := time.Now()
	sum, err := engine.Import(engine.ImportOptions{Dir: a.o.DB,
		Nodes: []engine.ImportInput{{Name: "V", Path: filepath.Join(a.o.Data, KronNodesFile)}},
		Rels:  []engine.ImportInput{{Name: "E", Path: filepath.Join(a.o.Data, KronEdgesFile)}}})
	if err != nil {
		return err
	}
	r.Import = time.Since(start)
	r.Kron.Edges = sum.Relationships
	r.Kron.SelfLoops = KronEdgeFactor*r.Kron.Vertices - sum.Relationships
	start = time.Now()
	// The undirected projection of a scale-22 graph holds more than the
	// default 1 GiB per query: no per-query limit here, and a projection
	// cache that keeps every shape the algorithms use at scale 22. The
	// small commits that time each first call would otherwise start the
	// 5-minute checkpoint timer, and a checkpoint rewrites the whole base
	// (13 s of both cores at scale 22) in the middle of the timed runs.
	if a.db, err = engine.Open(a.o.DB, engine.Options{MaxMemoryPerQuery: -1, AlgoCacheBytes: AlgoCacheBytes, CheckpointInterval: -1}); err != nil {
		return err
	}
	r.Open = time.Since(start)
	a.logf("imported %d vertices, %d edges in %.1f s; opened in %.1f s", sum.Nodes, sum.Relationships, r.Import.Seconds(), r.Open.Seconds())
	return nil
}

func (a *algoRun) close() {
	if a.ref != nil {
		a.ref.Close()
	}
	a.db.Close()
}

// timeCase times c: its first call after a commit, GAP's kernel when
// asked, then its warm runs beside the reference kernel's.
func (a *algoRun) timeCase(ctx context.Context, c AlgoCase, vertices int64) (AlgoTiming, error) {
	t := AlgoTiming{Case: c}
	first, last := -a.o.Warmup, a.runs
	if c.Once {
		first, last = 0, 1
	}
	if err := newBuild(ctx, a.db); err != nil {
		return t, err
	}
	text := c.statement(c.Call, "nodeId.id, "+c.Value)
	var err error
	if t.Cold, _, err = procedureTime(ctx, a.db, text, sourceParams(c, a.sources, first)); err != nil {
		return t, fmt.Errorf("%s: %w", c.Name, err)
	}
	if a.o.GAP != "" {
		if t.GAP, err = gapRun(ctx, a.o, c, a.sources[0], a.runs, a.logf); err != nil {
			return t, err
		}
	}
	if a.ref == nil && a.o.Reference != "" && c.Ref != "" {
		a.logf("loading the graph into the reference kernels %s", a.o.Reference)
		if a.ref, err = StartReference(ctx, a.o.Reference, filepath.Join(a.o.Data, KronEdgesFile), vertices, 10); err != nil {
			return t, err
		}
	}
	for i := first; i < last; i++ {
		if err := a.timeRun(ctx, &t, text, i, i == first); err != nil {
			return t, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	if !c.Once {
		for i := range a.runs {
			if err := a.timeAfterCommit(ctx, &t, text, i); err != nil {
				return t, fmt.Errorf("%s after a commit: %w", c.Name, err)
			}
		}
	}
	if len(t.Reference) > 0 {
		a.logf("%s: reference kernel %.3f s (medians of %d)", c.Name, MedianOf(t.Reference).Seconds(), len(t.Reference))
	}
	a.logf("%s: in the procedure %.3f s, through the query %.3f s (medians of %d)", c.Name,
		MedianOf(t.Procedure).Seconds(), MedianOf(t.Query).Seconds(), len(t.Procedure))
	return t, nil
}

// timeRun is run i of t's case (a warm-up when negative): the reference
// kernel's (its answer checked on the first run), the procedure's and the
// whole query's times, recorded in t.
func (a *algoRun) timeRun(ctx context.Context, t *AlgoTiming, text string, i int, first bool) error {
	c := t.Case
	params := sourceParams(c, a.sources, i)
	if a.ref != nil && c.Ref != "" {
		if err := referenceRuns(ctx, a.db, a.ref, t, params, first, i >= 0); err != nil {
			return err
		}
	}
	d, total, err := procedureTime(ctx, a.db, text, params)
	if err != nil {
		return err
	}
	q, rows, err := queryTime(ctx, a.db, text, params)
	if err != nil {
		return err
	}
	if i < 0 {
		return nil
	}
	t.Procedure, t.Overhead, t.Query, t.Rows = append(t.Procedure, d), append(t.Overhead, total-d), append(t.Query, q), rows
	if c.Name == "bfs" {
		e, err := reachedEdges(ctx, a.db, params)
		if err != nil {
			return err
		}
		t.Edges = append(t.Edges, e)
	}
	return nil
}

// timeAfterCommit commits one new relationship between two sources,
// times the next call of text from run i's source, deletes the
// relationship again and times the call after that commit too, so that
// the graph stays the one the reference kernels and GAP read. The times
// go to t.AfterCommit; the same sources' cached calls are t.Procedure,
// so the two medians compare the same calls.
func (a *algoRun) timeAfterCommit(ctx context.Context, t *AlgoTiming, text string, i int) error {
	ends := engine.Params{"a": a.sources[0], "b": a.sources[len(a.sources)-1]}
	params := sourceParams(t.Case, a.sources, i)
	for _, change := range []string{
		"MATCH (a:V {id: $a}), (b:V {id: $b}) CREATE (a)-[:E {weight: 1.0, quiverbench: true}]->(b)",
		"MATCH (:V {id: $a})-[e:E {quiverbench: true}]->(:V {id: $b}) DELETE e",
	} {
		if _, err := QueryEmbeddedParams(ctx, a.db, change, ends); err != nil {
			return err
		}
		d, _, err := procedureTime(ctx, a.db, text, params)
		if err != nil {
			return err
		}
		t.AfterCommit = append(t.AfterCommit, d)
	}
	return nil
}

// timeProjection times a BFS to depth 0 after a new build, per run: a
// projection's build and nearly nothing else.
func (a *algoRun) timeProjection(ctx context.Context) ([]time.Duration, error) {
	proj := AlgoCase{Source: true, Value: "depth"}
	var out []time.Duration
	for i := 0; i < a.runs; i++ {
		if err := newBuild(ctx, a.db); err != nil {
			return nil, err
		}
		d, _, err := procedureTime(ctx, a.db, proj.statement(projectionCall, "count(*)"), sourceParams(proj, a.sources, i))
		if err != nil {
			return nil, fmt.Errorf("projection: %w", err)
		}
		out = append(out, d)
	}
	return out, nil
}

// gapRun runs GAP's kernel for c (none: nil) with trials trials from
// source, writing GAP's edge lists of the graph first when missing.
func gapRun(ctx context.Context, o AlgoOptions, c AlgoCase, source int64, trials int, logf func(string, ...any)) (*GAPRun, error) {
	if _, ok := gapKernels[c.Name]; !ok {
		return nil, nil
	}
	el, wel, err := WriteGAPEdgeLists(o.Data)
	if err != nil {
		return nil, fmt.Errorf("GAP's edge lists: %w", err)
	}
	run, _, err := RunGAP(ctx, o.GAP, c.Name, el, wel, source, trials, 0)
	if err != nil {
		return nil, err
	}
	logf("%s: GAP's kernel %.3f s (median of %d trials; read %.1f s, build %.1f s): %s", c.Name,
		run.Median().Seconds(), len(run.Trials), run.Read.Seconds(), run.Build.Seconds(), run.Command)
	return run, nil
}

// AlgoCacheBytes is the projection cache's bound in the benchmark: the
// shapes the algorithms use at scale 22 (undirected, with and without
// relationship ids and weights) fit.
const AlgoCacheBytes = 8 << 30

// newBuild commits an empty change and empties the projection cache, so
// that the next call builds its projection (the commit alone would have
// it patch the cached one, in place).
func newBuild(ctx context.Context, db *engine.DB) error {
	if _, err := QueryEmbedded(ctx, db, "CREATE (n:QuiverbenchVersion) DELETE n"); err != nil {
		return fmt.Errorf("committing a new version: %w", err)
	}
	if _, err := QueryEmbedded(ctx, db, "CALL algo.cache.clear()"); err != nil {
		return fmt.Errorf("emptying the projection cache: %w", err)
	}
	return nil
}

func sourceParams(c AlgoCase, sources []int64, run int) engine.Params {
	if !c.Source {
		return nil
	}
	return engine.Params{"source": sources[(run+len(sources))%len(sources)]}
}

// algoSources draws n distinct source vertices with at least one edge,
// seeded (GAP also picks random non-isolated sources).
func algoSources(ctx context.Context, db *engine.DB, seed uint64, vertices int64, n int) ([]int64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x736f75726365)) // "source"
	var out []int64
	for tries := 0; len(out) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("found only %d vertices with edges in %d tries", len(out), tries)
		}
		v := rng.Int64N(vertices)
		if slices.Contains(out, v) {
			continue
		}
		rows, err := QueryEmbeddedParams(ctx, db, "MATCH (v:V {id: $v})--() RETURN count(*)", engine.Params{"v": v})
		if err != nil {
			return nil, err
		}
		if len(rows) == 1 && rows[0][0] != int64(0) {
			out = append(out, v)
		}
	}
	return out, nil
}

// procedureTime runs text under PROFILE and returns the ProcedureCall
// operator's own time and the query's total.
func procedureTime(ctx context.Context, db *engine.DB, text string, params engine.Params) (proc, total time.Duration, err error) {
	runtime.GC() // the previous run's garbage is not this one's to collect
	res, err := db.Query(ctx, "PROFILE "+text, params)
	if err != nil {
		return 0, 0, err
	}
	defer res.Close()
	for {
		b, err := res.Next()
		if err != nil {
			return 0, 0, err
		}
		if b == nil {
			break
		}
	}
	p := res.Profile()
	if p == nil {
		return 0, 0, fmt.Errorf("PROFILE gave no profile")
	}
	found := false
	for _, op := range p.Operators {
		if op.Name == "ProcedureCall" {
			proc += op.Time
			found = true
		}
	}
	if !found {
		return 0, 0, fmt.Errorf("PROFILE shows no ProcedureCall operator")
	}
	return proc, p.TotalTime, nil
}

// queryTime runs text, pulling every batch, and returns the wall time
// and the rows.
func queryTime(ctx context.Context, db *engine.DB, text string, params engine.Params) (time.Duration, int64, error) {
	runtime.GC()
	start := time.Now()
	res, err := db.Query(ctx, text, params)
	if err != nil {
		return 0, 0, err
	}
	defer res.Close()
	var rows int64
	for {
		b, err := res.Next()
		if err != nil {
			return 0, 0, err
		}
		if b == nil {
			return time.Since(start), rows, nil
		}
		rows += int64(b.Rows())
	}
}

// reachedEdges counts the input edges whose ends the BFS from $source
// reaches (both or neither are reached in an undirected graph): the
// edges Graph500 divides by the time for TEPS.
func reachedEdges(ctx context.Context, db *engine.DB, params engine.Params) (int64, error) {
	rows, err := QueryEmbeddedParams(ctx, db, "MATCH (s:V {id: $source}) CALL algo.bfs.stream({sourceNode: s, direction: 'UNDIRECTED', includeUnreachable: false}) YIELD nodeId MATCH (nodeId)-[e:E]->() RETURN count(e)", params)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, fmt.Errorf("edge count: %v", rows)
	}
	n, ok := rows[0][0].(int64)
	if !ok {
		return 0, fmt.Errorf("edge count: %v", rows[0][0])
	}
	return n, nil
}

// referenceRuns runs t's reference kernel (in both numberings for
// PageRank) from the run's source, checks with check that its checksums
// are those of Quiver's result (c.Check over the same call), and records
// the times when timed.
func referenceRuns(ctx context.Context, db *engine.DB, ref *Reference, t *AlgoTiming, params engine.Params, check, timed bool) error {
	c := t.Case
	cmd := c.Ref
	if c.Source {
		cmd += fmt.Sprint(" ", params["source"])
	}
	runs := []string{cmd}
	if c.Ref == "pr" {
		runs = append(runs, cmd+" hub")
	}
	var got []RefRun
	for _, rc := range runs {
		run, err := ref.Run(rc)
		if err != nil {
			return err
		}
		got = append(got, run)
	}
	if check {
		rows, err := QueryEmbeddedParams(ctx, db, c.yield(c.Call)+" "+c.Check, params)
		if err != nil {
			return err
		}
		if len(rows) != 1 || len(rows[0]) != 2 {
			return fmt.Errorf("%s checksums: %v", c.Name, rows)
		}
		var want [2]float64
		for i, v := range rows[0] {
			switch x := v.(type) {
			case int64:
				want[i] = float64(x)
			case float64:
				want[i] = x
			default:
				return fmt.Errorf("%s checksums: %v", c.Name, rows)
			}
		}
		for i, run := range got {
			for k := range want {
				if !agree(run.Sums[k], want[k], c.Tolerance) {
					return fmt.Errorf("the reference kernel (%s) does not answer as Quiver: checksums %v against Quiver's %v", runs[i], run.Sums, want)
				}
			}
		}
	}
	if timed {
		t.Reference = append(t.Reference, got[0].Time)
		if len(got) > 1 {
			t.ReferenceHub = append(t.ReferenceHub, got[1].Time)
		}
	}
	return nil
}
