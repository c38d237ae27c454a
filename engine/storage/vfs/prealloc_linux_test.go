//go:build linux

package vfs_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/storage/vfs"
	"golang.org/x/sys/unix"
)

// Preallocate gives a file the asked size, read as zeros, except on a
// memory filesystem, where it refuses with ErrUnsupported.
func TestDefaultPreallocate(t *testing.T) {
	f, err := vfs.Default.OpenFile(filepath.Join(t.TempDir(), "seg"), os.O_CREATE|os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(f.Name(), &st); err != nil {
		t.Fatal(err)
	}
	inMemory := st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC
	err = f.Preallocate(1 << 16)
	if inMemory {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("Preallocate on a memory filesystem = %v, want ErrUnsupported", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Preallocate on filesystem type %#x: %v", st.Type, err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1<<16 || !bytes.Equal(got[:3], []byte{1, 2, 3}) || slices.ContainsFunc(got[3:], func(b byte) bool { return b != 0 }) {
		t.Fatalf("after allocate the file holds %d bytes starting %v, want 65536: its 3 bytes, then zeros", len(got), got[:min(len(got), 8)])
	}
}
