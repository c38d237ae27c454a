package bench

import (
	"strings"
	"testing"
)

func TestWriteMarkdown(t *testing.T) {
	r := &Report{
		Config:      Config{Scale: Scales["S"], Runs: 3, Warmup: 1, Loader: CypherLoader{}, Commit: "abc123", Note: "A loaded machine."},
		Machine:     Machine{CPUs: 2, CPUModel: "Test CPU", MemBytes: 24 << 30, OS: "linux/amd64"},
		GoVersion:   "go1.x",
		KuzuVersion: "0.11.3",
		Nodes:       100, Edges: 1000,
		KuzuDisk: 3 << 20,
		Queries: []QueryReport{
			{Query: Suite[0], EmbeddedMS: []float64{1, 2, 9}, HTTPMS: []float64{4, 4, 4}, KuzuMS: []float64{8, 8, 8}, Answer: Rows{{int64(5)}}},
			{Query: Suite[6], EmbeddedMS: []float64{2}, HTTPMS: []float64{2}, KuzuMS: []float64{1}, Answer: Rows{{int64(4)}}},
		},
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| Commit | abc123 |",
		"| Machine | 2 CPUs (nproc), Test CPU, 24.00 GiB memory, linux/amd64 |",
		"A loaded machine.",
		// Q1: medians 2 / 4 / 8 → ratios 0.25 and 0.5.
		"| Q1 | 2.00 | 4.00 | 8.00 | 0.250 | 0.500 | [[5]] |",
		// Geometric means: sqrt(0.25*2) and sqrt(0.5*2).
		"| geometric mean | | | | 0.707 | 1.000 | |",
		"all agreed.",
		"| on-disk size | none: loaded in memory, nothing written | 3.0 MiB |",
		"  - Kùzu: `MATCH p = (a:Person {id: 42})-[:KNOWS* SHORTEST 1..10]->",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "opening the imported directory") {
		t.Error("an online load reports an opening time")
	}
	// A built directory's opening is its own row.
	r.QuiverLoad = LoadTimes{NodesMS: 10, EdgesMS: 90, OpenMS: 40}
	r.QuiverRSSOpen = 3 << 20
	b.Reset()
	WriteMarkdown(&b, r)
	for _, want := range []string{"| load total (ms) | 100 |", "| opening the imported directory (ms) | 40 | |", "| peak RSS while opening | 3.0 MiB | |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	r.Skip = []string{"Q6"}
	b.Reset()
	WriteMarkdown(&b, r)
	if !strings.Contains(b.String(), "Not run in this report: Q6") {
		t.Error("a skipped query is not reported")
	}
	r.PeerDefects = []string{"W30: a defect; DuckDB's answer agrees with Quiver's"}
	b.Reset()
	WriteMarkdown(&b, r)
	if !strings.Contains(b.String(), "all agreed but for a known defect of Kùzu's") || !strings.Contains(b.String(), "- W30: a defect;") {
		t.Errorf("a known defect of Kùzu's is not reported:\n%s", b.String())
	}
	// A query Kùzu gave no answer to: no Kùzu cell or ratio, left out of
	// the counts and the means, and said why.
	r.Queries = append(r.Queries, QueryReport{Query: Suite[1], EmbeddedMS: []float64{3}, HTTPMS: []float64{3}, Answer: Rows{{int64(6)}},
		KuzuFailed: "its process ended (signal: killed, most likely by the kernel for memory)"})
	b.Reset()
	WriteMarkdown(&b, r)
	for _, want := range []string{
		"| Q2 | 3.00 | 3.00 | no answer | – | – | [[6]] |",
		"| geometric mean | | | | 0.707 | 1.000 | |",
		"Quiver is faster than Kùzu on 1 of 2 queries embedded, 1 over HTTP.",
		"Kùzu gave no answer to the queries below",
		"- Q2: its process ended (signal: killed, most likely by the kernel for memory)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, b.String())
		}
	}
	r.Mismatches = []string{"Q1: answers differ"}
	b.Reset()
	WriteMarkdown(&b, r)
	if !strings.Contains(b.String(), "**these differed**") || !strings.Contains(b.String(), "- W30: a defect;") {
		t.Error("a mismatch, or the defect beside it, is not reported")
	}
}

// The data directory's size leaves out the write-ahead log, whose active
// segment an open database preallocates, and says it beside it.
func TestQuiverDiskText(t *testing.T) {
	if got := quiverDisk(&Report{QuiverDisk: 3 << 20}); got != bytesText(3<<20) {
		t.Errorf("without a log: %q", got)
	}
	got := quiverDisk(&Report{QuiverDisk: 3 << 20, QuiverWAL: 64 << 20})
	if want := bytesText(3<<20) + " (+ " + bytesText(64<<20) + " of write-ahead log, its active segment preallocated while open)"; got != want {
		t.Errorf("with a log: %q, want %q", got, want)
	}
}
