package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WritesHeading opens the section `quiverbench writes` keeps in
// bench/RESULTS.md; it runs to the next "## " heading or the end.
const WritesHeading = "## Writes and durability"

// Goals of the write measurements.
const (
	// GoalConcurrentRatio is the 32-client commit rate's share of the
	// rate of the same requests without a write (FloorStatement), in the
	// same round: what a commit may add to a request.
	GoalConcurrentRatio = 0.8
	GoalRecovery        = 5 * time.Second // after 1M logged commits
)

// WriteWritesSection renders the report as the "Writes and durability"
// section of bench/RESULTS.md. notes (markdown, may be empty) is the
// reading of the numbers, kept by hand in a file of its own.
func WriteWritesSection(w io.Writer, r *WritesReport, notes string) error {
	var m markdown
	r.writeHeader(&m)
	r.writeMeasures(&m)
	r.writeRounds(&m)
	r.writeRecovery(&m)
	r.writeCheckpoint(&m)
	if notes = strings.TrimSpace(notes); notes != "" {
		m.p("### What limits each number")
		m.p("")
		m.p("%s", notes)
		m.p("")
	}
	_, err := io.WriteString(w, m.String())
	return err
}

// writeHeader writes the heading, the table of the run and what a write
// is.
func (r *WritesReport) writeHeader(m *markdown) {
	m.p("%s", WritesHeading)
	m.p("")
	m.p("Written by `make bench-writes` (`quiverbench writes`), which replaces only this section; see bench/README.md.")
	m.p("")
	m.p("| | |")
	m.p("|---|---|")
	m.p("| Date | %s |", dateText(r.Date))
	m.p("| Machine | %s |", r.Machine)
	m.p("| Commit | %s |", r.Commit)
	m.p("| Go | %s |", r.GoVersion)
	if r.KuzuVersion != "" {
		m.p("| Kùzu | %s (npm `kuzu`, in the Node.js process, one connection, prepared statement with parameters) |", r.KuzuVersion)
	}
	m.p("| Filesystem | %s (data directories and Kùzu's databases under %s) |", r.FS, r.TempDir)
	m.p("| Load | %s |", loadsText(r.Loads))
	m.p("| Timing | %d rounds; per round: Quiver %v per client count after %v warm-up, Kùzu %d statements after %d per mode; engines alternated; medians over the rounds |",
		len(r.Rounds), r.Duration, r.Warmup, r.KuzuWrites, r.KuzuWarmup)
	m.p("")
	if r.Note != "" {
		m.p("%s", r.Note)
		m.p("")
	}
	m.p("Every write is `%s` with fresh parameters, auto-commit: `POST /api/v1/query` to the real", WriteStatement)
	m.p("`quiver serve` (default options, a new data directory each load) over keep-alive loopback HTTP; a")
	m.p("commit counts when its 200 arrived, and each load ends by checking that the database holds exactly")
	m.p("the acknowledged nodes. Kùzu runs the same statement in-process (its table `W` needs a primary key:")
	m.p("`id`, so it also maintains a hash index).")
	m.p("")
}

// writeMeasures writes each measure beside its goal.
func (r *WritesReport) writeMeasures(m *markdown) {
	m.p("### Measures")
	m.p("")
	m.p("| measure | goal | measured | goal met |")
	m.p("|---|---|---|---|")
	kuzuBest, kuzuMode := r.bestKuzu()
	for i, clients := range r.Clients {
		q, err := r.MedianQuiver(i)
		if err != nil {
			continue
		}
		name := fmt.Sprintf("auto-commit `CREATE` over HTTP, %d client%s (commits/s)", clients, plural(clients))
		switch {
		case clients == 1 && kuzuBest > 0:
			m.p("| %s | ≥ Kùzu in-process, same run: %s (%s) | %s | %s |", name, rateText(kuzuBest), kuzuMode, rateText(q.Rate()), verdict(q.Rate(), kuzuBest, true))
		case clients >= 32:
			ratio, floor, ok := r.MedianFloorRatio(i)
			if !ok {
				m.p("| %s | ≥ %.1f× the rate without a write, same run (not measured) | %s | |", name, GoalConcurrentRatio, rateText(q.Rate()))
				continue
			}
			m.p("| %s | ≥ %.1f× the rate without a write, same run (`%s`: %s) | %s; %.2f× the rate without a write (median of the rounds' ratios) | %s |", name, GoalConcurrentRatio, FloorStatement,
				rateText(floor), rateText(q.Rate()), ratio, verdict(ratio, GoalConcurrentRatio, true))
		default:
			m.p("| %s | reported | %s | |", name, rateText(q.Rate()))
		}
	}
	for i, clients := range r.Clients {
		if q, err := r.MedianQuiver(i); err == nil {
			m.p("| median / p99 latency, %d client%s | reported | %s / %s | |", clients, plural(clients), durText(q.Latency.P50), durText(q.Latency.P99))
		}
	}
	for i, clients := range r.Clients {
		if e, ok := r.MedianEmbedded(i); ok {
			m.p("| Quiver embedded (engine in-process, no HTTP), %d writer%s: commits/s, median / p99 | reported | %s, %s / %s | |", clients, plural(clients), rateText(e.Rate()), durText(e.Latency.P50), durText(e.Latency.P99))
		}
	}
	for _, mode := range KuzuModes {
		if k, ok := r.MedianKuzu(mode); ok {
			m.p("| Kùzu in-process (%s), 1 connection: commits/s, median / p99 | reported | %s, %s / %s | |", mode, rateText(k.Rate()), durText(k.Latency.P50), durText(k.Latency.P99))
		}
	}
	if rec := r.Recovery; rec != nil {
		warm, cold := readyTimes(rec.Warm), readyTimes(rec.Cold)
		m.p("| recovery after %s logged commits: `quiver serve` start → first answer | ≤ %s | %s (page cache warm), %s (log evicted from it) | %s |",
			countText(rec.Write.Commits), secText(GoalRecovery), secText(MedianOf(warm)), secText(MedianOf(cold)),
			verdict(max(MedianOf(warm), MedianOf(cold)).Seconds(), GoalRecovery.Seconds(), false))
	}
	if ck := r.Checkpoint; ck != nil {
		imp, cp := MedianOf(ck.Import), MedianOf(ck.Checkpoint)
		m.p("| checkpoint of the M graph (`CHECKPOINT` after one write) | ≤ import of M: %s | %s (ratio %.2f) | %s |",
			secText(imp), secText(cp), cp.Seconds()/imp.Seconds(), verdict(cp.Seconds(), imp.Seconds(), false))
	}
	m.p("")
}

// writeRounds writes the throughput and latency of every round.
func (r *WritesReport) writeRounds(m *markdown) {
	m.p("### Throughput and latency, round by round")
	m.p("")
	m.p("| round | load (1 min) | fdatasync/s (p50) | load | per second | p50 | p99 | max | CPU: server | clients | others | disk flushes per commit |")
	m.p("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for n, round := range r.Rounds {
		ld := fmt.Sprintf("%.2f", round.Load[0])
		fs := fmt.Sprintf("%s (%s)", rateText(round.Fsync.Rate()), durText(round.Fsync.Latency.P50))
		row := func(name string, q WriteResult, flushes string) {
			m.p("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", n+1, ld, fs, name,
				rateText(q.Rate()), durText(q.Latency.P50), durText(q.Latency.P99), durText(q.Latency.Max),
				cpuText(q.ServerCPU, q.Elapsed), cpuText(q.ClientCPU, q.Elapsed), cpuText(q.OtherCPU, q.Elapsed), flushes)
			ld, fs = "", ""
		}
		for i, q := range round.Quiver {
			row(fmt.Sprintf("Quiver, %d client%s", q.Clients, plural(q.Clients)), q, flushesText(q.DiskFlushes, q.Commits))
			if i < len(round.Floor) {
				f := round.Floor[i]
				row(fmt.Sprintf("Quiver, %d client%s, `%s` (no write)", f.Clients, plural(f.Clients), FloorStatement), f, "")
			}
			if i < len(round.Embedded) {
				e := round.Embedded[i]
				m.p("| %d | | | Quiver embedded, %d writer%s (no HTTP) | %s | %s | %s | %s | %s (engine and writers) | | | |", n+1, e.Clients, plural(e.Clients),
					rateText(e.Rate()), durText(e.Latency.P50), durText(e.Latency.P99), durText(e.Latency.Max), cpuText(e.ClientCPU, e.Elapsed))
			}
			if i == 0 {
				for _, k := range round.Kuzu {
					cpu := "–"
					if k.CPU >= 0 {
						cpu = fmt.Sprintf("%.0f%% (Node process, whole call)", k.CPU)
					}
					m.p("| %d | | | Kùzu, %s | %s | %s | %s | %s | %s | | | |", n+1, k.Mode, rateText(k.Rate()), durText(k.Latency.P50), durText(k.Latency.P99), durText(k.Latency.Max), cpu)
				}
			}
		}
	}
	m.p("")
	m.p("CPU is the share of one core over the timed part (200%% is the whole machine): the server")
	m.p("process's, the client goroutines' (this harness), and everything else's (busy time in")
	m.p("/proc/stat less those two: other processes, kernel threads such as the filesystem's journal,")
	m.p("and time the hypervisor gave to other machines (steal)).")
	m.p("Disk flushes are the device's completed flush requests (/proc/diskstats) per acknowledged")
	m.p("commit: disk-wide, so another process's syncs count too. The `%s` rows send the same", FloorStatement)
	m.p("requests with a statement that writes nothing, on the same server after the write load: HTTP,")
	m.p("decoding, parse, plan and run without a commit or a sync. \"Quiver embedded\" runs the same")
	m.p("statements through `engine.DB.Query` in the harness (a new data directory on the same disk,")
	m.p("the log and group commit as under `quiver serve`, GOGC 400): the engine without HTTP.")
	m.p("")
}

// writeRecovery writes the restarts after a crash, when measured.
func (r *WritesReport) writeRecovery(m *markdown) {
	rec := r.Recovery
	if rec == nil {
		return
	}
	m.p("### Recovery")
	m.p("")
	m.p("%s commits (`%s`, each its own logged commit) by %d clients over HTTP at %s to a",
		countText(rec.Write.Commits), WriteStatement, rec.Write.Clients, rateText(rec.Write.Rate()))
	m.p("server started with `%s`, so nothing but the log holds them;", strings.Join(noCheckpointFlags, " "))
	m.p("then SIGKILL. The log: %s in %d segment%s (%d bytes per commit). Every restart replayed %s",
		bytesText(rec.WALBytes), rec.WALSegments, plural(rec.WALSegments), rec.WALBytes/max(rec.Write.Commits, 1), countText(rec.Records))
	m.p("records and answered count(*) = %s; it was SIGKILLed again, so each restart replays the same log.", countText(rec.Recovered))
	m.p("")
	m.p("| restart | page cache | start → first answer | start → listening | replay (server's log) | other processes' CPU |")
	m.p("|---|---|---:|---:|---:|---:|")
	for i := range rec.Warm {
		m.p("| %d | warm | %s | %s | %s | %s |", i+1, secText(rec.Warm[i].Ready), secText(rec.Warm[i].Listening), secText(rec.Warm[i].Replay), cpuText(rec.Warm[i].OtherCPU, rec.Warm[i].Ready))
		if i < len(rec.Cold) {
			m.p("| %d | log evicted | %s | %s | %s | %s |", i+1, secText(rec.Cold[i].Ready), secText(rec.Cold[i].Listening), secText(rec.Cold[i].Replay), cpuText(rec.Cold[i].OtherCPU, rec.Cold[i].Ready))
		}
	}
	for i, d := range rec.Open {
		m.p("| engine.Open in-process %d | warm | %s | | | |", i+1, secText(d))
	}
	m.p("")
	m.p("\"Log evicted\": the data directory's files dropped from the page cache (posix_fadvise")
	m.p("DONTNEED) before the start, so the log is read from the disk as after a power cut; \"warm\"")
	m.p("is the state after a process crash. engine.Open ran on a copy of the directory.")
	m.p("")
}

// writeCheckpoint writes the checkpoint beside the import, when measured.
func (r *WritesReport) writeCheckpoint(m *markdown) {
	ck := r.Checkpoint
	if ck == nil {
		return
	}
	m.p("### Checkpoint of the M graph")
	m.p("")
	m.p("| | time | | other processes' CPU |")
	m.p("|---|---:|---|---:|")
	for i, d := range ck.Import {
		m.p("| `quiver import` of M, run %d | %s | %s written | %s |", i+1, secText(d), bytesText(ck.BaseBytes), cpuText(at(ck.ImportOther, i), d))
	}
	m.p("| `quiver serve` on it: start → first answer | %s | | |", secText(ck.Open))
	for i, d := range ck.Checkpoint {
		m.p("| `CHECKPOINT` after one write, run %d | %s | engine %s, %s written | %s |", i+1, secText(d), secText(ck.Engine[i]), bytesText(ck.CheckpointBytes), cpuText(at(ck.CheckpointOther, i), d))
	}
	m.p("")
	m.p("Both write the same base format, every file fsynced, then the manifest. The import is the whole")
	m.p("`quiver import` process (parse the CSVs, build both CSRs, write); the checkpoint writes the")
	m.p("version in memory (1,000,000 + a few nodes, 10,000,000 relationships) and trims the log.")
	m.p("")
}

// bestKuzu is Kùzu's faster mode (median over the rounds), the one the
// single-client goal is held to.
func (r *WritesReport) bestKuzu() (float64, string) {
	best, mode := 0.0, ""
	for _, m := range KuzuModes {
		if k, ok := r.MedianKuzu(m); ok && k.Rate() > best {
			best, mode = k.Rate(), m
		}
	}
	return best, mode
}

// verdict says whether got meets goal (at least it when atLeast, at most
// it otherwise), and by how much it beats or misses it.
func verdict(got, goal float64, atLeast bool) string {
	if goal <= 0 || got <= 0 {
		return ""
	}
	x := got / goal
	switch {
	case atLeast && x >= 1:
		return fmt.Sprintf("yes: %.2f× the goal", x)
	case atLeast:
		return fmt.Sprintf("**no**: %.2f× the goal, short by %.0f%%", x, 100*(1-x))
	case x <= 1:
		return fmt.Sprintf("yes: %.0f%% of the bound", 100*x)
	}
	return fmt.Sprintf("**no**: %.2f× the bound, over by %.0f%%", x, 100*(x-1))
}

// at is xs[i], or -1 (unknown) past its end.
func at(xs []time.Duration, i int) time.Duration {
	if i < len(xs) {
		return xs[i]
	}
	return -1
}

func readyTimes(ts []RestartTiming) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Ready
	}
	return out
}

// loadsText lists the load averages sampled: the first before the run,
// the later ones with the harness's own load in them.
func loadsText(ls []LoadSample) string {
	if len(ls) == 0 {
		return "unknown"
	}
	text := fmt.Sprintf("1-minute load average %.2f %s", ls[0].Avg[0], ls[0].Phase)
	var parts []string
	for _, l := range ls[1:] {
		parts = append(parts, fmt.Sprintf("%s %.2f", l.Phase, l.Avg[0]))
	}
	if len(parts) > 0 {
		text += "; at later phases, the harness's own load included: " + strings.Join(parts, ", ")
	}
	return text + ". The CPU other processes used during each measurement is in its table"
}

func flushesText(flushes, commits int64) string {
	if flushes < 0 || commits <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", float64(flushes)/float64(commits))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// rateText formats a rate with thousands separators: 21,937/s.
func rateText(r float64) string { return countText(int64(r+0.5)) + "/s" }

// countText formats n with thousands separators.
func countText(n int64) string {
	if n < 0 {
		return "-" + countText(-n)
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// durText formats a latency in µs below 1 ms, in ms above.
func durText(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func cpuText(cpu, wall time.Duration) string {
	if cpu < 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", cpuShare(cpu, wall))
}

func secText(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// SpliceSection returns doc with its section that starts with the line
// heading (up to the next "## " heading or the end) replaced by section,
// or with section appended when doc has none.
func SpliceSection(doc, heading, section string) string {
	section = strings.TrimRight(section, "\n") + "\n"
	start, end, ok := findSection(doc, heading)
	if !ok {
		if doc != "" {
			doc = strings.TrimRight(doc, "\n") + "\n\n"
		}
		return doc + section
	}
	rest := doc[end:]
	if rest != "" {
		section += "\n"
	}
	return doc[:start] + section + rest
}

// ExtractSection returns doc's section that starts with the line heading,
// "" when it has none.
func ExtractSection(doc, heading string) string {
	start, end, ok := findSection(doc, heading)
	if !ok {
		return ""
	}
	return doc[start:end]
}

// findSection locates the section of heading in doc: from its line to the
// next line starting with "## ", or the end.
func findSection(doc, heading string) (start, end int, ok bool) {
	switch {
	case strings.HasPrefix(doc, heading+"\n"):
		start = 0
	default:
		i := strings.Index(doc, "\n"+heading+"\n")
		if i < 0 {
			return 0, 0, false
		}
		start = i + 1
	}
	end = len(doc)
	if j := strings.Index(doc[start+len(heading):], "\n## "); j >= 0 {
		end = start + len(heading) + j + 1
	}
	return start, end, true
}
