package vfs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// fdatasync flushes f's data and the metadata needed to read it back (its
// size), skipping the times fsync would also write.
func fdatasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	// Control holds a reference on the descriptor for the call, so a
	// concurrent Close cannot pull it away mid-sync.
	cerr := rc.Control(func(fd uintptr) {
		for {
			err = unix.Fdatasync(int(fd))
			if err != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return cerr
	}
	if err != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
	}
	return nil
}

// preallocate gives f size bytes of disk space, read as zeros, and that
// size (fallocate(2), mode 0), when it has fewer. On a memory filesystem
// (tmpfs, ramfs) it does nothing: there the space would be memory held
// for the file's whole life, and a sync has no journal to spare.
func preallocate(f *os.File, size int64) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() >= size {
		return nil
	}
	var fst unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &fst); err == nil && (fst.Type == unix.TMPFS_MAGIC || fst.Type == unix.RAMFS_MAGIC) {
		return errors.ErrUnsupported
	}
	if err := unix.Fallocate(int(f.Fd()), 0, 0, size); err != nil {
		if err == unix.EOPNOTSUPP {
			return errors.ErrUnsupported
		}
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
	}
	return nil
}
