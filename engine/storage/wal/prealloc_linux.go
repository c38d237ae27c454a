//go:build linux

package wal

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// allocate gives f size bytes of disk space, read as zeros, and that
// size (fallocate(2), mode 0). An error means it stays as it was. On a
// memory filesystem (tmpfs, ramfs) it does nothing: there the space
// would be memory held for the segment's whole life, and a sync has no
// journal to spare.
func allocate(f *os.File, size int64) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err == nil && (st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC) {
		return errors.ErrUnsupported
	}
	return unix.Fallocate(int(f.Fd()), 0, 0, size)
}
