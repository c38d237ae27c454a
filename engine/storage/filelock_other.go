//go:build !unix

package storage

import (
	"errors"
	"os"
)

// LockFile creates path. Without flock the file only marks what it
// guards: nothing keeps a second process out, and abandoned import
// directories are never removed automatically.
func LockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// TryLockFile cannot tell a live holder from a dead one here: it always
// reports the file held.
func TryLockFile(string) (unlock func(), err error) {
	return nil, errLocksUnsupported
}

// errLocksUnsupported is TryLockFile's error where the system has no
// file locks.
var errLocksUnsupported = errors.New("file locks are not supported on this system")

// syscallWouldBlock never occurs where LockFile does not lock.
var syscallWouldBlock = errors.New("unreachable: no file locks")

// LocksSupported reports whether LockFile excludes other processes here.
const LocksSupported = false
