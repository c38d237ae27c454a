//go:build unix

package vfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Files and directories the default filesystem creates are owner-only
// whatever the umask, and a file it opens for creation that existed with
// a wider mode is narrowed.
func TestDefaultModes(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "a", "b")
	created, err := vfs.MkdirAllSync(vfs.Default, dir)
	if err != nil || !created {
		t.Fatalf("MkdirAllSync: %v %v", created, err)
	}
	for _, d := range []string{filepath.Join(root, "a"), dir} {
		st, _ := os.Stat(d)
		if st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, st.Mode().Perm())
		}
	}
	name := filepath.Join(dir, "f")
	f, err := vfs.Default.OpenFile(name, os.O_CREATE|os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o600 {
		t.Errorf("created file: mode %v, want 0600", st.Mode().Perm())
	}
	old2 := filepath.Join(dir, "old")
	os.WriteFile(old2, []byte("x"), 0o644)
	f, err = vfs.Default.OpenFile(old2, os.O_CREATE|os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(old2); st.Mode().Perm() != 0o600 {
		t.Errorf("existing 0644 file opened for creation: mode %v, want 0600", st.Mode().Perm())
	}
}

// A directory's flock holds however its files are deleted, and excludes
// a second open of it.
func TestDefaultLockDirectory(t *testing.T) {
	dir := t.TempDir()
	l, err := vfs.Default.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vfs.Default.Lock(dir); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("second lock of the directory: %v, want ErrLocked", err)
	}
	l.Close()
	l, err = vfs.Default.Lock(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l.Close()
}

// SyncData, Preallocate and Truncate work on a real file.
func TestDefaultFileOps(t *testing.T) {
	name := filepath.Join(t.TempDir(), "seg")
	f, err := vfs.Default.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Preallocate(1 << 16); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("abc"), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.SyncData(); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3); err != nil {
		t.Fatal(err)
	}
	if b, _ := vfs.ReadFile(vfs.Default, name); string(b) != "abc" {
		t.Fatalf("read back %q", b)
	}
}
