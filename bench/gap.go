package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// GAP itself as the same-run anchor. When the GAP Benchmark Suite's
// reference source is beside the repository (../shared/gapbs, or
// GAPBS_DIR), `make bench-algo` compiles its bfs, pr, cc and sssp with
// the flags of GAP's Makefile into bin/gapbs/, and RunAlgo runs each on
// the same Kronecker graph just before Quiver's runs of the matching
// algorithm: GAP reads the graph from an edge list written from the
// generated edges.csv (GAP's own -g generator draws another graph), builds
// it symmetrized (-s: the graph is undirected), and times -n trials of its
// kernel. Its "Trial Time" lines are the kernel alone, its graph built;
// the report takes their median, as it does Quiver's runs, and shows GAP's
// "Average Time" beside it.

// GAP's edge list files, written beside the CSV: "u v" per line (.el)
// and "u v w" with GAP's integer weight (.wel, for SSSP).
const (
	GAPEdgesFile         = "edges.el"
	GAPWeightedEdgesFile = "edges.wel"
)

// gapKernel is how one AlgoCase runs in GAP: the binary, its own
// arguments, whether it reads the weighted list, and whether it starts
// from the run's source vertex (-r).
type gapKernel struct {
	bin      string
	args     []string
	weighted bool
	source   bool
}

// gapKernels maps AlgoCase names to GAP's kernels, with the settings of
// the scale-22 anchors (AlgoCases): PageRank 10 iterations with no
// tolerance stop, SSSP delta 1.
var gapKernels = map[string]gapKernel{
	"bfs":      {bin: "bfs", source: true},
	"pagerank": {bin: "pr", args: []string{"-i", "10", "-t", "0"}},
	"wcc":      {bin: "cc"},
	"sssp":     {bin: "sssp", args: []string{"-d", "1"}, weighted: true, source: true},
}

// GAPRun is one run of a GAP kernel binary: its reading and building of
// the graph, the graph it built, and each trial's kernel time.
type GAPRun struct {
	// Command is the command line, without the directory of the binary.
	Command      string
	Read, Build  time.Duration
	Nodes, Edges int64 // as GAP reports them (undirected edges)
	Trials       []time.Duration
	Average      time.Duration // GAP's "Average Time" over the trials
}

// Median is the median of the trial times.
func (g *GAPRun) Median() time.Duration { return MedianOf(g.Trials) }

// WriteGAPEdgeLists writes GAP's edge lists of data's edges.csv into
// data, unless they are there already and not older than the CSV, and
// returns their paths.
func WriteGAPEdgeLists(data string) (el, wel string, err error) {
	csvPath := filepath.Join(data, KronEdgesFile)
	el, wel = filepath.Join(data, GAPEdgesFile), filepath.Join(data, GAPWeightedEdgesFile)
	src, err := os.Stat(csvPath)
	if err != nil {
		return "", "", err
	}
	// Not older than the CSV: the lists are written after it, and a
	// coarse clock can give both the same modification time.
	fresh := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && !st.ModTime().Before(src.ModTime())
	}
	if fresh(el) && fresh(wel) {
		return el, wel, nil
	}
	in, err := os.Open(csvPath)
	if err != nil {
		return "", "", err
	}
	defer in.Close()
	elf, err := os.Create(el + ".tmp")
	if err != nil {
		return "", "", err
	}
	defer elf.Close()
	welf, err := os.Create(wel + ".tmp")
	if err != nil {
		return "", "", err
	}
	defer welf.Close()
	ew, ww := bufio.NewWriterSize(elf, 1<<20), bufio.NewWriterSize(welf, 1<<20)
	if _, err := ConvertGAPEdges(bufio.NewReaderSize(in, 1<<20), ew, ww); err != nil {
		return "", "", fmt.Errorf("%s: %w", csvPath, err)
	}
	for _, w := range []*bufio.Writer{ew, ww} {
		if err := w.Flush(); err != nil {
			return "", "", err
		}
	}
	for _, p := range []string{el, wel} {
		if err := os.Rename(p+".tmp", p); err != nil {
			return "", "", err
		}
	}
	return el, wel, nil
}

// ConvertGAPEdges reads the Kronecker edge CSV (a header, then
// from,to,weight with integer ids and an integral weight) and writes
// GAP's edge list to el and its weighted edge list to wel. GAP reads
// 32-bit vertex ids and integer weights: a value out of that range is an
// error. It returns the edges written.
func ConvertGAPEdges(r io.Reader, el, wel io.Writer) (int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	var n int64
	var line []byte
	for row := 0; sc.Scan(); row++ {
		if row == 0 {
			if !bytes.HasPrefix(sc.Bytes(), []byte("from")) {
				return n, fmt.Errorf("expected the header from:INT64,to:INT64,weight:DOUBLE, got %q", sc.Text())
			}
			continue
		}
		f := bytes.Split(sc.Bytes(), []byte{','})
		if len(f) != 3 {
			return n, fmt.Errorf("line %d: expected from,to,weight, got %q", row+1, sc.Text())
		}
		var v [3]int64
		for i, s := range f {
			x, err := strconv.ParseInt(string(s), 10, 32)
			if err != nil || x < 0 {
				return n, fmt.Errorf("line %d: %q is no vertex id or weight GAP reads (a non-negative 32-bit integer)", row+1, s)
			}
			v[i] = x
		}
		line = strconv.AppendInt(line[:0], v[0], 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, v[1], 10)
		line = append(line, '\n')
		if _, err := el.Write(line); err != nil {
			return n, err
		}
		line = append(line[:len(line)-1], ' ')
		line = strconv.AppendInt(line, v[2], 10)
		line = append(line, '\n')
		if _, err := wel.Write(line); err != nil {
			return n, err
		}
		n++
	}
	return n, sc.Err()
}

// RunGAP runs GAP's kernel for algorithm name from the compiled binaries
// in dir on the edge list (weighted for SSSP) with trials trials, from
// source where the kernel takes one, on threads OpenMP threads (0:
// GOMAXPROCS). ok is false when GAP has no kernel for name.
func RunGAP(ctx context.Context, dir, name, el, wel string, source int64, trials, threads int) (run *GAPRun, ok bool, err error) {
	k, ok := gapKernels[name]
	if !ok {
		return nil, false, nil
	}
	file := el
	if k.weighted {
		file = wel
	}
	args := append([]string{"-f", file, "-s", "-n", strconv.Itoa(max(trials, 1))}, k.args...)
	if k.source {
		args = append(args, "-r", strconv.FormatInt(source, 10))
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, k.bin), args...)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+strconv.Itoa(threads))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, true, fmt.Errorf("GAP %s: %w: %s", k.bin, err, strings.TrimSpace(stderr.String()))
	}
	run, err = ParseGAPOutput(string(out))
	if err != nil {
		return nil, true, fmt.Errorf("GAP %s: %w", k.bin, err)
	}
	run.Command = fmt.Sprintf("OMP_NUM_THREADS=%d %s %s", threads, k.bin, strings.Join(args, " "))
	return run, true, nil
}

// ParseGAPOutput reads what a GAP kernel binary prints (benchmark.h,
// util.h): "Read Time:", "Build Time:", "Graph has N nodes and M
// undirected edges …", a "Trial Time:" per trial and "Average Time:".
// Other lines (a kernel's own log, verification) are skipped.
func ParseGAPOutput(out string) (*GAPRun, error) {
	r := &GAPRun{}
	seconds := func(s string) (time.Duration, error) {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || x < 0 {
			return 0, fmt.Errorf("bad time %q", s)
		}
		return time.Duration(math.Round(x * float64(time.Second))), nil
	}
	average := false
	for _, line := range strings.Split(out, "\n") {
		label, value, found := strings.Cut(line, ":")
		var err error
		switch {
		case found && label == "Read Time":
			r.Read, err = seconds(value)
		case found && label == "Build Time":
			r.Build, err = seconds(value)
		case found && label == "Trial Time":
			var d time.Duration
			d, err = seconds(value)
			r.Trials = append(r.Trials, d)
		case found && label == "Average Time":
			r.Average, err = seconds(value)
			average = true
		case strings.HasPrefix(line, "Graph has "):
			if _, err := fmt.Sscanf(line, "Graph has %d nodes and %d", &r.Nodes, &r.Edges); err != nil {
				return nil, fmt.Errorf("cannot read %q: %w", line, err)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
	}
	if len(r.Trials) == 0 || !average {
		return nil, fmt.Errorf("no trial and average times in the output: %q", out)
	}
	return r, nil
}
