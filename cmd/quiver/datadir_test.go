package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// refusedToStart runs `quiver args…` and returns its output once it exits.
// A server that logs "listening" instead was not refused: the test fails
// and the server is killed.
func refusedToStart(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		fmt.Fprintln(&out, sc.Text())
		if strings.Contains(sc.Text(), "msg=listening") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("quiver %s started on a directory another server holds:\n%s", args[0], out.String())
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("quiver %s on a held directory: %v\n%s", args[0], err, out.String())
	}
	return out.String()
}

// Deleting LOCK does not let a second server (or an import) into a data
// directory a server holds: the directory itself is locked. The first
// server goes on serving, and what it acknowledged survives.
func TestLockFileDeletedSecondServerRefused(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	data := filepath.Join(dir, "data")
	first, addr := startServe(t, bin, data)
	if err := os.Remove(filepath.Join(data, "LOCK")); err != nil {
		t.Fatal(err)
	}
	holder := "in use by another process"
	out := refusedToStart(t, bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", data)
	if !strings.Contains(out, holder) {
		t.Errorf("the second server's error does not say the directory is in use:\n%s", out)
	}
	nodes := filepath.Join(dir, "n.csv")
	if err := os.WriteFile(nodes, []byte("id:ID\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := refusedToStart(t, bin, "import", "--data-dir", data, "--nodes", "N="+nodes); !strings.Contains(out, holder) {
		t.Errorf("the import's error does not say the directory is in use:\n%s", out)
	}
	for i := range 50 {
		if code, body := post(t, "http://"+addr+"/api/v1/query", fmt.Sprintf(`{"query":"CREATE (:W {i: %d})"}`, i)); code != 200 {
			t.Fatalf("write %d to the first server: %d %v", i, code, body)
		}
	}
	first.Process.Kill()
	first.Wait()
	_, addr = startServe(t, bin, data)
	code, body := post(t, "http://"+addr+"/api/v1/query", `{"query":"MATCH (w:W) RETURN count(w) AS c"}`)
	if code != 200 || fmt.Sprint(body["data"]) != "[map[c:50]]" {
		t.Fatalf("after a restart: %d %v, want the 50 acknowledged writes", code, body)
	}
}

// A --data-dir that does not exist is reported at start as a new, empty
// database (the README's promise), although the audit trail also lives
// in it.
func TestNewDataDirReported(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	data := filepath.Join(dir, "typo", "data")
	s := startServeWith(t, bin, nil, "--listen", "127.0.0.1:0", "--data-dir", data, "--rate-limit", "0")
	log := strings.Join(s.startLog, "\n")
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "created a new, empty database") {
		t.Errorf("a new data directory is not reported:\n%s", log)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
	s = startServeWith(t, bin, nil, "--listen", "127.0.0.1:0", "--data-dir", data, "--rate-limit", "0")
	if log := strings.Join(s.startLog, "\n"); strings.Contains(log, "created a new") || !strings.Contains(log, "holds no database yet") {
		t.Errorf("the second start, on the directory the first made:\n%s", log)
	}
}

// Whatever the umask and the data directory's own mode, every file the
// server writes is 0600 and every folder 0700 — the log's segments and
// the checkpoint's system.kv hold password hashes — and the server warns
// that the directory is open to others. Files an earlier version left
// readable are narrowed.
func TestDataDirOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	bin := serverproc.Build(t)
	// The server runs under umask 000.
	wrapper := filepath.Join(dir, "quiver-umask0")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\numask 000\nexec "+bin+" \"$@\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o755)
	legacy := filepath.Join(data, "audit")
	os.Mkdir(legacy, 0o755)
	os.Chmod(legacy, 0o755)
	os.WriteFile(filepath.Join(legacy, "audit-1.log"), nil, 0o644)
	os.Chmod(filepath.Join(legacy, "audit-1.log"), 0o644)
	env := []string{"QUIVER_ADMIN_PASSWORD=correct horse battery"}
	s := startServeWith(t, wrapper, env, "--listen", "127.0.0.1:0", "--data-dir", data, "--rate-limit", "0", "--auth-enabled")
	log := strings.Join(s.startLog, "\n")
	for _, want := range []string{"accessible to other users", "restricted files and folders"} {
		if !strings.Contains(log, want) {
			t.Errorf("the start log does not say %q:\n%s", want, log)
		}
	}
	// A clean stop writes a checkpoint: base-*/system.kv with the admin.
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	var sawSystem, sawSegment bool
	filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == data {
			return err
		}
		info, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", strings.TrimPrefix(path, data+"/"), info.Mode().Perm(), want)
		}
		sawSystem = sawSystem || d.Name() == "system.kv"
		sawSegment = sawSegment || strings.HasPrefix(path, filepath.Join(data, "wal", "wal-"))
		return nil
	})
	if !sawSystem || !sawSegment {
		t.Errorf("system.kv %v, a log segment %v: the test did not see what it checks", sawSystem, sawSegment)
	}
	if st, _ := os.Stat(data); st.Mode().Perm() != 0o755 {
		t.Errorf("the data directory's own mode changed to %04o: it is the operator's", st.Mode().Perm())
	}
}
