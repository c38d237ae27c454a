package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Kronecker CSV becomes GAP's edge lists line by line; what GAP
// cannot read (a fractional or negative weight, an id past 32 bits, a
// missing field or header) is an error, not a silently different graph.
func TestConvertGAPEdges(t *testing.T) {
	in := "from:INT64,to:INT64,weight:DOUBLE\n676,1007,85\n1011,425,58\n0,2147483647,1\n"
	var el, wel strings.Builder
	n, err := ConvertGAPEdges(strings.NewReader(in), &el, &wel)
	if err != nil || n != 3 {
		t.Fatalf("converted %d edges: %v", n, err)
	}
	if want := "676 1007\n1011 425\n0 2147483647\n"; el.String() != want {
		t.Errorf("edge list %q, want %q", el.String(), want)
	}
	if want := "676 1007 85\n1011 425 58\n0 2147483647 1\n"; wel.String() != want {
		t.Errorf("weighted edge list %q, want %q", wel.String(), want)
	}
	for _, bad := range []string{
		"676,1007,85\n", // no header
		"from:INT64,to:INT64,weight:DOUBLE\n1,2,1.5\n",
		"from:INT64,to:INT64,weight:DOUBLE\n1,2,-3\n",
		"from:INT64,to:INT64,weight:DOUBLE\n1,2147483648,3\n",
		"from:INT64,to:INT64,weight:DOUBLE\n1,2\n",
	} {
		var el, wel strings.Builder
		if _, err := ConvertGAPEdges(strings.NewReader(bad), &el, &wel); err == nil {
			t.Errorf("ConvertGAPEdges(%q) took it", bad)
		}
	}
}

// WriteGAPEdgeLists writes both lists beside a generated graph's CSV,
// one line per edge, and leaves them alone while they are not older than it.
func TestWriteGAPEdgeLists(t *testing.T) {
	dir := t.TempDir()
	st, err := WriteKronecker(dir, 6, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	el, wel, err := WriteGAPEdgeLists(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{el, wel} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if lines := int64(strings.Count(string(b), "\n")); lines != st.Edges {
			t.Errorf("%s: %d lines for %d edges", filepath.Base(p), lines, st.Edges)
		}
	}
	info, _ := os.Stat(el)
	if _, _, err := WriteGAPEdgeLists(dir); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(el); !again.ModTime().Equal(info.ModTime()) {
		t.Error("a fresh edge list was written again")
	}
}

// GAP's output, as captured from its sssp and bfs (the second with -a
// and -v, whose lines are skipped) on the scale-10 Kronecker graph of
// seed 1 (OMP_NUM_THREADS=2 sssp -f edges.wel -s -n 3 -d 1 -r 5; bfs -f
// edges.el -s -n 2 -r 5 -a -v).
const (
	gapSSSPOutput = `Read Time:           0.01395
Build Time:          0.02463
Graph has 1024 nodes and 10463 undirected edges for degree: 10
Trial Time:          0.00049
Trial Time:          0.00047
Trial Time:          0.00062
Average Time:        0.00053
`
	gapBFSOutput = `Read Time:           0.07701
Build Time:          0.15640
Graph has 1024 nodes and 10463 undirected edges for degree: 10
Trial Time:          0.00013
Verification:           PASS
Verification Time:   0.00004
Trial Time:          0.00002
BFS Tree has 894 nodes and 20926 edges
Verification:           PASS
Verification Time:   0.00004
Average Time:        0.00007
`
)

func TestParseGAPOutput(t *testing.T) {
	us := func(x int) time.Duration { return time.Duration(x) * 10 * time.Microsecond }
	r, err := ParseGAPOutput(gapSSSPOutput)
	if err != nil {
		t.Fatal(err)
	}
	if r.Read != us(1395) || r.Build != us(2463) || r.Nodes != 1024 || r.Edges != 10463 ||
		len(r.Trials) != 3 || r.Trials[0] != us(49) || r.Trials[1] != us(47) || r.Trials[2] != us(62) ||
		r.Average != us(53) || r.Median() != us(49) {
		t.Errorf("sssp: %+v, median %v", r, r.Median())
	}
	r, err = ParseGAPOutput(gapBFSOutput)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trials) != 2 || r.Trials[0] != us(13) || r.Trials[1] != us(2) || r.Average != us(7) || r.Build != us(15640) {
		t.Errorf("bfs: %+v", r)
	}
	for _, bad := range []string{
		"Couldn't open file edges.el\n",
		"Read Time:           0.07701\nGraph has 1024 nodes and 10463 undirected edges for degree: 10\n",
		strings.Replace(gapSSSPOutput, "0.00047", "x", 1),
		strings.Replace(gapSSSPOutput, "Average Time:        0.00053\n", "", 1),
	} {
		if _, err := ParseGAPOutput(bad); err == nil {
			t.Errorf("ParseGAPOutput(%q) took it", bad)
		}
	}
}

// The report shows GAP's same-run median beside Quiver's, the ratio, and
// GAP's run (command, graph, read, build, average).
func TestAlgoReportGAP(t *testing.T) {
	g, err := ParseGAPOutput(gapSSSPOutput)
	if err != nil {
		t.Fatal(err)
	}
	g.Command = "OMP_NUM_THREADS=2 sssp -f edges.wel -s -n 3 -d 1 -r 5"
	var sssp AlgoCase
	for _, c := range AlgoCases {
		if c.Name == "sssp" {
			sssp = c
		}
	}
	r := &AlgoReport{Kron: KronStats{Scale: 10}, Timings: []AlgoTiming{{Case: sssp,
		Procedure: []time.Duration{time.Millisecond, 980 * time.Microsecond, 2 * time.Millisecond}, GAP: g}}}
	var b strings.Builder
	if err := WriteAlgoMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// 1 ms / 0.49 ms
		"| sssp | 0.001 s (0.001 s) | 0.000 s | 0.000 s | 0.000 s | – | 0 | delta-stepping SSSP | 0.000 s (0.000 s) | 2.04 |",
		"| sssp | `OMP_NUM_THREADS=2 sssp -f edges.wel -s -n 3 -d 1 -r 5` | 1,024 nodes, 10,463 undirected edges | 0.014 s | 0.025 s | 3 | 0.000 s | 0.001 s |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
