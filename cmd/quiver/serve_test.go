package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// TestServeBinary builds quiver, starts it on a free port, asks its health
// endpoint, and stops it with SIGTERM: a clean shutdown exits 0.
func TestServeBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "quiver")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
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
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not log its address")
	}
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
