package serverproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// query posts one statement to the server and returns its rows.
func query(t *testing.T, p *Proc, q string) []map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": q})
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Post(p.URL()+"/api/v1/query", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer resp.Body.Close()
	var out struct {
		Data  []map[string]any `json:"data"`
		Error any              `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %v %v", q, resp.StatusCode, out.Error, err)
	}
	return out.Data
}

// TestLifecycle runs the real binary through everything a cluster test
// does to a member: pause, resume, kill -9, restart over the same data,
// and a graceful end.
func TestLifecycle(t *testing.T) {
	bin := Build(t)
	logs := t.TempDir()
	p := Start(t, Config{Bin: bin, Args: ServeArgs(t.TempDir()), Dir: logs, Name: "n1"})

	code, body, err := p.Health(context.Background())
	if err != nil || code != http.StatusOK || body["status"] != "healthy" {
		t.Fatalf("health: %d %v %v", code, body, err)
	}
	if p.Run() != 1 || p.Stderr() != filepath.Join(logs, "n1-1.stderr") || p.Stdout() != filepath.Join(logs, "n1-1.stdout") {
		t.Fatalf("run %d, files %s %s", p.Run(), p.Stdout(), p.Stderr())
	}
	if !strings.Contains(p.LogTail(100), "msg=listening addr="+p.Addr()) {
		t.Fatalf("the log does not name %s:\n%s", p.Addr(), p.LogTail(20))
	}
	query(t, p, "CREATE (:Probe {v: 1})")

	// SIGSTOP: the kernel shows it stopped and it answers nothing.
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if stopped, err := p.Stopped(); err != nil || !stopped {
		t.Fatalf("stopped %v %v", stopped, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, _, err = p.Health(ctx)
	cancel()
	if err == nil {
		t.Fatal("a stopped server answered")
	}
	if err := p.Cont(); err != nil {
		t.Fatal(err)
	}
	if stopped, _ := p.Stopped(); stopped {
		t.Fatal("still stopped after SIGCONT")
	}
	if code, _, err := p.Health(context.Background()); err != nil || code != http.StatusOK {
		t.Fatalf("health after SIGCONT: %d %v", code, err)
	}

	// kill -9, then a restart over the same data directory: the
	// acknowledged write is there.
	pid := p.Pid()
	if err := p.Kill9(); err != nil {
		t.Fatal(err)
	}
	exit, ok := p.Wait(0)
	var ee *exec.ExitError
	if !ok || !errors.As(exit, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL || !p.Exited() {
		t.Fatalf("after Kill9: exited %v, %v", ok, exit)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("pid %d still exists after Kill9: %v", pid, err)
	}
	if err := p.Kill9(); err == nil {
		t.Fatal("Kill9 of an exited server did not fail")
	}
	if err := p.Restart(); err != nil {
		t.Fatal(err)
	}
	if p.Run() != 2 || p.Pid() == pid {
		t.Fatalf("run %d, pid %d after a restart", p.Run(), p.Pid())
	}
	rows := query(t, p, "MATCH (n:Probe) RETURN count(n) AS c")
	if len(rows) != 1 || fmt.Sprint(rows[0]["c"]) != "1" {
		t.Fatalf("after kill -9 and restart: %v", rows)
	}

	// A stopped server restarts too (SIGKILL ends a stopped process),
	// while another goroutine reads its state (-race checks the reads).
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var reads sync.WaitGroup
	reads.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				_, _ = p.Addr(), p.Exited()
			}
		}
	})
	err = p.Restart()
	close(stop)
	reads.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Wait(0); ok {
		t.Fatal("Wait(0) on a running server answered an exit")
	}

	// A graceful end exits 0.
	if err := p.Term(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if _, err := os.Stat(filepath.Join(logs, fmt.Sprintf("n1-%d.stderr", n))); err != nil {
			t.Fatalf("run %d's log: %v", n, err)
		}
	}
}

// TestCleanupKills checks that a test's end kills a server it left
// running, stopped or not.
func TestCleanupKills(t *testing.T) {
	bin := Build(t)
	var pids []int
	t.Run("leaves two running", func(t *testing.T) {
		for _, stop := range []bool{false, true} {
			p := Start(t, Config{Bin: bin, Args: ServeArgs(t.TempDir())})
			if stop {
				if err := p.Stop(); err != nil {
					t.Fatal(err)
				}
			}
			pids = append(pids, p.Pid())
		}
	})
	for _, pid := range pids {
		// Reaped by Wait: the pid is gone, not a zombie.
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("pid %d outlived its test: %v", pid, err)
		}
	}
}

// fatalT catches Start's failure, so that a test can see it fail.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}

func (f *fatalT) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	panic(f)
}

func TestStartFailureShowsTheLog(t *testing.T) {
	bin := Build(t)
	ft := &fatalT{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != ft {
				panic(r)
			}
		}()
		Start(ft, Config{Bin: bin, Args: []string{"serve", "--no-such-flag"}})
	}()
	if !strings.Contains(ft.msg, "exited while starting") || !strings.Contains(ft.msg, "no-such-flag") {
		t.Fatalf("Start's failure: %q", ft.msg)
	}
}

func TestParseListening(t *testing.T) {
	line := `time=2026-11-29T22:00:00.000Z level=INFO msg=listening addr=127.0.0.1:41234 data_dir="/tmp/a b" version=dev`
	if addr, ok := ParseListening(line); !ok || addr != "127.0.0.1:41234" {
		t.Fatalf("%q %v", addr, ok)
	}
	if SlogField(line, "data_dir") != "/tmp/a b" {
		t.Fatalf("data_dir %q", SlogField(line, "data_dir"))
	}
	if _, ok := ParseListening(`level=INFO msg="opened the database" addr=x`); ok {
		t.Fatal("another line taken for the listening line")
	}
	// A line still being written does not count.
	f := filepath.Join(t.TempDir(), "log")
	os.WriteFile(f, []byte("level=INFO msg=listening addr=127.0.0.1:4"), 0o644)
	if got := findListening(f); got != "" {
		t.Fatalf("a partial line gave %q", got)
	}
	os.WriteFile(f, []byte("level=INFO msg=listening addr=127.0.0.1:4242 version=x\n"), 0o644)
	if got := findListening(f); got != "127.0.0.1:4242" {
		t.Fatalf("findListening %q", got)
	}
}
