package vfs_test

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

func mustWrite(t *testing.T, fsys vfs.FS, name, data string, sync bool) vfs.File {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func content(t *testing.T, fsys vfs.FS, name string) (string, bool) {
	t.Helper()
	b, err := vfs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func syncDir(t *testing.T, fsys vfs.FS, dir string) {
	t.Helper()
	if err := vfs.SyncDir(fsys, dir); err != nil {
		t.Fatal(err)
	}
}

// A file whose data was synced is still lost when its directory entry
// was not.
func TestMemFSEntryNeedsDirSync(t *testing.T) {
	m := vfs.NewMem()
	if _, err := vfs.MkdirAllSync(m, "/d"); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, m, "/d/a", "hello", true).Close()
	if _, ok := content(t, m.Crash(nil), "/d/a"); ok {
		t.Fatal("a file survived a crash without a sync of its directory")
	}
	syncDir(t, m, "/d")
	if got, ok := content(t, m.Crash(nil), "/d/a"); !ok || got != "hello" {
		t.Fatalf("after the directory sync: %q %v, want hello", got, ok)
	}
}

// Unsynced writes, a rename and a removal are undone by a crash until
// their sync.
func TestMemFSUnsyncedUndone(t *testing.T) {
	m := vfs.NewMem()
	vfs.MkdirAllSync(m, "/d")
	f := mustWrite(t, m, "/d/a", "abc", true)
	syncDir(t, m, "/d")
	f.Write([]byte("def"))
	if got, _ := content(t, m.Crash(nil), "/d/a"); got != "abc" {
		t.Fatalf("unsynced append survived: %q", got)
	}
	f.Close()
	if err := m.Rename("/d/a", "/d/b"); err != nil {
		t.Fatal(err)
	}
	img := m.Crash(nil)
	if _, ok := content(t, img, "/d/b"); ok {
		t.Fatal("an unsynced rename survived")
	}
	if got, _ := content(t, img, "/d/a"); got != "abc" {
		t.Fatalf("the old name after a crash: %q, want abc", got)
	}
	syncDir(t, m, "/d")
	if err := m.Remove("/d/b"); err != nil {
		t.Fatal(err)
	}
	if got, _ := content(t, m.Crash(nil), "/d/b"); got != "abc" {
		t.Fatalf("an unsynced removal survived: %q", got)
	}
	// The image is synced: crashing it again changes nothing.
	img = m.Crash(nil)
	if got, _ := content(t, img.Crash(nil), "/d/b"); got != "abc" {
		t.Fatalf("a second crash of an image: %q", got)
	}
}

// A preallocated size is lost by a crash until it is synced.
func TestMemFSPreallocatedSizeNeedsSync(t *testing.T) {
	m := vfs.NewMem()
	vfs.MkdirAllSync(m, "/d")
	f := mustWrite(t, m, "/d/seg", "", false)
	syncDir(t, m, "/d")
	if err := f.Preallocate(100); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Crash(nil).Stat("/d/seg"); st.Size() != 0 {
		t.Fatalf("unsynced preallocation kept: size %d", st.Size())
	}
	f.WriteAt([]byte("rec"), 0)
	f.SyncData()
	st, _ := m.Crash(nil).Stat("/d/seg")
	if st.Size() != 100 {
		t.Fatalf("synced preallocation: size %d, want 100", st.Size())
	}
	f.Truncate(3)
	if st, _ := m.Crash(nil).Stat("/d/seg"); st.Size() != 100 {
		t.Fatalf("unsynced truncation kept: size %d", st.Size())
	}
	f.Sync()
	if got, _ := content(t, m.Crash(nil), "/d/seg"); got != "rec" {
		t.Fatalf("after the truncation's sync: %q", got)
	}
}

// Shrinking and growing again reads zeros, before and after a crash.
func TestMemFSShrinkGrowZeros(t *testing.T) {
	m := vfs.NewMem()
	vfs.MkdirAllSync(m, "/d")
	f := mustWrite(t, m, "/d/a", "abcdef", true)
	syncDir(t, m, "/d")
	f.Truncate(2)
	f.Truncate(6)
	if got, _ := content(t, m, "/d/a"); got != "ab\x00\x00\x00\x00" {
		t.Fatalf("shrink then grow: %q", got)
	}
	f.Sync()
	if got, _ := content(t, m.Crash(nil), "/d/a"); got != "ab\x00\x00\x00\x00" {
		t.Fatalf("after the sync and a crash: %q", got)
	}
}

// A torn crash keeps the synced state plus a prefix of what followed.
func TestMemFSTornKeepsPrefix(t *testing.T) {
	m := vfs.NewMem()
	vfs.MkdirAllSync(m, "/d")
	f := mustWrite(t, m, "/d/a", "0123", true)
	syncDir(t, m, "/d")
	f.Write([]byte("456789"))
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	for range 200 {
		got, ok := content(t, m.Crash(rng), "/d/a")
		if !ok || len(got) < 4 || got != "0123456789"[:len(got)] {
			t.Fatalf("torn image %q", got)
		}
		seen[len(got)] = true
	}
	if len(seen) < 5 {
		t.Fatalf("torn images of %d lengths only", len(seen))
	}
}

// The hook sees every operation and can take an image before it.
func TestMemFSHookAndFault(t *testing.T) {
	m := vfs.NewMem()
	var ops []vfs.OpKind
	var before *vfs.MemFS
	m.SetHook(func(op vfs.Op, crash func(*rand.Rand) *vfs.MemFS) {
		ops = append(ops, op.Kind)
		if op.Kind == vfs.OpSync {
			before = crash(nil)
		}
	})
	vfs.MkdirAllSync(m, "/d")
	f := mustWrite(t, m, "/d/a", "x", true)
	if before == nil {
		t.Fatal("no image at the sync")
	}
	if _, ok := content(t, before, "/d/a"); ok {
		t.Fatal("the image before the file's sync holds a file whose directory was never synced")
	}
	want := []vfs.OpKind{vfs.OpMkdir, vfs.OpSyncDir, vfs.OpCreate, vfs.OpWrite, vfs.OpSync}
	if len(ops) != len(want) {
		t.Fatalf("ops %v, want %v", ops, want)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Fatalf("ops %v, want %v", ops, want)
		}
	}
	m.SetFault(func(op vfs.Op) error {
		if op.Kind == vfs.OpWrite {
			return syscall.ENOSPC
		}
		return nil
	})
	_, err := f.Write([]byte("more"))
	if !vfs.IsDiskFull(err) {
		t.Fatalf("write on a full disk: %v", err)
	}
	if got, _ := content(t, m, "/d/a"); got != "x" {
		t.Fatalf("a failed write changed the file: %q", got)
	}
}

// Locks exclude a second holder until released; SetLocking(false) lets
// every Lock succeed.
func TestMemFSLock(t *testing.T) {
	m := vfs.NewMem()
	vfs.MkdirAllSync(m, "/d")
	l, err := m.Lock("/d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock("/d"); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	l.Close()
	l2, err := m.Lock("/d")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Close()
	m.SetLocking(false)
	a, _ := m.Lock("/d")
	if _, err := m.Lock("/d"); err != nil {
		t.Fatalf("lock with locking off: %v", err)
	}
	a.Close()
}
