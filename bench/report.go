package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// dateText is how every report dates its run.
func dateText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") }

// String is the machine as every report describes it.
func (m Machine) String() string {
	return fmt.Sprintf("%d CPUs (nproc), %s, %s memory, %s", m.CPUs, m.CPUModel, bytesText(m.MemBytes), m.OS)
}

// WriteMarkdown renders a report as bench/RESULTS.md.
func WriteMarkdown(w io.Writer, r *Report) error {
	var m markdown
	r.writeHeader(&m)
	r.writeQueries(&m)
	r.writeLoad(&m)
	r.writeSuite(&m)
	_, err := io.WriteString(w, m.String())
	return err
}

// markdown collects the lines of a report.
type markdown struct{ strings.Builder }

// p writes a line: format with a.
func (m *markdown) p(format string, a ...any) { fmt.Fprintf(m, format+"\n", a...) }

// writeHeader writes the title and the table of the run.
func (r *Report) writeHeader(m *markdown) {
	snb := r.Dataset == SNBDataset
	switch {
	case snb:
		m.p("# Benchmark results: Quiver beside Kùzu, the SNB-like data set")
		m.p("")
		m.p("Written by `make bench-snb` (bench/cmd/quiverbench run -dataset snb); do not edit by hand. See bench/README.md for the data set and what is measured.")
	case r.Wide:
		m.p("# Benchmark results: Quiver beside Kùzu, the wider suite")
		m.p("")
		m.p("Written by `make bench-wide` (bench/cmd/quiverbench run -suite wide); do not edit by hand. See bench/README.md for what is measured.")
	default:
		m.p("# Benchmark results: Quiver beside Kùzu")
		m.p("")
		m.p("Written by `make bench` (bench/cmd/quiverbench); do not edit by hand. See bench/README.md for what is measured.")
	}
	m.p("")
	m.p("| | |")
	m.p("|---|---|")
	m.p("| Date | %s |", dateText(r.Date))
	m.p("| Machine | %s |", r.Machine)
	m.p("| Commit | %s |", r.Commit)
	if snb {
		m.p("| Scale | SNB-like %s: %d nodes of %d labels, %d relationships of %d types (seed %d) |", r.Scale.Name, r.Nodes,
			len(r.Dataset.Nodes), r.Edges, r.Dataset.RelTypes(), r.Seed)
	} else {
		m.p("| Scale | %s: %d nodes, %d edges (seed %d) |", r.Scale.Name, r.Nodes, r.Edges, r.Seed)
	}
	m.p("| Go | %s |", r.GoVersion)
	m.p("| Kùzu | %s (npm `kuzu`, Node.js subprocess, default threads) |", r.KuzuVersion)
	m.p("| Timing | median of %d runs after %d warm-up runs, engines alternated run by run |", r.Runs, r.Warmup)
	m.p("| Quiver loader | %s |", r.Loader.Name())
	m.p("")
	if r.Note != "" {
		m.p("%s", r.Note)
		m.p("")
	}
}

// writeQueries writes the queries' times beside Kùzu's and whether the
// answers agreed.
func (r *Report) writeQueries(m *markdown) {
	m.p("## Queries (milliseconds, median)")
	m.p("")
	m.p("| Query | Quiver embedded | Quiver HTTP | Kùzu | ratio embedded/Kùzu | ratio HTTP/Kùzu | answer |")
	m.p("|---|---:|---:|---:|---:|---:|---|")
	logE, logH, n := 0.0, 0.0, 0
	fasterE, fasterH := 0, 0
	for _, q := range r.Queries {
		e, h, k := Median(q.EmbeddedMS), Median(q.HTTPMS), Median(q.KuzuMS)
		name := q.Name
		if q.Shape != "" {
			name += " " + q.Shape
		}
		m.p("| %s | %.2f | %.2f | %.2f | %s | %s | %s |", name, e, h, k, ratio(e, k), ratio(h, k), strings.ReplaceAll(short(q.Answer), "|", "\\|"))
		if e > 0 && h > 0 && k > 0 {
			logE += math.Log(e / k)
			logH += math.Log(h / k)
			n++
		}
		if e < k {
			fasterE++
		}
		if h < k {
			fasterH++
		}
	}
	if n > 0 {
		m.p("| geometric mean | | | | %.3f | %.3f | |", math.Exp(logE/float64(n)), math.Exp(logH/float64(n)))
	}
	m.p("")
	m.p("Quiver is faster than Kùzu on %d of %d queries embedded, %d over HTTP.", fasterE, len(r.Queries), fasterH)
	m.p("")
	if len(r.Skip) > 0 {
		m.p("Not run in this report: %s (the geometric mean is over the queries above).", strings.Join(r.Skip, ", "))
		m.p("")
	}
	m.p("A ratio below 1 means Quiver is faster. Every answer was compared between the engines;")
	if len(r.Mismatches) == 0 {
		m.p("all agreed.")
	} else {
		m.p("**these differed**:")
		m.p("")
		for _, mm := range r.Mismatches {
			m.p("    %s", strings.ReplaceAll(mm, "\n", "\n    "))
		}
	}
	m.p("")
}

// writeLoad writes the load, the size on disk and the memory.
func (r *Report) writeLoad(m *markdown) {
	m.p("## Load, size, memory")
	m.p("")
	m.p("| | Quiver | Kùzu |")
	m.p("|---|---:|---:|")
	m.p("| load nodes (ms) | %.0f | %.0f |", r.QuiverLoad.NodesMS, r.KuzuLoad.NodesMS)
	m.p("| load edges (ms) | %.0f | %.0f |", r.QuiverLoad.EdgesMS, r.KuzuLoad.EdgesMS)
	m.p("| load total (ms) | %.0f | %.0f |", r.QuiverLoad.NodesMS+r.QuiverLoad.EdgesMS, r.KuzuLoad.NodesMS+r.KuzuLoad.EdgesMS)
	if r.QuiverLoad.OpenMS > 0 {
		m.p("| opening the imported directory (ms) | %.0f | |", r.QuiverLoad.OpenMS)
	}
	m.p("| on-disk size | %s | %s |", quiverDisk(r), bytesText(r.KuzuDisk))
	m.p("| peak RSS while loading | %s | %s |", bytesText(r.QuiverRSSLoad), bytesText(r.KuzuRSSLoad))
	if r.QuiverLoad.OpenMS > 0 {
		m.p("| peak RSS while opening | %s | |", bytesText(r.QuiverRSSOpen))
	}
	m.p("| peak RSS while querying | %s | %s |", bytesText(r.QuiverRSSRun), bytesText(r.KuzuRSSRun))
	m.p("")
	if r.QuiverLoad.OpenMS > 0 {
		m.p("Kùzu's load is COPY FROM into an open database; Quiver's is `quiver import`, which builds the")
		m.p("data directory offline (the same work: parse, key lookup, adjacency in both directions, columns")
		m.p("written compressed). `quiver serve` then opens the directory, which decodes and verifies it;")
		m.p("that step is timed and measured on its own rows (opening a populated Kùzu database is not timed).")
		m.p("")
	}
	m.p("Peak RSS is VmHWM of the engine's process, reset (clear_refs) before each phase. Quiver's")
	m.p("process is the harness itself: its figure includes the CSV reading of the loader, the")
	m.p("HTTP server and client and the decoding of Kùzu's answers (small beside the graph).")
	m.p("Kùzu's is the Node.js process running bench/kuzu/run.js, Node's own heap included.")
	m.p("")
}

// writeSuite lists the queries' text.
func (r *Report) writeSuite(m *markdown) {
	m.p("## The suite")
	m.p("")
	for _, q := range r.Queries {
		m.p("- %s `%s`", q.Name, q.Quiver)
		if q.Kuzu != q.Quiver {
			m.p("  - Kùzu: `%s`", q.Kuzu)
		}
	}
}

func quiverDisk(r *Report) string {
	if r.QuiverDisk == 0 {
		return "none: loaded in memory, nothing written"
	}
	if r.QuiverWAL > 0 {
		return fmt.Sprintf("%s (+ %s of write-ahead log, its active segment preallocated while open)", bytesText(r.QuiverDisk), bytesText(r.QuiverWAL))
	}
	return bytesText(r.QuiverDisk)
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", a/b)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
