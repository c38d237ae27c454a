package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestDocsExamples runs the examples of README.md and docs/*.md against
// the binary built from this tree: every fenced block is run, written out
// or marked not-run (docs_blocks_test.go lists the kinds), and a console
// block's commands must print what the document shows under them
// (docs_compare_test.go says what is normalised). Each document gets a
// working directory and a server of its own, started at its first
// example that needs one (127.0.0.1 port 0, a data directory in the
// working directory, COPY reading from it, a metrics listener), and its
// blocks run in document order, so an example may use what an earlier
// one created. A `quiver serve` command starts a server in the
// background, which the document's later examples then talk to.
func TestDocsExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "nc", "jq", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (make doctools installs it): the docs' examples use it", tool)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	type document struct {
		name   string
		blocks []docBlock
	}
	var run []document
	counts := map[docBlockKind]int{}
	st, err := os.Stat(filepath.Join(root, "..", "shared"))
	haveShared := err == nil && st.IsDir()
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, errs := parseDocBlocks(rel, string(data))
		for _, err := range errs {
			t.Errorf("%v", err)
		}
		needed := false
		for i := range blocks {
			k, reason := blocks[i].kind()
			counts[k]++
			switch k {
			case kindInvalid:
				t.Errorf("%s:%d: %s", rel, blocks[i].line, reason)
			case kindLayout:
				// Checked in every document, whether or not it has
				// examples to run.
				checkLayout(t, root, blocks[i])
			case kindNotRun:
			default:
				needed = true
			}
		}
		if needed && !haveShared && readsShared(blocks) {
			// A bare clone has no ../shared: the document's examples
			// build on a graph imported from it (CI has it beside).
			t.Logf("%s: not run, its examples import ../shared, which is not beside the repository", rel)
			continue
		}
		if needed {
			run = append(run, document{rel, blocks})
		}
	}
	t.Logf("blocks: %d console, %d gql, %d files, %d configuration files, %d logs, %d layouts; %d marked not-run",
		counts[kindConsole], counts[kindGQL], counts[kindFile], counts[kindConfig], counts[kindLog], counts[kindLayout], counts[kindNotRun])

	// Each document works in base/<name>; ../shared beside the working
	// directories is the repository's (the Graphalytics graphs).
	base := t.TempDir()
	if shared, err := filepath.Abs(filepath.Join(root, "..", "shared")); err == nil {
		if err := os.Symlink(shared, filepath.Join(base, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	// curl fails on an HTTP error (printing the body all the same), so a
	// command whose output the document does not show still fails the
	// test when the server refused it.
	curlHome := filepath.Join(base, "curl")
	if err := os.Mkdir(curlHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(curlHome, ".curlrc"), []byte("fail-with-body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := serverproc.Build(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "quiver ")
	for _, doc := range run {
		t.Run(filepath.Base(doc.name), func(t *testing.T) {
			work := filepath.Join(base, strings.TrimSuffix(filepath.Base(doc.name), ".md"))
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			d := &docRun{t: t, bin: bin, version: version, work: work, curlHome: curlHome}
			defer d.stop()
			for _, b := range doc.blocks {
				d.block(b)
			}
		})
	}
}

// docCommandTimeout bounds one command of an example: one that does not
// end (a client waiting for a server that does not close) fails.
const docCommandTimeout = 30 * time.Second

// docRun runs one document's blocks.
type docRun struct {
	t        *testing.T
	bin      string
	version  string
	work     string       // the document's working directory
	servers  []*docServer // every server started, the current one last
	serveSeq int
	at       string // the block running, file:line
	curlHome string // CURL_HOME: its .curlrc says fail-with-body
}

// docServer is a server a document's examples talk to.
type docServer struct {
	cmd           *exec.Cmd
	addr, metrics string
	mu            sync.Mutex
	log           []string // every line it logged
	exited        chan struct{}
}

func (s *docServer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (d *docRun) stop() {
	for _, s := range d.servers {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}

// server returns the current server, starting the document's own at the
// first example that needs one.
func (d *docRun) server() *docServer {
	if len(d.servers) == 0 {
		d.start(d.bin, "serve", "--data-dir", filepath.Join(d.work, "quiver-data"), "--import-dir", d.work, "--export-dir", d.work)
	}
	return d.servers[len(d.servers)-1]
}

// start starts a server with args (a command line; "--listen
// 127.0.0.1:0" is added) and waits until it listens; it becomes current.
func (d *docRun) start(args ...string) *docServer {
	d.t.Helper()
	args = append(args, "--listen", "127.0.0.1:0")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = d.work
	cmd.Env = append(d.env(), "QUIVER_METRICS_PORT=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		d.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	pw.Close()
	s := &docServer{cmd: cmd, exited: make(chan struct{})}
	d.servers = append(d.servers, s)
	up := make(chan struct{})
	go func() {
		listening := regexp.MustCompile(`msg=listening addr=(\S+)`)
		metrics := regexp.MustCompile(`msg="metrics listening" addr=(\S+)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log = append(s.log, line)
			if m := metrics.FindStringSubmatch(line); m != nil {
				s.metrics = m[1]
			}
			if m := listening.FindStringSubmatch(line); m != nil && s.addr == "" {
				s.addr = m[1]
				close(up)
			}
			s.mu.Unlock()
		}
		pr.Close()
		cmd.Wait()
		close(s.exited)
	}()
	select {
	case <-up:
	case <-s.exited:
		d.t.Fatalf("%s: %s exited before listening:\n%s", d.at, strings.Join(args, " "), strings.Join(s.lines(), "\n"))
	case <-time.After(docCommandTimeout):
		d.t.Fatalf("%s: %s did not log its address:\n%s", d.at, strings.Join(args, " "), strings.Join(s.lines(), "\n"))
	}
	return s
}

// env is the environment of the examples' commands: quiver on PATH, and
// curl's configuration.
func (d *docRun) env() []string {
	return append(os.Environ(), "PATH="+filepath.Dir(d.bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CURL_HOME="+d.curlHome)
}

func (d *docRun) block(b docBlock) {
	d.t.Helper()
	at := fmt.Sprintf("%s:%d", b.file, b.line)
	d.at = at
	switch k, _ := b.kind(); k {
	case kindFile:
		path := filepath.Join(d.work, b.fileName())
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			d.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.text+"\n"), 0o644); err != nil {
			d.t.Fatal(err)
		}
	case kindConsole:
		steps, err := parseConsole(b.text)
		if err != nil {
			d.t.Errorf("%s: %v", at, err)
			return
		}
		for _, st := range steps {
			d.command(fmt.Sprintf("%s:%d", b.file, b.line+st.line), st)
		}
	case kindGQL:
		d.gql(at, b.text)
	case kindConfig:
		d.config(b.text)
	case kindLog:
		d.logLines(at, b.text)
	}
}

// Addresses in the examples, rewritten to the running servers'.
var (
	mainAddr    = regexp.MustCompile(`\b(localhost|127\.0\.0\.1)([: ])3141\b`)
	metricsAddr = regexp.MustCompile(`\b(localhost|127\.0\.0\.1):9090\b`)
	metricsEnv  = regexp.MustCompile(`\bQUIVER_METRICS_PORT=9090\b`)
	serveCmd    = regexp.MustCompile(`^(?:[A-Z_]+=\S+ +)*quiver +serve\b`)
)

// command runs one console step with bash in the working directory; the
// shell's variables carry over to the document's later commands.
func (d *docRun) command(at string, st consoleStep) {
	d.t.Helper()
	text := st.cmd
	if serveCmd.MatchString(text) {
		d.serve(at, st)
		return
	}
	if mainAddr.MatchString(text) || metricsAddr.MatchString(text) {
		s := d.server()
		host, port, _ := strings.Cut(s.addr, ":")
		text = mainAddr.ReplaceAllString(text, host+"${2}"+port)
		if s.metrics != "" {
			text = metricsAddr.ReplaceAllString(text, s.metrics)
		}
	}
	state := filepath.Join(d.work, ".docs-shell-state")
	script := fmt.Sprintf("set -a\n[ -f %[1]q ] && . %[1]q\n%[2]s\n__rc=$?\nexport -p > %[1]q\nexit $__rc\n", state, text)
	ctx, cancel := context.WithTimeout(context.Background(), docCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = d.work
	cmd.Env = d.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		d.t.Errorf("%s: `%s` did not end within %v (it must end by itself); it printed:\n%s", at, st.cmd, docCommandTimeout, out.String())
		return
	}
	if time.Since(start) > 5*time.Second {
		d.t.Logf("%s: `%s` took %v", at, st.cmd, time.Since(start).Round(time.Millisecond))
	}
	got := d.printed(out.String())
	if strings.TrimSpace(st.want) == "" {
		if err != nil {
			d.t.Errorf("%s: `%s` failed (%v); it printed:\n%s", at, st.cmd, err, got)
		}
		return
	}
	if !docOutputMatches(normaliseDocOutput(st.want), normaliseDocOutput(got)) {
		d.t.Errorf("%s: `%s` printed\n%s\nwhere the document shows\n%s", at, st.cmd, got, st.want)
	}
}

// printed writes what the servers' ports and the binary's version vary
// in as the documents write them.
func (d *docRun) printed(s string) string {
	for _, srv := range d.servers {
		if _, port, ok := strings.Cut(srv.addr, ":"); ok {
			s = regexp.MustCompile(`\b`+port+`\b`).ReplaceAllString(s, "3141")
		}
		if _, port, ok := strings.Cut(srv.metrics, ":"); ok {
			s = regexp.MustCompile(`\b`+port+`\b`).ReplaceAllString(s, "9090")
		}
	}
	return strings.ReplaceAll(s, d.version, "<version>")
}

// serve starts the server a `quiver serve` command describes, in the
// background, and makes it current. What the document shows under the
// command are lines of its log.
func (d *docRun) serve(at string, st consoleStep) {
	d.t.Helper()
	text := metricsEnv.ReplaceAllString(st.cmd, "QUIVER_METRICS_PORT=0")
	d.serveSeq++
	s := d.start("bash", "-c", "set -a\n[ -f .docs-shell-state ] && . ./.docs-shell-state\n"+text+` "$@"`, "serve")
	if strings.TrimSpace(st.want) != "" {
		d.waitLog(at, s, st.want)
	}
}

// gql runs each paragraph of a gql block as a statement over HTTP; each
// must succeed.
func (d *docRun) gql(at string, text string) {
	d.t.Helper()
	s := d.server()
	for _, stmt := range strings.Split(text, "\n\n") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		body, _ := json.Marshal(map[string]any{"query": stmt})
		resp, err := http.Post("http://"+s.addr+"/api/v1/query", "application/json", bytes.NewReader(body))
		if err != nil {
			d.t.Errorf("%s: %s: %v", at, stmt, err)
			continue
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var res struct {
			Error json.RawMessage `json:"error"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(answer, &res) != nil || res.Error != nil {
			d.t.Errorf("%s: the statement\n%s\nfailed: %d %s", at, stmt, resp.StatusCode, answer)
		}
	}
}

// config starts a server with the configuration file the block holds
// (TestConfigDocExample checks that configuration.md's names every
// option). The paths it names are a server's, so the test's replace them
// (flags win over the file).
func (d *docRun) config(text string) {
	d.t.Helper()
	d.serveSeq++
	name := filepath.Join(d.work, fmt.Sprintf("config-%d.yaml", d.serveSeq))
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		d.t.Fatal(err)
	}
	args := []string{d.bin, "serve", "--config", name, "--data-dir", filepath.Join(d.work, fmt.Sprintf("config-data-%d", d.serveSeq))}
	if strings.Contains(text, "\nimport-dir:") {
		args = append(args, "--import-dir", d.work)
	}
	if strings.Contains(text, "\nexport-dir:") {
		args = append(args, "--export-dir", d.work)
	}
	if strings.Contains(text, "\nencryption-key-file:") {
		key := filepath.Join(d.work, fmt.Sprintf("config-%d.key", d.serveSeq))
		if err := os.WriteFile(key, []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
			d.t.Fatal(err)
		}
		args = append(args, "--encryption-key-file", key)
	}
	if strings.Contains(text, "\ntls-cert:") {
		cert, key := writeTLSPair(d.t, d.work, fmt.Sprintf("config-%d-", d.serveSeq))
		args = append(args, "--tls-cert", cert, "--tls-key", key)
	}
	if strings.Contains(text, "\nreplication-mode: raft") {
		// A member alone, on a free raft port: without peers it waits to
		// be added, and serves meanwhile.
		args = append(args, "--raft-listen", "127.0.0.1:0", "--peers=", "--peer-http=")
		if strings.Contains(text, "\ncluster-ca:") && strings.Contains(text, "\ntls-cert:") {
			// Mutual TLS between members; the test's self-signed
			// certificate is its own CA.
			args = append(args, "--cluster-ca", args[slices.Index(args, "--tls-cert")+1])
		}
	}
	d.start(args...)
}

// logLines checks that the current server logged each line of text.
func (d *docRun) logLines(at, text string) {
	d.t.Helper()
	d.waitLog(at, d.server(), text)
}

// waitLog waits until s has logged every line of want (in any order).
func (d *docRun) waitLog(at string, s *docServer, want string) {
	d.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var missing []string
		logged := s.lines()
		for _, w := range strings.Split(want, "\n") {
			if strings.TrimSpace(w) == "" {
				continue
			}
			found := false
			for _, l := range logged {
				if docOutputMatches(normaliseDocOutput(w), normaliseDocOutput(d.printed(l))) {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			d.t.Errorf("%s: the server did not log\n%s\nits log:\n%s", at, strings.Join(missing, "\n"), strings.Join(logged, "\n"))
			return
		}
		time.Sleep(50 * time.Millisecond) // polling a log another process writes
	}
}

// consoleStep is one command of a console block and the output shown
// under it.
type consoleStep struct {
	line int // 0-based line of the command within the block
	cmd  string
	want string
}

// parseConsole splits a console block into commands ("$ " lines, with
// their continuation lines: a trailing backslash or an open quote) and
// the output shown under each.
func parseConsole(text string) ([]consoleStep, error) {
	var steps []consoleStep
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "$ ") {
			if len(steps) == 0 {
				if strings.TrimSpace(line) == "" {
					continue
				}
				return nil, errors.New("a console block starts with a command (\"$ \")")
			}
			steps[len(steps)-1].want += line + "\n"
			continue
		}
		st := consoleStep{line: i + 1, cmd: line[2:]}
		for continues(st.cmd) && i+1 < len(lines) {
			i++
			st.cmd += "\n" + lines[i]
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// continues reports whether a shell command goes on past its last line:
// it ends in a backslash or inside quotes.
func continues(cmd string) bool {
	var quote rune
	esc := false
	for _, r := range cmd {
		switch {
		case esc:
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			}
		case r == '\\':
			esc = true
		case quote == '"':
			if r == '"' {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		}
	}
	return quote != 0 || esc
}

// checkLayout checks a layout block against the tree: it names every
// directory that holds a Go package, and every directory it names exists.
func checkLayout(t *testing.T, root string, b docBlock) {
	t.Helper()
	named := map[string]bool{}
	for _, p := range layoutPaths(b.text) {
		named[p] = true
		if fi, err := os.Stat(filepath.Join(root, p)); err != nil || !fi.IsDir() {
			t.Errorf("%s:%d: the layout names %s, which is not a directory of the tree", b.file, b.line, p)
		}
	}
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if name := e.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "data") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		if dir != "." && !named[dir] {
			t.Errorf("%s:%d: the layout does not name the package %s", b.file, b.line, dir)
			named[dir] = true // once
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readsShared reports whether a block that runs names ../shared (the
// external data: the TCK, the Graphalytics graphs).
func readsShared(blocks []docBlock) bool {
	for i := range blocks {
		if k, _ := blocks[i].kind(); k != kindNotRun && strings.Contains(blocks[i].text, "../shared/") {
			return true
		}
	}
	return false
}
