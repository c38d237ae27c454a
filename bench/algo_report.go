package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// GoalFactor is how far from GAP's 2-thread time an algorithm may be.
const GoalFactor = 2

// Goal is c's goal at scale: GoalFactor × GAP's scale-22 time, scaled
// linearly with the edge count (2^(scale-22)) at other scales; 0 when
// there is no anchor.
func (c AlgoCase) Goal(scale int) time.Duration {
	if c.Anchor == 0 {
		return 0
	}
	return time.Duration(float64(GoalFactor*c.Anchor) * math.Pow(2, float64(scale-GAPScale)))
}

// TEPS is BFS's traversed edges per second over the runs: the harmonic
// mean of each run's edges / time, as Graph500 reports it (0 without
// runs).
func (t AlgoTiming) TEPS() float64 {
	var inv float64
	n := 0
	for i, d := range t.Procedure {
		if i < len(t.Edges) && t.Edges[i] > 0 && d > 0 {
			inv += d.Seconds() / float64(t.Edges[i])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(n) / inv
}

// WriteAlgoMarkdown renders the report as bench/RESULTS-algo.md.
func WriteAlgoMarkdown(w io.Writer, r *AlgoReport) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	k := r.Kron
	p("# Graph algorithms: Quiver beside the GAP reference kernels")
	p("")
	p("Written by `make bench-algo` (bench/cmd/quiverbench algo); do not edit by hand. See bench/README.md, \"Graph algorithms\".")
	p("")
	p("| | |")
	p("|---|---|")
	p("| Date | %s |", dateText(r.Date))
	p("| Machine | %s |", r.Machine)
	p("| Commit | %s |", r.Commit)
	p("| Go | %s |", r.GoVersion)
	p("| Load | load average %.2f %.2f %.2f before the timed runs |", r.Load[0], r.Load[1], r.Load[2])
	p("| Random reads | %s per independent 4-byte read, by array size, before the timed runs (bench/memprobe.go: the cache this shared machine leaves us, which PageRank's time follows) |", r.Mem)
	p("| Graph | Graph500 Kronecker, scale %d, seed %d: %s vertices, %s undirected edges (%s self-loops dropped), weights 1..%d; stored once per edge, read with direction 'UNDIRECTED' |",
		k.Scale, r.Seed, countText(k.Vertices), countText(k.Edges), countText(k.SelfLoops), KronMaxWeight)
	p("| Load (not timed below) | `quiver import` %s, opening the directory %s |", secText(r.Import), secText(r.Open))
	p("")
	if r.Note != "" {
		p("%s", r.Note)
		p("")
	}
	p("Times are medians of %d runs (min in parentheses); BFS and SSSP start from a different seeded", runsOf(r))
	p("non-isolated vertex each run. *In the procedure*: the ProcedureCall operator's own time when")
	p("`CALL … YIELD nodeId, value RETURN nodeId.id, value` runs under PROFILE: projecting the graph, the")
	p("algorithm, filling the yielded columns; *CALL … YIELD overhead*: the rest of that PROFILE run (parse,")
	p("plan, the returned columns, pulling every row). *Through the query language*: the same statement")
	p("without PROFILE, every row pulled in process, wall time (another run, so it varies on its own).")
	p("These runs follow a warm-up, so the algorithm's projection of the graph comes from the projection")
	p("cache (docs/algorithms.md), as GAP's times exclude building its graph. *First call*: the procedure")
	p("time of the algorithm's first call after a commit with the cache emptied (`algo.cache.clear()`),")
	p("which builds the projection. *After a commit*: the median procedure time of the calls after a commit")
	p("that changed one relationship, which patch the cached projection: per timed run, from its source, one")
	p("after a commit that creates a relationship and one after the commit that deletes it again; the ratio")
	p("is to the median cached call (the same sources).")
	p("GAP: the reference kernels (gapbs) on this machine at scale %d with 2", GAPScale)
	p("threads (issue 14); the goal is %d× that, scaled linearly in edges (2^(scale−%d)) at other scales.", GoalFactor, GAPScale)
	p("")
	if hasGAP(r) {
		p("*GAP, same run*: GAP's own kernel (gapbs) on the same graph in this run, just before Quiver's runs")
		p("of the algorithm: the median of its trial times (min in parentheses), the kernel alone as GAP times it.")
		p("")
	}
	p("| algorithm | in the procedure | through the query language | CALL … YIELD overhead | first call | after a commit | rows | GAP kernel | GAP, same run | procedure / GAP same run | GAP, 2 threads, scale %d | goal at scale %d | procedure / goal |", GAPScale, k.Scale)
	p("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
	for _, t := range r.Timings {
		c := t.Case
		proc, q := MedianOf(t.Procedure), MedianOf(t.Query)
		anchor, goal, vs := "–", "–", "–"
		if c.Anchor > 0 {
			anchor, goal = secText3(c.Anchor), secText3(c.Goal(k.Scale))
			vs = fmt.Sprintf("%.2f", proc.Seconds()/c.Goal(k.Scale).Seconds())
		}
		name := c.Name
		if n := len(t.Procedure); n != runsOf(r) {
			name += fmt.Sprintf(" (%d run%s)", n, map[bool]string{true: "", false: "s"}[n == 1])
		}
		same, vsSame := "–", "–"
		if g := t.GAP; g != nil {
			same = fmt.Sprintf("%s (%s)", secText3(g.Median()), secText3(slicesMin(g.Trials)))
			vsSame = fmt.Sprintf("%.2f", proc.Seconds()/g.Median().Seconds())
		}
		after := "–"
		if len(t.AfterCommit) > 0 {
			ac := MedianOf(t.AfterCommit)
			after = fmt.Sprintf("%s (%.2f×)", secText3(ac), ac.Seconds()/proc.Seconds())
		}
		p("| %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", name, secText3(proc), secText3(slicesMin(t.Procedure)),
			secText3(q), secText3(MedianOf(t.Overhead)), secText3(t.Cold), after, countText(t.Rows), c.GAP, same, vsSame, anchor, goal, vs)
	}
	p("")
	writeGAPRuns(p, r)
	writeReferenceTable(p, r)
	if len(r.Projection) > 0 {
		p("Building the undirected projection alone (a first BFS after a commit and `algo.cache.clear()`, with `maxDepth: 0`, which reaches")
		p("only its source) takes %s in the procedure (median of %d).", secText3(MedianOf(r.Projection)), len(r.Projection))
		p("")
	}
	for _, t := range r.Timings {
		if teps := t.TEPS(); teps > 0 {
			p("BFS: %.1f MTEPS in the procedure (Graph500's count: input edges with both ends reached, %s on", teps/1e6, countText(MedianOf(t.Edges)))
			p("median; harmonic mean over the runs). GAP's BFS anchor is about %.0f MTEPS (%s edges generated at", float64(KronEdgeFactor<<GAPScale)/bfsAnchor().Seconds()/1e6, countText(KronEdgeFactor<<GAPScale))
			p("scale %d in %s).", GAPScale, secText3(bfsAnchor()))
			p("")
		}
	}
	p("Run: `make bench-algo` (scale 20) or `make bench-algo ALGO_SCALE=22 ALGO_ONLY=bfs,pagerank,wcc,sssp,cdlp`")
	p("(about 4M vertices, 64M edges: the size of Graphalytics' graph500-22 and of the GAP anchors; LCC left out).")
	_, err := io.WriteString(w, b.String())
	return err
}

func bfsAnchor() time.Duration {
	for _, c := range AlgoCases {
		if c.Name == "bfs" {
			return c.Anchor
		}
	}
	return 0
}

// runsOf is the number of timed runs most algorithms had.
func runsOf(r *AlgoReport) int {
	n := 0
	for _, t := range r.Timings {
		n = max(n, len(t.Procedure))
	}
	return n
}

func slicesMin(xs []time.Duration) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

// secText3 is a duration in seconds with millisecond precision.
func secText3(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// writeReferenceTable renders the same-run reference kernels' times
// (reference.go) beside Quiver's, when the run had them.
func writeReferenceTable(p func(string, ...any), r *AlgoReport) {
	var rows []AlgoTiming
	for _, t := range r.Timings {
		if len(t.Reference) > 0 {
			rows = append(rows, t)
		}
	}
	if len(rows) == 0 {
		return
	}
	p("**Same-run reference.** GAP's four kernels as their papers describe them (bench/gapref/gapref.cc:")
	p("direction-optimizing BFS, pull PageRank with float scores plus the sink mass, delta-stepping SSSP with")
	p("delta 1, Afforest CC; OpenMP over 2 threads), compiled with `g++ -O3 -march=native` and run on the same")
	p("graph just before each of Quiver's runs, from the same source. The run checks that each answers as")
	p("Quiver does: vertices reached and the sum of their depths (BFS) or distances (SSSP), the number of")
	p("components and the largest (CC), the sum of squared scores and the largest score (PageRank, within")
	p("1e-3). *GAP's numbering* is the vertex ids as generated (hubs scattered), GAP's setting; for PageRank")
	p("*hub numbering* also times the kernel with the vertices renumbered by decreasing degree, as Quiver's")
	p("projections number them. The goal by this anchor is %d× the reference in GAP's setting.", GoalFactor)
	p("")
	p("| algorithm | Quiver, in the procedure | reference, GAP's numbering | reference, hub numbering | Quiver / reference | Quiver / reference in the hub numbering | procedure / goal by this anchor |")
	p("|---|---:|---:|---:|---:|---:|---:|")
	for _, t := range rows {
		proc, gen := MedianOf(t.Procedure), MedianOf(t.Reference)
		hub, vsHub := "–", "–"
		if len(t.ReferenceHub) > 0 {
			h := MedianOf(t.ReferenceHub)
			hub = fmt.Sprintf("%s (%s)", secText3(h), secText3(slicesMin(t.ReferenceHub)))
			vsHub = fmt.Sprintf("%.2f", proc.Seconds()/h.Seconds())
		}
		p("| %s | %s (%s) | %s (%s) | %s | %.2f | %s | %.2f |", t.Case.Name, secText3(proc), secText3(slicesMin(t.Procedure)),
			secText3(gen), secText3(slicesMin(t.Reference)), hub, proc.Seconds()/gen.Seconds(), vsHub, proc.Seconds()/(GoalFactor*gen.Seconds()))
	}
	p("")
}

func hasGAP(r *AlgoReport) bool {
	for _, t := range r.Timings {
		if t.GAP != nil {
			return true
		}
	}
	return false
}

// writeGAPRuns lists the runs of GAP's kernels: the command, the graph
// GAP built and its times beside the kernel's.
func writeGAPRuns(p func(string, ...any), r *AlgoReport) {
	if !hasGAP(r) {
		return
	}
	p("**GAP's runs** (bench/gap.go): compiled from ../shared/gapbs with the flags of its Makefile")
	p("(`-std=c++11 -O3 -Wall -fopenmp`), reading the edge list written from the same `edges.csv` (`-f`, built")
	p("symmetrized with `-s`; GAP drops self-loops and repeated pairs), BFS and SSSP from the source of")
	p("Quiver's first timed run for every trial (`-r`). GAP's *Average Time* is the mean of its trials.")
	p("")
	p("| algorithm | command | graph GAP built | read | build | trials | median | average |")
	p("|---|---|---|---:|---:|---:|---:|---:|")
	for _, t := range r.Timings {
		g := t.GAP
		if g == nil {
			continue
		}
		p("| %s | `%s` | %s nodes, %s undirected edges | %s | %s | %d | %s | %s |", t.Case.Name, g.Command,
			countText(g.Nodes), countText(g.Edges), secText3(g.Read), secText3(g.Build), len(g.Trials), secText3(g.Median()), secText3(g.Average))
	}
	p("")
}
