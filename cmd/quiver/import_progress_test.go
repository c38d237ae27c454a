package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/quiverdb/quiver/engine"
)

// progressInputs writes a node file of n rows (more than a parser's
// report interval) and a relationship file of m rows.
func progressInputs(t *testing.T, n, m int) importArgs {
	t.Helper()
	dir := t.TempDir()
	var p, k strings.Builder
	p.WriteString("id,name,age\n")
	for i := range n {
		fmt.Fprintf(&p, "%d,person%d,%d\n", i, i, i%90)
	}
	k.WriteString("from,to\n")
	for i := range m {
		fmt.Fprintf(&k, "%d,%d\n", i%n, (i*7)%n)
	}
	pf, kf := filepath.Join(dir, "p.csv"), filepath.Join(dir, "k.csv")
	for path, body := range map[string]string{pf: p.String(), kf: k.String()} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := parseImport([]string{"--data-dir", filepath.Join(dir, "db"), "--nodes", "Person=" + pf, "--relationships", "KNOWS=" + kf})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var importPhases = []string{engine.PhaseReadNodes, engine.PhaseReadRels, engine.PhaseStoreNodeProperties, engine.PhaseBuildAdjacency, engine.PhaseWriteFiles}

// TestImportPlainProgress: with stderr not a terminal, an import writes
// plain lines: one as each phase ends, in order, with the rows and bytes
// of its files, and lines of running phases between; the summary on
// stdout has the totals.
func TestImportPlainProgress(t *testing.T) {
	defer func(d time.Duration) { plainEvery = d }(plainEvery)
	plainEvery = time.Millisecond // lines of running phases too
	a := progressInputs(t, 30000, 45000)
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	if err := runImport(a, stdout, stderr); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	stderr.Close()
	out, _ := os.ReadFile(stdout.Name())
	errOut, _ := os.ReadFile(stderr.Name())
	if !strings.HasPrefix(string(out), "imported 30000 nodes and 45000 relationships into ") {
		t.Fatalf("summary %q", out)
	}
	if bytes.ContainsAny(errOut, "\r\x1b") {
		t.Fatalf("terminal codes in plain lines: %q", errOut)
	}
	size := func(path string) float64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return float64(fi.Size()) / 1e6
	}
	want := []string{
		fmt.Sprintf("import: reading nodes done: %.1f MB, 30,000 rows in ", size(a.Nodes[0].Path)),
		fmt.Sprintf("import: reading relationships done: %.1f MB, 45,000 rows in ", size(a.Rels[0].Path)),
		"import: storing node properties done: 90,000 values in ",
		"import: building adjacency done: 45,000 relationships in ",
		"import: writing files done: ",
	}
	running := regexp.MustCompile(`^import: [a-z ]+: .*(ETA|running) [0-9hms.µn]+$`)
	i := 0
	for _, line := range strings.Split(strings.TrimSpace(string(errOut)), "\n") {
		switch {
		case strings.Contains(line, " done: "):
			if i >= len(want) || !strings.HasPrefix(line, want[i]) {
				t.Fatalf("phase end %q, want %q next in:\n%s", line, want[min(i, len(want)-1)], errOut)
			}
			i++
		case !running.MatchString(line) || i < len(want) && !strings.HasPrefix(line, "import: "+importPhases[i]+":"):
			t.Fatalf("line %q of a phase not running in:\n%s", line, errOut)
		}
	}
	if i != len(want) {
		t.Fatalf("%d phase ends in:\n%s", i, errOut)
	}
}

// TestImportTerminalProgress: on a terminal (a pseudo-terminal here) an
// import draws a bar for each phase, each ending full with its totals.
func TestImportTerminalProgress(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	if !isTerminal(tty) {
		t.Fatal("the pseudo-terminal is not a terminal")
	}
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(&screen, master) // ends with an error once tty is closed and all is read
	}()
	a := progressInputs(t, 30000, 45000)
	stdout, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	err = runImport(a, stdout, tty)
	tty.Close()
	<-read
	if err != nil {
		t.Fatal(err)
	}
	out := screen.String()
	// Each bar's last frame is the text after the last carriage return
	// of its line.
	var finals []string
	for _, line := range strings.Split(out, "\n") {
		frames := strings.Split(strings.TrimRight(line, "\r"), "\r")
		if f := strings.TrimSpace(frames[len(frames)-1]); f != "" {
			finals = append(finals, f)
		}
	}
	if len(finals) != len(importPhases) {
		t.Fatalf("%d bars, want %d: %q", len(finals), len(importPhases), finals)
	}
	wants := []string{"30,000 rows 100% |", "45,000 rows 100% |", "100% |", "100% |", "100% |"}
	// The totals: the files' bytes (read as much as there is), the
	// values, relationships and files.
	totals := []string{`\(([0-9.]+)/([0-9.]+) kB, `, `\(([0-9.]+)/([0-9.]+) kB, `, `\((90000)/(90000), `, `\((45000)/(45000), `, `\(([0-9]+)/([0-9]+), [0-9]+ files/s\)`}
	for i, f := range finals {
		m := regexp.MustCompile(totals[i]).FindStringSubmatch(f)
		if !strings.HasPrefix(f, importPhases[i]) || !strings.Contains(f, wants[i]) || m == nil || m[1] != m[2] || !strings.Contains(f, "████") {
			t.Errorf("bar %d ends %q, want %s … %s … %s", i, f, importPhases[i], wants[i], totals[i])
		}
	}
}
