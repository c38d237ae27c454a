package load

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStagingHolder is not a test: TestStaleImportKilled runs the test
// binary with it as a child process that creates a staging directory,
// prints its path and waits to be killed, as an import would mid-build.
func TestStagingHolder(t *testing.T) {
	dir := os.Getenv("QUIVER_STAGING_HOLDER")
	if dir == "" {
		return
	}
	tmp, _, err := newStaging(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(tmp + "\n")
	select {} // until killed
}

// An import killed with SIGKILL leaves its staging directory behind;
// while the import runs nothing removes it, and once its process is gone
// CleanStaleImports (called by Import and engine.Open) does.
func TestStaleImportKilled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestStagingHolder$")
	cmd.Env = append(os.Environ(), "QUIVER_STAGING_HOLDER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("the holder printed no staging directory: %v", err)
	}
	tmp := strings.TrimSpace(line)
	if removed, err := CleanStaleImports(dir); err != nil || len(removed) != 0 {
		t.Errorf("while the import runs: removed %v, %v", removed, err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("a running import's staging directory is gone: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	removed, err := CleanStaleImports(dir)
	if err != nil || !slices.Equal(removed, []string{tmp}) {
		t.Fatalf("after the kill: removed %v, %v; want %s", removed, err, tmp)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", tmp, err)
	}
}

// Only the staging directories of the directory in question go: another
// database's, a directory without a lock file younger than the grace
// period, and unrelated entries stay; one without a lock file older than
// it goes.
func TestCleanStaleImportsScope(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "db")
	mk := func(name string, lock bool, age time.Duration) string {
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(p, stagingLockName), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(".db.import-1", true, 0)
	oldNoLock := mk(".db.import-2", false, 2*stagingGrace)
	keep := []string{
		mk(".db.import-3", false, 0),   // just created, lock file not yet there
		mk(".other.import-1", true, 0), // another database's
		mk("db.import-1", true, 0),     // not a staging name
		mk(".db.imported", true, 0),    // not a staging name
		mk(".dbx.import-1", true, 0),   // another database's
		mk(".db.import", true, 0),      // no suffix: not MkdirTemp's
	}
	removed, err := CleanStaleImports(dir)
	slices.Sort(removed)
	if err != nil || !slices.Equal(removed, []string{stale, oldNoLock}) {
		t.Errorf("removed %v, %v; want %s and %s", removed, err, stale, oldNoLock)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if removed, err := CleanStaleImports(filepath.Join(parent, "missing", "db")); err != nil || removed != nil {
		t.Errorf("missing parent: %v %v", removed, err)
	}
}
