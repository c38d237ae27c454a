package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The same-run reference. The anchors in AlgoCases were measured on
// another day of a machine whose cache varies 2-3x by the hour, and GAP's
// own binaries (gap.go) report times but no answer to compare with
// Quiver's. So `make bench-algo` also compiles bench/gapref/gapref.cc, GAP's four
// kernels written from their papers, with g++ -O3, and times each on the
// same graph just before each of Quiver's runs of the same algorithm: the
// ratio is measured in one run, on one state of the cache. The program
// keeps the graph loaded and answers one line per command (see its header
// comment).

// Reference is a running reference kernel with its graph loaded.
type Reference struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	Arcs int64 // the arcs it loaded (each undirected edge twice)
}

// RefRun is one timed run of a reference kernel: its own time (the graph
// already built) and two checksums of its result (see gapref.cc's
// protocol).
type RefRun struct {
	Time time.Duration
	Sums [2]float64
}

// StartReference starts bin on the graph's edge file with the given
// vertex count and PageRank iterations and waits until it has loaded the
// graph.
func StartReference(ctx context.Context, bin, edges string, vertices int64, iterations int) (*Reference, error) {
	cmd := exec.CommandContext(ctx, bin, edges, strconv.FormatInt(vertices, 10), strconv.Itoa(iterations))
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the reference kernel %s: %w", bin, err)
	}
	r := &Reference{cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	line, err := r.line()
	if err == nil {
		r.Arcs, err = parseReady(line, vertices)
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("reference kernel %s: %w", bin, err)
	}
	return r, nil
}

// Run runs one command ("pr", "pr hub", "bfs 42", "sssp 42", "cc") and
// returns its answer.
func (r *Reference) Run(cmd string) (RefRun, error) {
	if _, err := io.WriteString(r.in, cmd+"\n"); err != nil {
		return RefRun{}, fmt.Errorf("reference kernel: %w", err)
	}
	line, err := r.line()
	if err != nil {
		return RefRun{}, err
	}
	return parseRefRun(line)
}

// Close ends the program (end of input) and waits for it.
func (r *Reference) Close() error {
	r.in.Close()
	return r.cmd.Wait()
}

func (r *Reference) line() (string, error) {
	if r.out.Scan() {
		return r.out.Text(), nil
	}
	if err := r.out.Err(); err != nil {
		return "", fmt.Errorf("reading the reference kernel: %w", err)
	}
	return "", fmt.Errorf("the reference kernel ended without an answer")
}

// parseReady reads "ready <vertices> <arcs>", checking the vertex count.
func parseReady(line string, vertices int64) (int64, error) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ready" {
		return 0, fmt.Errorf("expected \"ready <vertices> <arcs>\", got %q", line)
	}
	n, err1 := strconv.ParseInt(f[1], 10, 64)
	arcs, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || arcs < 0 {
		return 0, fmt.Errorf("expected \"ready <vertices> <arcs>\", got %q", line)
	}
	if n != vertices {
		return 0, fmt.Errorf("loaded %d vertices, expected %d", n, vertices)
	}
	return arcs, nil
}

// parseRefRun reads "time <seconds> <checksum> <checksum>".
func parseRefRun(line string) (RefRun, error) {
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "time" {
		return RefRun{}, fmt.Errorf("reference kernel: expected \"time <seconds> <checksum> <checksum>\", got %q", line)
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil || x < 0 {
			return RefRun{}, fmt.Errorf("reference kernel: bad number %q in %q", f[i+1], line)
		}
		v[i] = x
	}
	return RefRun{Time: time.Duration(v[0] * float64(time.Second)), Sums: [2]float64{v[1], v[2]}}, nil
}

// agree tells whether two checksums agree within rel, relative.
func agree(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*max(a, b, -a, -b)
}
