package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// RestartHeading opens the section `quiverbench restart` keeps in
// bench/RESULTS.md; it runs to the next "## " heading or the end.
const RestartHeading = "## Restart"

// RestartReport is what `quiverbench restart` measured.
type RestartReport struct {
	Date      time.Time
	Machine   Machine
	Commit    string
	GoVersion string
	FS        Filesystem
	Settle    time.Duration
	Note      string
	Scales    []*RestartScale
}

// WriteRestartSection renders the report as the "Restart" section of
// bench/RESULTS.md. notes (markdown, may be empty) is the reading of the
// numbers, kept by hand in a file of its own.
func WriteRestartSection(w io.Writer, r *RestartReport, notes string) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p("%s", RestartHeading)
	p("")
	p("Written by `quiverbench restart`, which replaces only this section; see bench/README.md.")
	p("")
	p("| | |")
	p("|---|---|")
	p("| Date | %s |", dateText(r.Date))
	p("| Machine | %s |", r.Machine)
	p("| Commit | %s |", r.Commit)
	p("| Go | %s |", r.GoVersion)
	p("| Filesystem | %s |", r.FS)
	p("| Load | 1-minute load average before each start: %s (per run below) |", restartLoadRange(r.Scales))
	p("")
	if r.Note != "" {
		p("%s", r.Note)
		p("")
	}
	p("`quiver serve --listen 127.0.0.1:0 --data-dir D` (default options) on the directory `quiver import`")
	p("built from the generated data set, timed from the start of the process to the answer of its first")
	p("query, `%s` over HTTP, checked against the node count. Peak RSS is the", RestartQuery)
	p("server's VmHWM at that answer (the peak while opening), steady RSS its VmRSS %v later, idle. Warm:", r.Settle)
	p("the directory's files in the page cache (as after the import or a restart); evicted: dropped from it")
	p("(posix_fadvise DONTNEED) before the start, so the guest reads them from its disk. Each server is SIGKILLed.")
	p("Medians over the runs; open CPU is the server's user+system CPU at its first answer.")
	p("")
	p("| scale | on disk | ready, warm | ready, evicted | open CPU | peak RSS while opening | steady RSS | peak / steady | goal | met |")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
	for _, s := range r.Scales {
		warm, cold := medianRun(s.Warm), medianRun(s.Cold)
		all := append(append([]RestartRun(nil), s.Warm...), s.Cold...)
		peak := medianBy(all, func(x RestartRun) float64 { return float64(x.PeakRSS) })
		steady := medianBy(all, func(x RestartRun) float64 { return float64(x.SteadyRSS) })
		ratio := medianBy(all, func(x RestartRun) float64 { return x.PeakRatio() })
		coldText := "–"
		if len(s.Cold) > 0 {
			coldText = secText(cold.Ready)
		}
		p("| %s (%s nodes, %s relationships) | %s | %s | %s | %s | %s | %s | %.2f | %s | %s |",
			s.Scale.Name, countText(int64(s.Scale.Nodes)), countText(int64(s.Scale.Edges)), bytesText(s.DBBytes),
			secText(warm.Ready), coldText, secText(warm.CPU), bytesText(peak.PeakRSS), bytesText(steady.SteadyRSS),
			ratio.PeakRatio(), s.Goal.text(), s.met(warm, cold, ratio.PeakRatio()))
	}
	p("")
	p("| scale | run | page cache | load (1 min) | start → listening | start → first answer | open CPU | other processes' CPU | peak RSS | RSS at the answer | steady RSS | peak / steady |")
	p("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range r.Scales {
		for i := range max(len(s.Warm), len(s.Cold)) {
			for _, c := range []struct {
				runs []RestartRun
				kind string
			}{{s.Warm, "warm"}, {s.Cold, "evicted"}} {
				if i >= len(c.runs) {
					continue
				}
				x := c.runs[i]
				other := "–"
				if x.OtherCPU >= 0 {
					other = secText(x.OtherCPU)
				}
				p("| %s | %d | %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %.2f |", s.Scale.Name, i+1, c.kind, x.Load,
					secText(x.Listening), secText(x.Ready), secText(x.CPU), other,
					bytesText(x.PeakRSS), bytesText(x.ReadyRSS), bytesText(x.SteadyRSS), x.PeakRatio())
			}
		}
	}
	if notes = strings.TrimSpace(notes); notes != "" {
		p("")
		p("### Where the time and memory go")
		p("")
		p("%s", notes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// medianRun is the run of median ready time (the zero run when none).
func medianRun(runs []RestartRun) RestartRun {
	if len(runs) == 0 {
		return RestartRun{}
	}
	return medianBy(runs, func(x RestartRun) float64 { return float64(x.Ready) })
}

func (g RestartGoal) text() string {
	var parts []string
	if g.Ready > 0 {
		parts = append(parts, "ready ≤ "+secText(g.Ready))
	}
	if g.PeakRatio > 0 {
		parts = append(parts, fmt.Sprintf("peak ≤ %.1f× steady", g.PeakRatio))
	}
	if len(parts) == 0 {
		return "reported"
	}
	return strings.Join(parts, ", ")
}

// met judges the medians against the scale's goal: the ready time warm and,
// when measured, evicted, and the peak ratio.
func (s *RestartScale) met(warm, cold RestartRun, ratio float64) string {
	g := s.Goal
	if g.Ready <= 0 && g.PeakRatio <= 0 {
		return ""
	}
	var parts []string
	if g.Ready > 0 {
		parts = append(parts, "ready warm: "+verdict(float64(warm.Ready), float64(g.Ready), false))
		if len(s.Cold) > 0 {
			parts = append(parts, "evicted: "+verdict(float64(cold.Ready), float64(g.Ready), false))
		}
	}
	if g.PeakRatio > 0 && ratio > 0 {
		parts = append(parts, "memory: "+verdict(ratio, g.PeakRatio, false))
	}
	return strings.Join(parts, "; ")
}

// restartLoadRange is the lowest and highest load before any start.
func restartLoadRange(scales []*RestartScale) string {
	lo, hi, n := 0.0, 0.0, 0
	for _, s := range scales {
		for _, x := range append(append([]RestartRun(nil), s.Warm...), s.Cold...) {
			if n == 0 || x.Load < lo {
				lo = x.Load
			}
			if n == 0 || x.Load > hi {
				hi = x.Load
			}
			n++
		}
	}
	if n == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f to %.2f", lo, hi)
}
