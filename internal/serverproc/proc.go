package serverproc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Bounds for a slow, shared machine: none is a pause, each is how long
// something may take before it counts as a failure.
const (
	DefaultStartTimeout = 60 * time.Second // from exec to a healthy answer, recovery included
	exitTimeout         = 30 * time.Second // the process is gone after SIGKILL
	signalTimeout       = 10 * time.Second // the kernel shows a SIGSTOP or SIGCONT taken
	requestTimeout      = 5 * time.Second  // one health request
)

// Config describes a server to run.
type Config struct {
	Bin  string   // the quiver binary (Build)
	Args []string // its arguments, "serve" first (ServeArgs)
	// Dir holds the runs' output files, Name-N.stdout and Name-N.stderr
	// for run N (1, 2, … on restarts); a directory of the test's when "".
	Dir  string
	Name string   // "quiver" when ""
	Env  []string // added to the test's environment
	// StartTimeout bounds a start or restart; DefaultStartTimeout when 0.
	StartTimeout time.Duration
}

// Proc is a `quiver serve` child process, across its restarts. Its
// methods are safe for concurrent use.
type Proc struct {
	t   testing.TB
	cfg Config
	mu  struct {
		sync.Mutex // guards cur and runs
		cur        *run
		runs       []*run
	}
}

// run is one process of a Proc, from its start to its exit.
type run struct {
	n              int
	cmd            *exec.Cmd
	stdout, stderr string // the output files' paths
	addr           string // the HTTP listener's host:port
	done           chan struct{}
	err            error // cmd.Wait's result; set before done is closed
}

// Start starts the server and waits until it answers GET /api/v1/health;
// it fails t if it does not. The test's end kills it if it still runs.
func Start(t testing.TB, cfg Config) *Proc {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if cfg.Name == "" {
		cfg.Name = "quiver"
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	p := &Proc{t: t, cfg: cfg}
	t.Cleanup(p.cleanup)
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// start begins a new run and waits until it is healthy.
func (p *Proc) start() error {
	r := &run{done: make(chan struct{})}
	p.mu.Lock()
	r.n = len(p.mu.runs) + 1
	base := filepath.Join(p.cfg.Dir, fmt.Sprintf("%s-%d", p.cfg.Name, r.n))
	r.stdout, r.stderr = base+".stdout", base+".stderr"
	p.mu.runs = append(p.mu.runs, r) // for cleanup, from now on
	p.mu.Unlock()

	out, err := os.Create(r.stdout)
	if err != nil {
		return err
	}
	defer out.Close() // the child holds its own descriptors
	errf, err := os.Create(r.stderr)
	if err != nil {
		return err
	}
	defer errf.Close()
	r.cmd = exec.Command(p.cfg.Bin, p.cfg.Args...)
	r.cmd.Stdout, r.cmd.Stderr = out, errf
	r.cmd.Env = append(os.Environ(), p.cfg.Env...)
	// Its own process group, so that a signal reaches whatever it starts
	// and a terminal's ^C does not.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := r.cmd.Start(); err != nil {
		close(r.done)
		return fmt.Errorf("cannot start %s: %w", p.cfg.Bin, err)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	if err := r.awaitHealthy(p.cfg.StartTimeout); err != nil {
		r.signal(syscall.SIGKILL)
		<-r.done
		return err
	}
	// Current only once healthy, its address known: until then the
	// accessors answer for the previous run.
	p.mu.Lock()
	p.mu.cur = r
	p.mu.Unlock()
	return nil
}

// awaitHealthy polls the run's log for its address, then its health
// endpoint for a 200, until the deadline or the process's exit.
func (r *run) awaitHealthy(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: requestTimeout}
	defer client.CloseIdleConnections()
	for {
		if r.addr == "" {
			r.addr = findListening(r.stderr, r.stdout)
		}
		if r.addr != "" {
			if code, _, err := health(context.Background(), client, r.addr); err == nil && code == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("quiver serve (run %d) was not healthy within %v (address %q); its stderr:\n%s", r.n, timeout, r.addr, tail(r.stderr, 40))
		}
		select {
		case <-r.done:
			return fmt.Errorf("quiver serve (run %d) exited while starting (%v); its stderr:\n%s", r.n, r.err, tail(r.stderr, 40))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// health asks addr's GET /api/v1/health.
func health(ctx context.Context, client *http.Client, addr string) (int, map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/api/v1/health", nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("health answered %d with no JSON object: %.200s", resp.StatusCode, raw)
	}
	return resp.StatusCode, body, nil
}

func (r *run) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the run's process group.
func (r *run) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-r.cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("cannot send %v to quiver serve (pid %d): %w", sig, r.cmd.Process.Pid, err)
	}
	return nil
}

func (p *Proc) current() *run {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.cur
}

// Addr is the current run's HTTP address, host:port; URL the base URL.
func (p *Proc) Addr() string { return p.current().addr }
func (p *Proc) URL() string  { return "http://" + p.Addr() }

// Pid is the current run's process id (and process group id).
func (p *Proc) Pid() int { return p.current().cmd.Process.Pid }

// Run is the current run's number: 1, then one more per restart.
func (p *Proc) Run() int { return p.current().n }

// Stdout and Stderr are the current run's output files.
func (p *Proc) Stdout() string { return p.current().stdout }
func (p *Proc) Stderr() string { return p.current().stderr }

// LogTail is the last n lines of the current run's stderr, where the
// server logs.
func (p *Proc) LogTail(n int) string { return tail(p.current().stderr, n) }

// Done is closed once the current run has exited, for a select beside
// a test's other events. A restart makes a new run: call Done again.
func (p *Proc) Done() <-chan struct{} { return p.current().done }

// Exited reports whether the current run has ended.
func (p *Proc) Exited() bool { return p.current().exited() }

// Health asks the current run's GET /api/v1/health and returns its
// status code and body.
func (p *Proc) Health(ctx context.Context) (int, map[string]any, error) {
	client := &http.Client{Timeout: requestTimeout}
	defer client.CloseIdleConnections()
	return health(ctx, client, p.Addr())
}

// Wait waits up to d for the current run to exit and returns how it
// ended (cmd.Wait's error: nil for status 0); ok is false when it still
// runs at the deadline.
func (p *Proc) Wait(d time.Duration) (exit error, ok bool) {
	r := p.current()
	if r.exited() { // before the timer, which may be ready as soon
		return r.err, true
	}
	select {
	case <-r.done:
		return r.err, true
	case <-time.After(d):
		return nil, false
	}
}

// Kill9 sends SIGKILL, as a crash would (no shutdown, no checkpoint), and
// waits until the process is gone. A run that had already exited is an
// error: something else ended it.
func (p *Proc) Kill9() error {
	r := p.current()
	if r.exited() {
		return fmt.Errorf("quiver serve (run %d) had exited by itself (%v); its stderr:\n%s", r.n, r.err, tail(r.stderr, 40))
	}
	if err := r.signal(syscall.SIGKILL); err != nil {
		return err
	}
	select {
	case <-r.done:
	case <-time.After(exitTimeout):
		return fmt.Errorf("quiver serve (pid %d) did not exit within %v of SIGKILL", r.cmd.Process.Pid, exitTimeout)
	}
	if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		return fmt.Errorf("quiver serve (run %d) ended by %v, not by the SIGKILL; its stderr:\n%s", r.n, r.err, tail(r.stderr, 40))
	}
	return nil
}

// Term sends SIGTERM (a graceful shutdown: it writes a checkpoint) and
// waits up to d for the exit, which must be status 0.
func (p *Proc) Term(d time.Duration) error {
	r := p.current()
	if err := r.signal(syscall.SIGTERM); err != nil {
		return err
	}
	exit, ok := p.Wait(d)
	switch {
	case !ok:
		// SIGQUIT makes the Go runtime print every goroutine's stack to
		// stderr and exit: where the shutdown hangs.
		_ = r.signal(syscall.SIGQUIT)
		p.Wait(5 * time.Second)
		return fmt.Errorf("quiver serve (pid %d) did not exit within %v of SIGTERM; its goroutines (SIGQUIT):\n%s", r.cmd.Process.Pid, d, tail(r.stderr, 400))
	case exit != nil:
		return fmt.Errorf("quiver serve (run %d) exited with %v after SIGTERM; its stderr:\n%s", r.n, exit, tail(r.stderr, 40))
	}
	return nil
}

// Stop pauses the server with SIGSTOP, as a long GC pause or a frozen VM
// would, and returns once the kernel shows it stopped.
func (p *Proc) Stop() error { return p.current().pause(syscall.SIGSTOP, true) }

// Cont resumes a stopped server with SIGCONT and returns once it runs.
func (p *Proc) Cont() error { return p.current().pause(syscall.SIGCONT, false) }

func (r *run) pause(sig syscall.Signal, stopped bool) error {
	if err := r.signal(sig); err != nil {
		return err
	}
	deadline := time.Now().Add(signalTimeout)
	for {
		state, err := procState(r.cmd.Process.Pid)
		if err != nil {
			return err
		}
		if (state == 'T') == stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("quiver serve (pid %d) still in state %c %v after %v", r.cmd.Process.Pid, state, sig, signalTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// Stopped reports whether the current run is stopped (SIGSTOP).
func (p *Proc) Stopped() (bool, error) {
	state, err := procState(p.Pid())
	return state == 'T', err
}

// procState is a process's state letter from /proc/PID/stat: R, S, D, T
// (stopped), Z (zombie), …
func procState(pid int) (byte, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cannot read the state of pid %d: %w", pid, err)
	}
	// "PID (COMM) STATE …": COMM may hold spaces and parentheses, so the
	// state follows the last ") ".
	for i := len(raw) - 1; i > 0; i-- {
		if raw[i] == ')' && i+2 < len(raw) {
			return raw[i+2], nil
		}
	}
	return 0, fmt.Errorf("cannot parse /proc/%d/stat: %.100q", pid, raw)
}

// Restart kills the current run with SIGKILL if it still runs, then starts
// a new one with the same arguments (so over the same data directory) and
// waits until it is healthy. Its port is a new one: read Addr again.
func (p *Proc) Restart() error {
	if r := p.current(); !r.exited() {
		if err := p.Kill9(); err != nil {
			return err
		}
	}
	return p.start()
}

// cleanup kills what still runs at the test's end, and shows a failed
// test the end of every run's stderr.
func (p *Proc) cleanup() {
	p.mu.Lock()
	runs := append([]*run(nil), p.mu.runs...)
	p.mu.Unlock()
	for _, r := range runs {
		if r.cmd == nil || r.cmd.Process == nil || r.exited() {
			continue
		}
		_ = r.signal(syscall.SIGKILL) // a stopped process dies of it too
		select {
		case <-r.done:
		case <-time.After(exitTimeout):
			p.t.Errorf("quiver serve (pid %d) did not exit within %v of SIGKILL", r.cmd.Process.Pid, exitTimeout)
		}
	}
	if p.t.Failed() {
		for _, r := range runs {
			p.t.Logf("quiver serve %s run %d (%s), the end of its stderr:\n%s", p.cfg.Name, r.n, r.stderr, tail(r.stderr, 40))
		}
	}
}
