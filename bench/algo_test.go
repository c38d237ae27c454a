package bench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RunAlgo end to end on a scale-8 Kronecker graph: every algorithm
// timed both ways, a row per vertex, BFS's reached edges counted, the
// report rendered.
func TestRunAlgo(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "kron")
	st, err := WriteKronecker(data, 8, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunAlgo(context.Background(), AlgoOptions{Scale: 8, Seed: 1, Data: data, DB: filepath.Join(dir, "db"), Runs: 2, Commit: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kron.Edges != st.Edges || r.Kron.SelfLoops != st.SelfLoops || len(r.Projection) != 2 || len(r.Timings) != len(AlgoCases) {
		t.Fatalf("report: kron %+v (generated %+v), %d projection runs, %d timings", r.Kron, st, len(r.Projection), len(r.Timings))
	}
	for _, tm := range r.Timings {
		want := 2
		if tm.Case.Once {
			want = 1
		}
		if tm.Cold <= 0 {
			t.Errorf("%s: first call %v", tm.Case.Name, tm.Cold)
		}
		if wantAfter := 2 * want; tm.Case.Once {
			if len(tm.AfterCommit) != 0 {
				t.Errorf("%s (run once): calls after a commit %v", tm.Case.Name, tm.AfterCommit)
			}
		} else if len(tm.AfterCommit) != wantAfter {
			t.Errorf("%s: calls after a commit %v, want %d", tm.Case.Name, tm.AfterCommit, wantAfter)
		}
		if len(tm.Procedure) != want || len(tm.Overhead) != want || len(tm.Query) != want || tm.Rows != 256 {
			t.Errorf("%s: %d procedure, %d overhead and %d query runs, %d rows", tm.Case.Name, len(tm.Procedure), len(tm.Overhead), len(tm.Query), tm.Rows)
		}
		for i := range tm.Procedure {
			if tm.Procedure[i] <= 0 || tm.Overhead[i] <= 0 || tm.Query[i] <= 0 {
				t.Errorf("%s: run %d took %v in the procedure, %v besides, %v through the query", tm.Case.Name, i, tm.Procedure[i], tm.Overhead[i], tm.Query[i])
			}
		}
		if tm.Case.Name == "bfs" {
			// The sources have edges, so their component holds some;
			// at most all of them.
			if len(tm.Edges) != 2 || tm.Edges[0] <= 0 || tm.Edges[0] > st.Edges || tm.TEPS() <= 0 {
				t.Errorf("bfs reached edges %v of %d", tm.Edges, st.Edges)
			}
		}
	}
	var b strings.Builder
	if err := WriteAlgoMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| lcc (1 run) |") || !strings.Contains(b.String(), "MTEPS") {
		t.Errorf("report:\n%s", b.String())
	}
}

// The report from recorded numbers: goals scaled from the scale-22
// anchors, the ratio to the goal, Graph500's harmonic-mean TEPS.
func TestAlgoReport(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	var bfs, lcc AlgoCase
	for _, c := range AlgoCases {
		switch c.Name {
		case "bfs":
			bfs = c
		case "lcc":
			lcc = c
		}
	}
	if g := bfs.Goal(22); g != 228*time.Millisecond {
		t.Errorf("BFS goal at 22: %v", g)
	}
	if g := bfs.Goal(20); g != 57*time.Millisecond {
		t.Errorf("BFS goal at 20: %v", g)
	}
	bt := AlgoTiming{Case: bfs, Procedure: ms(100, 200, 300), Overhead: ms(5, 10, 30), Query: ms(110, 210, 320), Cold: 700 * time.Millisecond, AfterCommit: ms(230, 220, 210, 190), Rows: 1 << 20, Edges: []int64{1e6, 1e6, 1e6}}
	// 3 runs / (0.6 s / 1e6 edges) = 5e6 edges/s.
	if teps := bt.TEPS(); teps < 4.999e6 || teps > 5.001e6 {
		t.Errorf("TEPS %.0f, want 5e6", teps)
	}
	r := &AlgoReport{Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Commit: "abc123", GoVersion: "go1.26",
		Kron: KronStats{Scale: 20, Vertices: 1 << 20, Edges: 16776023, SelfLoops: 1193}, Seed: 1,
		Import: 8 * time.Second, Open: time.Second, Projection: ms(50, 60, 70),
		Timings: []AlgoTiming{bt, {Case: lcc, Procedure: ms(90000), Overhead: ms(1000), Query: ms(92000), Cold: 95 * time.Second, Rows: 1 << 20}}}
	var b strings.Builder
	if err := WriteAlgoMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Date | 2026-01-02 03:04 UTC |",
		"| Commit | abc123 |",
		"scale 20, seed 1: 1,048,576 vertices, 16,776,023 undirected edges (1,193 self-loops dropped)",
		"Times are medians of 3 runs",
		"| bfs | 0.200 s (0.100 s) | 0.210 s | 0.010 s | 0.700 s | 0.215 s (1.07×) | 1,048,576 | direction-optimizing BFS | – | – | 0.114 s | 0.057 s | 3.51 |",
		"| lcc (1 run) | 90.000 s (90.000 s) | 92.000 s | 1.000 s | 95.000 s | – | 1,048,576 | – | – | – | – | – | – |",
		"takes 0.060 s in the procedure (median of 3)",
		"BFS: 5.0 MTEPS in the procedure",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// The reference kernel's answers are read strictly: a malformed or
// foreign line is an error, never a zero time.
func TestParseReference(t *testing.T) {
	if arcs, err := parseReady("ready 1024 32000", 1024); err != nil || arcs != 32000 {
		t.Errorf("ready: %d, %v", arcs, err)
	}
	for _, bad := range []string{"ready 1000 32000", "ready 1024", "error unknown command", "ready 1024 -5"} {
		if _, err := parseReady(bad, 1024); err == nil {
			t.Errorf("parseReady(%q) took it", bad)
		}
	}
	run, err := parseRefRun("time 2.500000 2.806585367e-05 1.878098003e-03")
	if err != nil || run.Time != 2500*time.Millisecond || run.Sums != [2]float64{2.806585367e-05, 1.878098003e-03} {
		t.Errorf("time line: %+v, %v", run, err)
	}
	for _, bad := range []string{"time 2.5 1e-5", "time x 1 1", "error unknown command", "time -1 1 1"} {
		if _, err := parseRefRun(bad); err == nil {
			t.Errorf("parseRefRun(%q) took it", bad)
		}
	}
	if !agree(1.0, 1.0005, 1e-3) || agree(1.0, 1.002, 1e-3) || !agree(0, 0, 1e-3) {
		t.Error("agree")
	}
}

// The report renders the same-run reference's table from recorded times,
// with Quiver's ratios to both numberings (PageRank) or GAP's alone, and
// to the goal by this anchor.
func TestReferenceTable(t *testing.T) {
	r := &AlgoReport{Kron: KronStats{Scale: 22}, Timings: []AlgoTiming{{
		Case:      AlgoCases[1],
		Procedure: []time.Duration{3 * time.Second, 2 * time.Second, 4 * time.Second},
		Reference: []time.Duration{8 * time.Second, 6 * time.Second, 7 * time.Second}, ReferenceHub: []time.Duration{2 * time.Second, 3 * time.Second, 2500 * time.Millisecond},
	}}}
	var b strings.Builder
	if err := WriteAlgoMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "| pagerank | 3.000 s (2.000 s) | 7.000 s (6.000 s) | 2.500 s (2.000 s) | 0.43 | 1.20 | 0.21 |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("no line %q in\n%s", want, b.String())
	}
	// A kernel timed in GAP's numbering only (BFS: 0.3 / 0.2, 0.3 / 0.4).
	r.Timings = append(r.Timings, AlgoTiming{Case: AlgoCases[0],
		Procedure: []time.Duration{300 * time.Millisecond}, Reference: []time.Duration{200 * time.Millisecond}})
	b.Reset()
	if err := WriteAlgoMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	want = "| bfs | 0.300 s (0.300 s) | 0.200 s (0.200 s) | – | 1.50 | – | 0.75 |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("no line %q in\n%s", want, b.String())
	}
}
