package storage

import (
	"os"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// LocksSupported reports whether LockFile excludes other processes here.
// Without file locks a lock file only marks what it guards: nothing keeps
// a second process out, and abandoned import directories are never
// removed automatically.
const LocksSupported = vfs.LocksSupported

// LockFile creates path (owner-only) and takes an exclusive lock on it,
// held until unlock or the process's end.
func LockFile(path string) (unlock func(), err error) {
	f, err := vfs.Default.OpenFile(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, err
	}
	f.Close()
	return TryLockFile(path)
}

// TryLockFile locks an existing path without waiting; it fails with an
// error wrapping vfs.ErrLocked while another process, or another open of
// the file in this one, holds the lock.
func TryLockFile(path string) (unlock func(), err error) {
	l, err := vfs.Default.Lock(path)
	if err != nil {
		return nil, err
	}
	return func() { l.Close() }, nil
}
