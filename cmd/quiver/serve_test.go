package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestServeBinary builds quiver, starts it on a free port, asks its health
// endpoint, and stops it with SIGTERM: a clean shutdown exits 0.
func TestServeBinary(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	cmd, addr := startServe(t, bin, filepath.Join(dir, "data"))
	resp, err := http.Get("http://" + addr + "/api/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	var health map[string]any
	err = json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || health["status"] != "healthy" {
		t.Fatalf("health: %d %v %v", resp.StatusCode, health, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after SIGTERM")
	}
}

// startServe starts `quiver serve` on a free port over dataDir and returns
// it with the address it logged; the test's end kills it.
func startServe(t *testing.T, bin, dataDir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	// The log line "msg=listening addr=…" carries the real port.
	addrc := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg=listening addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case addr := <-addrc:
		return cmd, addr
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not log its address")
	}
	return nil, ""
}

// TestOneProcessPerDataDir: while a server holds a data directory, a
// second server and an import into it exit non-zero, saying which process
// holds it.
func TestOneProcessPerDataDir(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	data := filepath.Join(dir, "data")
	first, _ := startServe(t, bin, data)
	holder := fmt.Sprintf("in use by another process (pid %d)", first.Process.Pid)
	nodes := filepath.Join(dir, "n.csv")
	if err := os.WriteFile(nodes, []byte("id:ID\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--listen", "127.0.0.1:0", "--data-dir", data},
		{"import", "--data-dir", data, "--nodes", "N=" + nodes},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("quiver %s while a server holds the directory: %v\n%s", args[0], err, out)
		}
		if !strings.Contains(string(out), holder) {
			t.Errorf("quiver %s: the error does not name the holder (%q):\n%s", args[0], holder, out)
		}
	}
}
