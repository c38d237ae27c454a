//go:build unix

package storage

import (
	"errors"
	"os"
	"syscall"
)

// LockFile creates path and takes an exclusive lock on it, held until
// unlock or the process's end.
func LockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// TryLockFile locks an existing path without waiting; it fails while
// another process, or another open of the file in this one, holds the
// lock.
func TryLockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.New("held by another process")
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}

// errLocksUnsupported is TryLockFile's error where the system has no
// file locks; never returned here.
var errLocksUnsupported = errors.New("file locks are not supported on this system")

// syscallWouldBlock is the error of a lock another open holds.
var syscallWouldBlock = syscall.EWOULDBLOCK

// LocksSupported reports whether LockFile excludes other processes here.
const LocksSupported = true
