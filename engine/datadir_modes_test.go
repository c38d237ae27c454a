//go:build unix

package engine_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// A data directory that exists with a mode open to others gets a
// warning, and what it holds (left by an earlier version) is narrowed to
// the owner; what the server creates is owner-only whatever the umask.
func TestDataDirModes(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	legacy := filepath.Join(dir, "auth")
	os.Mkdir(legacy, 0o755)
	os.WriteFile(filepath.Join(legacy, "old.key"), []byte("k"), 0o644)
	var buf bytes.Buffer
	db, err := engine.Open(dir, engine.Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE (:N)", nil)
	if err := db.SystemPut(context.Background(), []engine.SystemRecord{{Key: "user/x", Value: []byte("hash")}}); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CHECKPOINT", nil)
	db.Close()
	for _, want := range []string{"accessible to other users", "restricted files and folders"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, buf.String())
		}
	}
	checkOwnerOnly(t, dir)
}

// checkOwnerOnly fails for any file under dir that is not 0600 and any
// folder that is not 0700 (dir itself excepted).
func checkOwnerOnly(t *testing.T, dir string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		info, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", path, info.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if n < 5 {
		t.Errorf("only %d entries under %s", n, dir)
	}
}
