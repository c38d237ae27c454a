package bench

import (
	"strings"
	"testing"
	"time"
)

// A restart report of recorded numbers renders medians, ratios and the
// verdicts against the goals of its scales.
func TestWriteRestartSection(t *testing.T) {
	run := func(load float64, ready, cpu time.Duration, peak, steady int64) RestartRun {
		return RestartRun{Load: load, Ready: ready, Listening: ready - msec(10), CPU: cpu, OtherCPU: -1,
			PeakRSS: peak << 20, ReadyRSS: peak << 20, SteadyRSS: steady << 20}
	}
	m := &RestartScale{Scale: Scales["M"], Seed: 1, DBBytes: 100 << 20, Goal: RestartGoals["M"],
		Warm: []RestartRun{run(0.1, msec(900), msec(1100), 350, 340), run(0.3, msec(1300), msec(1200), 360, 340), run(0.2, msec(800), msec(1000), 350, 350)},
		Cold: []RestartRun{run(0.4, msec(1500), msec(1100), 350, 340)}}
	l := &RestartScale{Scale: Scales["L"], Seed: 1, DBBytes: 1 << 30, Goal: RestartGoals["L"],
		Warm: []RestartRun{run(1.5, msec(12000), msec(15000), 6000, 4000)}}
	r := &RestartReport{Date: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), Commit: "abc1234", Settle: 5 * time.Second,
		FS: Filesystem{MountPoint: "/", Type: "ext4", Source: "/dev/vda", Options: "rw"}, Scales: []*RestartScale{m, l}}
	var b strings.Builder
	if err := WriteRestartSection(&b, r, "By hand.\n"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		RestartHeading + "\n",
		"| Load | 1-minute load average before each start: 0.10 to 1.50 (per run below) |",
		// Median warm run (0.90 s and its CPU), the evicted one, median peak,
		// steady and ratio over all four runs.
		"| M (1,000,000 nodes, 10,000,000 relationships) | 100.0 MiB | 0.90 s | 1.50 s | 1.10 s | 350.0 MiB | 340.0 MiB | 1.03 | ready ≤ 1.00 s, peak ≤ 1.2× steady | ready warm: yes: 90% of the bound; evicted: **no**: 1.50× the bound, over by 50%; memory: yes: 86% of the bound |",
		"| L (10,000,000 nodes, 100,000,000 relationships) | 1.00 GiB | 12.00 s | – | 15.00 s | 5.86 GiB | 3.91 GiB | 1.50 | ready ≤ 10.00 s, peak ≤ 1.2× steady | ready warm: **no**: 1.20× the bound, over by 20%; memory: **no**: 1.25× the bound, over by 25% |",
		"| M | 1 | warm | 0.10 | 0.89 s | 0.90 s | 1.10 s | – | 350.0 MiB | 350.0 MiB | 340.0 MiB | 1.03 |",
		"| M | 1 | evicted | 0.40 |",
		"| M | 3 | warm | 0.20 |",
		"\n\n### Where the time and memory go\n\nBy hand.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the section lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| M | 2 | evicted") {
		t.Errorf("a run that did not happen is listed:\n%s", out)
	}
	// The section splices into a report and is found again.
	doc := SpliceSection("# Results\n\n## Writes and durability\n\nw\n", RestartHeading, out)
	if ExtractSection(doc, RestartHeading) != out || !strings.Contains(doc, "## Writes and durability\n\nw\n\n## Restart\n") {
		t.Errorf("splice:\n%s", doc)
	}
}

func TestCurrentRSS(t *testing.T) {
	rss, err := CurrentRSS(0)
	if err != nil {
		t.Skip("no /proc:", err)
	}
	peak, err := PeakRSS(0)
	if err != nil || rss <= 0 || peak < rss {
		t.Fatalf("VmRSS %d, VmHWM %d (%v)", rss, peak, err)
	}
	if (RestartRun{PeakRSS: 12, SteadyRSS: 10}).PeakRatio() != 1.2 || (RestartRun{PeakRSS: 1}).PeakRatio() != 0 {
		t.Error("PeakRatio")
	}
}
