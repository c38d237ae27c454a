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
	if r.DuckDBVersion != "" {
		m.p("| DuckDB | %s (npm `@duckdb/node-api`, in process in a Node.js subprocess, default threads; the SQL forms) |", r.DuckDBVersion)
	}
	m.p("| Timing | median of %d runs after %d warm-up runs, engines alternated run by run |", r.Runs, r.Warmup)
	m.p("| Quiver loader | %s |", r.Loader.Name())
	m.p("")
	if r.Note != "" {
		m.p("%s", r.Note)
		m.p("")
	}
}

// writeQueries writes the queries' times beside Kùzu's (and DuckDB's,
// when it ran) and whether the answers agreed.
func (r *Report) writeQueries(m *markdown) {
	duck := r.DuckDBVersion != ""
	m.p("## Queries (milliseconds, median)")
	m.p("")
	if duck {
		m.p("| Query | Quiver embedded | Quiver HTTP | Kùzu | ratio embedded/Kùzu | ratio HTTP/Kùzu | DuckDB | ratio embedded/DuckDB | ratio HTTP/DuckDB | answer |")
		m.p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	} else {
		m.p("| Query | Quiver embedded | Quiver HTTP | Kùzu | ratio embedded/Kùzu | ratio HTTP/Kùzu | answer |")
		m.p("|---|---:|---:|---:|---:|---:|---|")
	}
	var kuzuMean, duckMean geoMean
	fasterE, fasterH, answered := 0, 0, 0
	var slowerE, slowerH, failed []string
	for _, q := range r.Queries {
		e, h, k := Median(q.EmbeddedMS), Median(q.HTTPMS), Median(q.KuzuMS)
		name := q.Name
		if q.Shape != "" {
			name += " " + q.Shape
		}
		answer := strings.ReplaceAll(short(q.Answer), "|", "\\|")
		kcell, re, rh := fmt.Sprintf("%.2f", k), ratio(e, k), ratio(h, k)
		if q.KuzuFailed != "" {
			kcell, re, rh = "no answer", "–", "–"
			failed = append(failed, q.Name+": "+q.KuzuFailed)
		} else {
			answered++
			kuzuMean.add(e, h, k)
			if e < k {
				fasterE++
			}
			if h < k {
				fasterH++
			}
		}
		if !duck {
			m.p("| %s | %.2f | %.2f | %s | %s | %s | %s |", name, e, h, kcell, re, rh, answer)
			continue
		}
		if len(q.DuckDBMS) == 0 {
			m.p("| %s | %.2f | %.2f | %s | %s | %s | – | – | – | %s |", name, e, h, kcell, re, rh, answer)
			continue
		}
		d := Median(q.DuckDBMS)
		m.p("| %s | %.2f | %.2f | %s | %s | %s | %.2f | %s | %s | %s |", name, e, h, kcell, re, rh, d, ratio(e, d), ratio(h, d), answer)
		duckMean.add(e, h, d)
		if e > d {
			slowerE = append(slowerE, fmt.Sprintf("%s %s", q.Name, ratio(e, d)))
		}
		if h > d {
			slowerH = append(slowerH, fmt.Sprintf("%s %s", q.Name, ratio(h, d)))
		}
	}
	if kuzuMean.n > 0 {
		if duck {
			m.p("| geometric mean | | | | %s | %s | | %s | %s | |", kuzuMean.embedded(), kuzuMean.http(), duckMean.embedded(), duckMean.http())
		} else {
			m.p("| geometric mean | | | | %s | %s | |", kuzuMean.embedded(), kuzuMean.http())
		}
	}
	m.p("")
	m.p("Quiver is faster than Kùzu on %d of %d queries embedded, %d over HTTP.", fasterE, answered, fasterH)
	m.p("")
	if len(failed) > 0 {
		m.p("Kùzu gave no answer to the queries below, which the counts and Kùzu's geometric means leave out; its process was started again on its database for the queries after each:")
		m.p("")
		for _, f := range failed {
			m.p("- %s", f)
		}
		m.p("")
	}
	if duck {
		withSQL := 0
		for _, q := range r.Queries {
			if len(q.DuckDBMS) > 0 {
				withSQL++
			}
		}
		m.p("Quiver is slower than DuckDB on %d of the %d queries with a SQL form embedded%s, %d over HTTP%s.",
			len(slowerE), withSQL, listed(slowerE), len(slowerH), listed(slowerH))
		m.p("DuckDB's geometric means are over those queries; a – marks a query without a SQL form (bench/suite.go).")
		m.p("")
	}
	if len(r.Skip) > 0 {
		m.p("Not run in this report: %s (the geometric mean is over the queries above).", strings.Join(r.Skip, ", "))
		m.p("")
	}
	m.p("A ratio below 1 means Quiver is faster. Every answer was compared between the engines;")
	switch {
	case len(r.Mismatches) == 0 && len(r.PeerDefects) == 0:
		m.p("all agreed.")
	case len(r.Mismatches) == 0:
		m.p("all agreed but for a known defect of Kùzu's, where DuckDB's answer agreed with Quiver's:")
		m.p("")
		for _, d := range r.PeerDefects {
			m.p("- %s", d)
		}
	default:
		m.p("**these differed**:")
		m.p("")
		for _, mm := range r.Mismatches {
			m.p("    %s", strings.ReplaceAll(mm, "\n", "\n    "))
		}
		if len(r.PeerDefects) > 0 {
			m.p("")
			m.p("Known defects of Kùzu's, where DuckDB's answer agreed with Quiver's:")
			m.p("")
			for _, d := range r.PeerDefects {
				m.p("- %s", d)
			}
		}
	}
	m.p("")
}

// writeLoad writes the load, the size on disk and the memory.
func (r *Report) writeLoad(m *markdown) {
	m.p("## Load, size, memory")
	m.p("")
	duck := r.DuckDBVersion != ""
	// row writes one row; duckdb is DuckDB's cell, left out when it did
	// not run.
	row := func(label, quiver, kuzu, duckdb string) {
		cells := []string{label, quiver, kuzu}
		if duck {
			cells = append(cells, duckdb)
		}
		line := "|"
		for _, c := range cells {
			if c != "" {
				line += " " + c
			}
			line += " |"
		}
		m.p("%s", line)
	}
	msText := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	row("", "Quiver", "Kùzu", "DuckDB")
	if duck {
		m.p("|---|---:|---:|---:|")
	} else {
		m.p("|---|---:|---:|")
	}
	row("load nodes (ms)", msText(r.QuiverLoad.NodesMS), msText(r.KuzuLoad.NodesMS), msText(r.DuckDBLoad.NodesMS))
	row("load edges (ms)", msText(r.QuiverLoad.EdgesMS), msText(r.KuzuLoad.EdgesMS), msText(r.DuckDBLoad.EdgesMS))
	row("load total (ms)", msText(r.QuiverLoad.NodesMS+r.QuiverLoad.EdgesMS), msText(r.KuzuLoad.NodesMS+r.KuzuLoad.EdgesMS),
		msText(r.DuckDBLoad.NodesMS+r.DuckDBLoad.EdgesMS))
	if r.QuiverLoad.OpenMS > 0 {
		row("opening the imported directory (ms)", msText(r.QuiverLoad.OpenMS), "", "")
	}
	row("on-disk size", quiverDisk(r), bytesText(r.KuzuDisk), bytesText(r.DuckDBDisk))
	row("peak RSS while loading", bytesText(r.QuiverRSSLoad), bytesText(r.KuzuRSSLoad), bytesText(r.DuckDBRSSLoad))
	if r.QuiverLoad.OpenMS > 0 {
		row("peak RSS while opening", bytesText(r.QuiverRSSOpen), "", "")
	}
	row("peak RSS while querying", bytesText(r.QuiverRSSRun), bytesText(r.KuzuRSSRun), bytesText(r.DuckDBRSSRun))
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
	if duck {
		m.p("DuckDB's is the Node.js process running bench/duckdb/run.js; its load is COPY FROM into a")
		m.p("node table and an edge table of a new database file.")
	}
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
		if q.SQL != "" {
			m.p("  - SQL: `%s`", q.SQL)
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

// geoMean accumulates Quiver's ratios to a peer's time, embedded and
// over HTTP, over the queries all three times are known for.
type geoMean struct {
	logE, logH float64
	n          int
}

func (g *geoMean) add(embedded, http, peer float64) {
	if embedded > 0 && http > 0 && peer > 0 {
		g.logE += math.Log(embedded / peer)
		g.logH += math.Log(http / peer)
		g.n++
	}
}

func (g *geoMean) embedded() string { return g.mean(g.logE) }
func (g *geoMean) http() string     { return g.mean(g.logH) }

func (g *geoMean) mean(sum float64) string {
	if g.n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", math.Exp(sum/float64(g.n)))
}

// listed is " (a, b)" for names, nothing for none.
func listed(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
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
