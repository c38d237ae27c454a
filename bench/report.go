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
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	snb := r.Dataset == SNBDataset
	switch {
	case snb:
		p("# Benchmark results: Quiver beside Kùzu, the SNB-like data set")
		p("")
		p("Written by `make bench-snb` (bench/cmd/quiverbench run -dataset snb); do not edit by hand. See bench/README.md for the data set and what is measured.")
	case r.Wide:
		p("# Benchmark results: Quiver beside Kùzu, the wider suite")
		p("")
		p("Written by `make bench-wide` (bench/cmd/quiverbench run -suite wide); do not edit by hand. See bench/README.md for what is measured.")
	default:
		p("# Benchmark results: Quiver beside Kùzu")
		p("")
		p("Written by `make bench` (bench/cmd/quiverbench); do not edit by hand. See bench/README.md for what is measured.")
	}
	p("")
	p("| | |")
	p("|---|---|")
	p("| Date | %s |", dateText(r.Date))
	p("| Machine | %s |", r.Machine)
	p("| Commit | %s |", r.Commit)
	if snb {
		p("| Scale | SNB-like %s: %d nodes of %d labels, %d relationships of %d types (seed %d) |", r.Scale.Name, r.Nodes,
			len(r.Dataset.Nodes), r.Edges, r.Dataset.RelTypes(), r.Seed)
	} else {
		p("| Scale | %s: %d nodes, %d edges (seed %d) |", r.Scale.Name, r.Nodes, r.Edges, r.Seed)
	}
	p("| Go | %s |", r.GoVersion)
	p("| Kùzu | %s (npm `kuzu`, Node.js subprocess, default threads) |", r.KuzuVersion)
	p("| Timing | median of %d runs after %d warm-up runs, engines alternated run by run |", r.Runs, r.Warmup)
	p("| Quiver loader | %s |", r.Loader.Name())
	p("")
	if r.Note != "" {
		p("%s", r.Note)
		p("")
	}
	p("## Queries (milliseconds, median)")
	p("")
	p("| Query | Quiver embedded | Quiver HTTP | Kùzu | ratio embedded/Kùzu | ratio HTTP/Kùzu | answer |")
	p("|---|---:|---:|---:|---:|---:|---|")
	logE, logH, n := 0.0, 0.0, 0
	fasterE, fasterH := 0, 0
	for _, q := range r.Queries {
		e, h, k := Median(q.EmbeddedMS), Median(q.HTTPMS), Median(q.KuzuMS)
		name := q.Name
		if q.Shape != "" {
			name += " " + q.Shape
		}
		p("| %s | %.2f | %.2f | %.2f | %s | %s | %s |", name, e, h, k, ratio(e, k), ratio(h, k), strings.ReplaceAll(short(q.Answer), "|", "\\|"))
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
		p("| geometric mean | | | | %.3f | %.3f | |", math.Exp(logE/float64(n)), math.Exp(logH/float64(n)))
	}
	p("")
	p("Quiver is faster than Kùzu on %d of %d queries embedded, %d over HTTP.", fasterE, len(r.Queries), fasterH)
	p("")
	if len(r.Skip) > 0 {
		p("Not run in this report: %s (the geometric mean is over the queries above).", strings.Join(r.Skip, ", "))
		p("")
	}
	p("A ratio below 1 means Quiver is faster. Every answer was compared between the engines;")
	if len(r.Mismatches) == 0 {
		p("all agreed.")
	} else {
		p("**these differed**:")
		p("")
		for _, m := range r.Mismatches {
			p("    %s", strings.ReplaceAll(m, "\n", "\n    "))
		}
	}
	p("")
	p("## Load, size, memory")
	p("")
	p("| | Quiver | Kùzu |")
	p("|---|---:|---:|")
	p("| load nodes (ms) | %.0f | %.0f |", r.QuiverLoad.NodesMS, r.KuzuLoad.NodesMS)
	p("| load edges (ms) | %.0f | %.0f |", r.QuiverLoad.EdgesMS, r.KuzuLoad.EdgesMS)
	p("| load total (ms) | %.0f | %.0f |", r.QuiverLoad.NodesMS+r.QuiverLoad.EdgesMS, r.KuzuLoad.NodesMS+r.KuzuLoad.EdgesMS)
	if r.QuiverLoad.OpenMS > 0 {
		p("| opening the imported directory (ms) | %.0f | |", r.QuiverLoad.OpenMS)
	}
	p("| on-disk size | %s | %s |", quiverDisk(r), bytesText(r.KuzuDisk))
	p("| peak RSS while loading | %s | %s |", bytesText(r.QuiverRSSLoad), bytesText(r.KuzuRSSLoad))
	if r.QuiverLoad.OpenMS > 0 {
		p("| peak RSS while opening | %s | |", bytesText(r.QuiverRSSOpen))
	}
	p("| peak RSS while querying | %s | %s |", bytesText(r.QuiverRSSRun), bytesText(r.KuzuRSSRun))
	p("")
	if r.QuiverLoad.OpenMS > 0 {
		p("Kùzu's load is COPY FROM into an open database; Quiver's is `quiver import`, which builds the")
		p("data directory offline (the same work: parse, key lookup, adjacency in both directions, columns")
		p("written compressed). `quiver serve` then opens the directory, which decodes and verifies it;")
		p("that step is timed and measured on its own rows (opening a populated Kùzu database is not timed).")
		p("")
	}
	p("Peak RSS is VmHWM of the engine's process, reset (clear_refs) before each phase. Quiver's")
	p("process is the harness itself: its figure includes the CSV reading of the loader, the")
	p("HTTP server and client and the decoding of Kùzu's answers (small beside the graph).")
	p("Kùzu's is the Node.js process running bench/kuzu/run.js, Node's own heap included.")
	p("")
	p("## The suite")
	p("")
	for _, q := range r.Queries {
		p("- %s `%s`", q.Name, q.Quiver)
		if q.Kuzu != q.Quiver {
			p("  - Kùzu: `%s`", q.Kuzu)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
