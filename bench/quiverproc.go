package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// QuiverProcess is a `quiver serve` process the harness started: the real
// binary, on a loopback port the kernel chose (--listen 127.0.0.1:0; the
// port is read from the "listening" line of its log, so no port is ever
// guessed and raced for).
type QuiverProcess struct {
	Addr string // host:port it listens on
	// QUICFingerprint is the SHA-256 fingerprint of the wire protocol's
	// QUIC certificate, from the same line.
	QUICFingerprint string
	// Started is just before the process was started, Listening when its
	// "listening" line was read.
	Started, Listening time.Time

	cmd    *exec.Cmd
	client *http.Client
	exited chan struct{}
	mu     struct {
		sync.Mutex
		lines []string // its log (stderr) so far; guarded by mu
		wait  error    // cmd.Wait's result once exited is closed
	}
}

// StartQuiver runs `bin serve --listen 127.0.0.1:0 --data-dir dataDir
// --rate-limit 0 args…` (a benchmark sends far more than the default
// 1000 requests an hour) and waits up to timeout for it to listen.
func StartQuiver(bin, dataDir string, timeout time.Duration, args ...string) (*QuiverProcess, error) {
	argv := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "0"}, args...)
	p := &QuiverProcess{cmd: exec.Command(bin, argv...), exited: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	listening := make(chan string, 1)
	p.Started = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", bin, err)
	}
	go func() {
		s := bufio.NewScanner(stderr)
		s.Buffer(make([]byte, 64<<10), 1<<20)
		for s.Scan() {
			line := s.Text()
			p.mu.Lock()
			p.mu.lines = append(p.mu.lines, line)
			p.mu.Unlock()
			if _, ok := ParseListening(line); ok {
				select {
				case listening <- line:
				default:
				}
			}
		}
		err := p.cmd.Wait()
		p.mu.Lock()
		p.mu.wait = err
		p.mu.Unlock()
		close(p.exited)
	}()
	select {
	case line := <-listening:
		p.Addr, _ = ParseListening(line)
		p.QUICFingerprint = SlogField(line, "quic_fingerprint")
		p.Listening = time.Now()
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("quiver serve exited before listening (%v):\n%s", p.waitErr(), p.tail(20))
	case <-time.After(timeout):
		p.Kill()
		return nil, fmt.Errorf("quiver serve did not listen within %v:\n%s", timeout, p.tail(20))
	}
}

// Pid is the server's process id.
func (p *QuiverProcess) Pid() int { return p.cmd.Process.Pid }

// URL is the base URL of its HTTP API.
func (p *QuiverProcess) URL() string { return "http://" + p.Addr }

// Query posts text to /api/v1/query and returns the rows.
func (p *QuiverProcess) Query(ctx context.Context, text string) (Rows, error) {
	return postQuery(ctx, p.client, p.URL(), text)
}

// Count runs a query answering one integer (a count).
func (p *QuiverProcess) Count(ctx context.Context, text string) (int64, error) {
	rows, err := p.Query(ctx, text)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("%s: want one value, got %v", text, rows)
	}
	n, ok := rows[0][0].(int64)
	if !ok {
		return 0, fmt.Errorf("%s: want an integer, got %#v", text, rows[0][0])
	}
	return n, nil
}

// Kill ends the server with SIGKILL, as a crash would: no shutdown
// checkpoint, the log as the last synced write left it.
func (p *QuiverProcess) Kill() error {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	return nil
}

// Stop ends the server with SIGTERM (graceful: it writes a checkpoint) and
// waits for it; an exit status other than 0 is an error.
func (p *QuiverProcess) Stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.exited
	if err := p.waitErr(); err != nil {
		return fmt.Errorf("quiver serve: %w:\n%s", err, p.tail(20))
	}
	return nil
}

// Lines returns its log so far.
func (p *QuiverProcess) Lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.mu.lines...)
}

// WaitLine waits up to timeout for a log line whose msg is msg, from the
// from-th line on, and returns it with its index.
func (p *QuiverProcess) WaitLine(msg string, from int, timeout time.Duration) (string, int, error) {
	end := time.Now().Add(timeout)
	for {
		lines := p.Lines()
		for i := from; i < len(lines); i++ {
			if SlogField(lines[i], "msg") == msg {
				return lines[i], i, nil
			}
		}
		if time.Now().After(end) {
			return "", 0, fmt.Errorf("no %q line in the server's log within %v", msg, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *QuiverProcess) waitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.wait
}

func (p *QuiverProcess) tail(n int) string {
	lines := p.Lines()
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// ParseListening recognises the server's "listening" log line and returns
// the address in it.
func ParseListening(line string) (string, bool) {
	if SlogField(line, "msg") != "listening" {
		return "", false
	}
	addr := SlogField(line, "addr")
	return addr, addr != ""
}

// SlogField returns the value of key in a line of log/slog's text format
// (key=value pairs separated by spaces, values with spaces or quotes
// quoted as Go strings); "" when absent or malformed.
func SlogField(line, key string) string {
	for rest := line; rest != ""; {
		rest = strings.TrimLeft(rest, " ")
		k, after, ok := strings.Cut(rest, "=")
		if !ok || strings.ContainsRune(k, ' ') {
			return ""
		}
		var v string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return ""
			}
			rest = after[len(q):]
			if v, err = strconv.Unquote(q); err != nil {
				return ""
			}
		} else {
			v, rest, _ = strings.Cut(after, " ")
		}
		if k == key {
			return v
		}
	}
	return ""
}

// CheckpointLog is what a "wrote a checkpoint" log line says.
type CheckpointLog struct {
	Reason string
	Bytes  int64
	Took   time.Duration
}

// ParseCheckpointLine parses the engine's "wrote a checkpoint" line
// (engine/durability.go).
func ParseCheckpointLine(line string) (CheckpointLog, error) {
	if SlogField(line, "msg") != "wrote a checkpoint" {
		return CheckpointLog{}, errors.New("not a checkpoint line")
	}
	var c CheckpointLog
	var err error
	c.Reason = SlogField(line, "reason")
	if c.Bytes, err = strconv.ParseInt(SlogField(line, "bytes"), 10, 64); err != nil {
		return c, fmt.Errorf("checkpoint line %q: bytes: %w", line, err)
	}
	if c.Took, err = time.ParseDuration(SlogField(line, "took")); err != nil {
		return c, fmt.Errorf("checkpoint line %q: took: %w", line, err)
	}
	return c, nil
}
